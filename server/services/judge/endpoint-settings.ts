/**
 * The admins' judge endpoint settings: which hosts judge configurations may call, beyond api.openai.com and the
 * VERDICT_JUDGE_BASE_URL host. They come from the environment (VERDICT_JUDGE_ALLOWED_HOSTS,
 * VERDICT_JUDGE_ALLOW_LOOPBACK) and from what admins save through the admin API; the two add up.
 */
import type { Db } from "../../../db/database";
import { getJudgeEndpointSettings, saveJudgeEndpointSettings } from "../../../db/repositories/evaluation";
import { judgeHostPolicy, OPENAI_API_HOST, parseAllowedHosts, type JudgeHostPolicy } from "../../domain/evaluators/judge-endpoint-policy";
import { ValidationError } from "../../errors";
import type { Env } from "./configs";

/** The policy every judge call and every saved configuration is checked against. */
export async function judgeHostPolicyOf(db: Db, env: Env): Promise<JudgeHostPolicy> {
  const { policy, problems } = judgeHostPolicy({
    defaultBaseUrl: env.VERDICT_JUDGE_BASE_URL,
    allowedHosts: env.VERDICT_JUDGE_ALLOWED_HOSTS,
    allowLoopback: env.VERDICT_JUDGE_ALLOW_LOOPBACK,
    saved: await getJudgeEndpointSettings(db),
  });
  if (problems.length) throw new ValidationError(`Judge endpoint settings cannot be read: ${problems.join("; ")}`);
  return policy;
}

export interface JudgeEndpointSettingsView {
  /** What admins saved here (editable). */
  saved: { allowedHosts: string[]; allowLoopback: boolean; updatedBy: string | null; updatedAt: Date | null };
  /** What the server's environment adds (read-only here). */
  environment: { defaultHost: string | null; allowedHosts: string; allowLoopback: boolean };
  /** Everything allowed, as one list: hosts, plus "loopback" when local servers are allowed. */
  effective: string[];
}

export async function judgeEndpointSettingsView(db: Db, env: Env): Promise<JudgeEndpointSettingsView> {
  const policy = await judgeHostPolicyOf(db, env);
  let defaultHost: string | null = null;
  try {
    defaultHost = env.VERDICT_JUDGE_BASE_URL ? new URL(env.VERDICT_JUDGE_BASE_URL).host : null;
  } catch {
    defaultHost = null;
  }
  return {
    saved: await getJudgeEndpointSettings(db),
    environment: {
      defaultHost,
      allowedHosts: env.VERDICT_JUDGE_ALLOWED_HOSTS ?? "",
      allowLoopback: ["1", "true", "yes"].includes((env.VERDICT_JUDGE_ALLOW_LOOPBACK ?? "").trim().toLowerCase()),
    },
    effective: [
      ...new Set([OPENAI_API_HOST, ...policy.hosts.map((h) => (h.port ? `${h.host}:${h.port}` : h.host))]),
      ...(policy.allowLoopback ? ["loopback"] : []),
    ],
  };
}

/** Saves the admins' settings (replacing the saved ones); every entry must be a host or host:port. */
export async function saveJudgeEndpointSettingsFor(
  db: Db,
  env: Env,
  input: { allowedHosts: string[]; allowLoopback: boolean },
  userId: string | null,
): Promise<JudgeEndpointSettingsView> {
  const { hosts, invalid } = parseAllowedHosts(input.allowedHosts);
  if (invalid.length) {
    throw new ValidationError(
      `allowedHosts: ${invalid.map((e) => JSON.stringify(e)).join(", ")} ${invalid.length === 1 ? "is not a host" : "are not hosts"} ` +
        `(write "host" or "host:port", e.g. "gpu-box.lab.internal:8000" or "127.0.0.1:11434")`,
    );
  }
  await saveJudgeEndpointSettings(db, { allowedHosts: hosts, allowLoopback: input.allowLoopback, updatedBy: userId });
  return judgeEndpointSettingsView(db, env);
}
