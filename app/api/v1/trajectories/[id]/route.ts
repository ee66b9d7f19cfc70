/**
 * GET /api/v1/trajectories/<id>: one trajectory as the player has it (task, run, answer, outcome, every step with
 * its action, thought and screenshot hashes) with its evaluations: judges' and rules' verdicts, human labels and
 * consolidated labels. The blind applies as in the player: an annotator who may not see them yet gets
 * `evaluations.hidden` instead, and a trajectory they may not browse is refused.
 */
import { fromJsonText, MAX_STEP_WINDOW } from "@/server/domain/player/paging";
import { idParam, json, v1Route } from "../../../_lib/v1";

export const GET = v1Route(async ({ api }, { params }: { params: Promise<{ id: string }> }) => {
  const id = idParam((await params).id, "trajectory");
  const { index: _index, window, ...player } = await api.trajectories.byId({ id });
  const steps = fromJsonText(window.steps);
  while (steps.length < player.stepCount) {
    const next = await api.trajectories.steps({ id, from: steps.length, count: MAX_STEP_WINDOW });
    const more = fromJsonText(next.steps);
    if (more.length === 0) break;
    steps.push(...more);
  }
  const evaluations = await api.judge.verdicts.panel({ trajectoryId: id });
  return json(200, { ...player, steps, evaluations });
});
