/**
 * The admins' judge endpoint settings: which hosts judge configurations may call, beyond api.openai.com and the
 * VERDICT_JUDGE_BASE_URL host. They come from the configuration (VERDICT_JUDGE_ALLOWED_HOSTS,
 * VERDICT_JUDGE_ALLOW_LOOPBACK's ports, parsed in server/config.ts) and from the hosts admins save through the
 * admin API; the two add up.
 */
import type { Db } from "../../../db/database";
import { getJudgeEndpointSettings, saveJudgeEndpointSettings } from "../../../db/repositories/evaluation/verdicts";
import type { JudgeSettings } from "../../config";
import {
  allowedHostText,
  judgeHostPolicy,
  OPENAI_API_HOST,
  parseAllowedHosts,
  portSetText,
  type JudgeHostPolicy,
} from "../../domain/evaluation/judge-endpoint-policy";
import { ValidationError } from "../../errors";

/** The policy every judge call and every saved configuration is checked against. */
export async function judgeHostPolicyOf(db: Db, judge: JudgeSettings): Promise<JudgeHostPolicy> {
  const { policy, problems } = judgeHostPolicy({
    defaultBaseUrl: judge.defaultBaseUrl,
    allowedHosts: judge.allowedHosts,
    loopbackPorts: judge.loopbackPorts,
    saved: { allowedHosts: (await getJudgeEndpointSettings(db)).allowedHosts },
  });
  if (problems.length) throw new ValidationError(`Judge endpoint settings cannot be read: ${problems.join("; ")}`);
  return policy;
}

export interface JudgeEndpointSettingsView {
  /** What admins saved here (editable). */
  saved: { allowedHosts: string[]; updatedBy: string | null; updatedAt: Date | null };
  /** What the server's environment adds (read-only here). */
  environment: { defaultHost: string | null; allowedHosts: string; loopbackPorts: string[] };
  /** Everything allowed, as one list: hosts, plus "loopback:<port>" for each local server port. */
  effective: string[];
  /** Saved settings of an earlier version that no longer apply, and what to do instead. */
  notices: string[];
}

export async function judgeEndpointSettingsView(db: Db, judge: JudgeSettings): Promise<JudgeEndpointSettingsView> {
  const policy = await judgeHostPolicyOf(db, judge);
  let defaultHost: string | null = null;
  try {
    defaultHost = judge.defaultBaseUrl ? new URL(judge.defaultBaseUrl).host : null;
  } catch {
    defaultHost = null;
  }
  const { allowLoopback: everyLoopbackPort, ...saved } = await getJudgeEndpointSettings(db);
  return {
    saved,
    environment: { defaultHost, allowedHosts: judge.allowedHosts.join(", "), loopbackPorts: portSetText(judge.loopbackPorts) },
    effective: [...new Set([OPENAI_API_HOST, ...policy.hosts.map(allowedHostText)]), ...portSetText(policy.loopbackPorts).map((p) => `loopback:${p}`)],
    notices: everyLoopbackPort
      ? [
          "Judges may no longer call every port of this machine (a setting saved by an earlier version): list each local judge server as a host, e.g. 127.0.0.1:8000",
        ]
      : [],
  };
}

/** Saves the admins' settings (replacing the saved ones); every entry must be a host or host:port. */
export async function saveJudgeEndpointSettingsFor(
  db: Db,
  judge: JudgeSettings,
  input: { allowedHosts: string[] },
  userId: string | null,
): Promise<JudgeEndpointSettingsView> {
  const { hosts, invalid } = parseAllowedHosts(input.allowedHosts);
  if (invalid.length) {
    throw new ValidationError(
      `allowedHosts: ${invalid.map((e) => JSON.stringify(e)).join(", ")} ${invalid.length === 1 ? "is not a host" : "are not hosts"} ` +
        `(write "host" or "host:port", e.g. "gpu-box.lab.internal:8000" or "127.0.0.1:11434")`,
    );
  }
  // The column of the former every-port switch is cleared with any save.
  await saveJudgeEndpointSettings(db, { allowedHosts: hosts, allowLoopback: false, updatedBy: userId });
  return judgeEndpointSettingsView(db, judge);
}
