/**
 * Live runs: start and cancel runs, list them, and watch them. The two `watch…` procedures are subscriptions (SSE
 * through httpSubscriptionLink): the runner works in another process, so the server polls the database a few times
 * a second and sends a new snapshot only when something changed, and ends the stream once the run is over.
 */
import { z } from "zod";
import { liveRunRequestSchema, policySpecSchema, taskSelectionSchema } from "../../domain/live/settings";
import { NotFoundError } from "../../errors";
import {
  cancelLiveRun,
  listLiveRuns,
  liveRunDetail,
  liveRunFormOptions,
  liveTrajectoryPulse,
  previewLiveRun,
  startLiveRun,
  type LiveRunDeps,
  liveStepEvidence,
} from "../../services/live";
import { getTrajectoryForPlayer } from "../../services/trajectory-views";
import { assertSeesWholeCatalog } from "../../services/access";
import { createTRPCRouter, researcherProcedure, type TrpcContext } from "../trpc";
import { runtimeEnvironment } from "../../config";

/** How often a watched run is looked at. */
const POLL_MS = 300;

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

async function deps(ctx: TrpcContext): Promise<LiveRunDeps> {
  return { db: ctx.db, env: runtimeEnvironment() };
}

const id = z.number().int().positive();

/** Live runs show agents, models and their trajectories: closed to researchers while they label blind. */
const liveRunsProcedure = researcherProcedure.use(async ({ ctx, next }) => {
  await assertSeesWholeCatalog(ctx.db, ctx.actor, "live runs");
  return next();
});

export const liveRunsRouter = createTRPCRouter({
  formOptions: liveRunsProcedure.query(async ({ ctx }) => liveRunFormOptions(await deps(ctx))),

  preview: liveRunsProcedure
    .input(z.object({ tasks: taskSelectionSchema, policy: policySpecSchema, deploymentProfileId: id.nullish() }))
    .query(async ({ ctx, input }) => previewLiveRun(await deps(ctx), input)),

  start: liveRunsProcedure.input(liveRunRequestSchema).mutation(async ({ ctx, input }) => startLiveRun(await deps(ctx), input, ctx.session?.userId ?? null)),

  list: liveRunsProcedure.query(async ({ ctx }) => listLiveRuns(await deps(ctx))),

  /**
   * One step's evidence for the player's Network and Prompt panels: the requests from the HAR, the open tabs, the
   * exact prompt. Researchers who see the whole catalog only: the prompt names the task and the agent's reasoning.
   */
  stepEvidence: liveRunsProcedure
    .input(z.object({ trajectoryId: id, step: z.number().int().nonnegative() }))
    .query(async ({ ctx, input }) => liveStepEvidence({ db: ctx.db, store: ctx.store }, input.trajectoryId, input.step)),

  byId: liveRunsProcedure.input(z.object({ id })).query(async ({ ctx, input }) => liveRunDetail(await deps(ctx), input.id)),

  /** Cancels the run, or one task of it when `taskId` is given. */
  cancel: liveRunsProcedure
    .input(z.object({ runId: id, taskId: id.optional() }))
    .mutation(async ({ ctx, input }) => cancelLiveRun(await deps(ctx), input.runId, input.taskId)),

  /** Snapshots of a run (its tasks, progress, status) as they change; ends when no task is left to run. */
  watch: liveRunsProcedure.input(z.object({ id })).subscription(async function* ({ ctx, input, signal }) {
    const runDeps = await deps(ctx);
    let last = "";
    while (!signal?.aborted) {
      const detail = await liveRunDetail(runDeps, input.id);
      const key = JSON.stringify(detail);
      if (key !== last) {
        last = key;
        yield detail;
      }
      if (detail.counts.queued === 0 && detail.counts.running === 0) return;
      await sleep(POLL_MS, signal);
    }
  }),

  /** The player's view of a live trajectory, again each time a step is recorded; ends when it is finished. */
  watchTrajectory: liveRunsProcedure.input(z.object({ id })).subscription(async function* ({ ctx, input, signal }) {
    if (!(await liveTrajectoryPulse(ctx.db, input.id))) throw new NotFoundError("live trajectory", input.id);
    let last = "";
    while (!signal?.aborted) {
      const pulse = await liveTrajectoryPulse(ctx.db, input.id);
      if (!pulse) throw new NotFoundError("live trajectory", input.id);
      const key = `${pulse.stepCount}|${pulse.outcome}|${pulse.outcomeDetail}`;
      if (key !== last) {
        last = key;
        yield await getTrajectoryForPlayer(ctx.db, input.id);
      }
      if (pulse.outcome !== "running") return;
      await sleep(POLL_MS, signal);
    }
  }),
});
