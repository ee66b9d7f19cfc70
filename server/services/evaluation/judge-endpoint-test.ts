/**
 * "Test this endpoint" on the judge configuration form: one real call to the endpoint a researcher is typing in,
 * before anything is saved or a batch is started, answered in plain words (refused here, not reachable, reachable,
 * the model is there or not). The call is the model list (GET <base>/models), which costs nothing; it goes through
 * the same address policy as every judge call (the admins' hosts, and the addresses a name resolves to), with the key
 * a configuration with that base URL would send, or the one typed in the form.
 */
import type { Db } from "../../../db/database";
import type { JudgeSettings } from "../../config";
import { baseUrlProblem } from "../../domain/evaluation/judge-config-form";
import { endpointUrlRefusal, OPENAI_BASE_URL } from "../../domain/evaluation/judge-endpoint-policy";
import { listEndpointModels } from "./judge-client";
import { environmentKeyFor } from "./judge-configs";
import { judgeHostPolicyOf } from "./judge-endpoints";

/** How long the test waits for an answer: a server that takes longer is reported as not answering. */
const TEST_TIMEOUT_MS = 15_000;
/** At most this many of the endpoint's model names are shown when the one asked for is not among them. */
const MODELS_SHOWN = 8;
/** Only names that look like model names are read back (an endpoint's other replies are never shown). */
const MODEL_NAME = /^[\w.:/@+-]{1,100}$/;

export type EndpointTestOutcome = "invalid" | "refused" | "no-key" | "unreachable" | "error" | "reachable" | "model-found" | "model-missing";

export interface EndpointTestResult {
  outcome: EndpointTestOutcome;
  /** What happened, in a sentence or two, with what to do about it. */
  message: string;
  /** The address called (or that would have been). */
  endpoint: string;
}

export interface EndpointTestInput {
  baseUrl: string | null;
  model: string | null;
  /** A key typed in the form (not saved); without one, the key the configuration would use. */
  apiKey?: string;
}

function httpProblem(status: number, reason: string): { outcome: EndpointTestOutcome; message: string } {
  if (status === 401 || status === 403)
    return {
      outcome: "error",
      message: `The endpoint answered but refused the key (${reason}). Check the API key, or ask an admin which key this endpoint takes.`,
    };
  if (status === 404)
    return {
      outcome: "reachable",
      message: `The endpoint answered, but it has no model list (${reason}), so the model could not be checked. Check that the address ends where the API starts, usually /v1.`,
    };
  return { outcome: "error", message: `The endpoint answered with an error (${reason}). Try again later, or check the server's own log.` };
}

function modelVerdict(model: string | null, listed: string[]): { outcome: EndpointTestOutcome; message: string } {
  const names = listed.filter((m) => MODEL_NAME.test(m));
  const some = names.slice(0, MODELS_SHOWN).join(", ") + (names.length > MODELS_SHOWN ? ", …" : "");
  if (!model)
    return {
      outcome: "reachable",
      message: `The endpoint answered and serves ${listed.length} model${listed.length === 1 ? "" : "s"}${some ? `: ${some}` : ""}. Name one in Model.`,
    };
  if (listed.includes(model)) return { outcome: "model-found", message: `The endpoint answered and serves ${model}: the configuration can be used.` };
  return {
    outcome: "model-missing",
    message: `The endpoint answered, but it does not serve ${model}${some ? `; it serves ${some}` : " (it lists no models)"}. Check the model's name.`,
  };
}

/** One call to the endpoint, reported in plain words; nothing is saved. */
export async function testJudgeEndpoint(db: Db, judge: JudgeSettings, input: EndpointTestInput): Promise<EndpointTestResult> {
  const typed = input.baseUrl?.trim() || null;
  const endpoint = typed ?? OPENAI_BASE_URL;
  const invalid = typed ? baseUrlProblem(typed) : null;
  if (invalid) return { outcome: "invalid", message: invalid, endpoint };
  const policy = await judgeHostPolicyOf(db, judge);
  const refusal = endpointUrlRefusal(new URL(endpoint), policy);
  if (refusal) return { outcome: "refused", message: `Not called: ${refusal}.`, endpoint };
  const apiKey = input.apiKey?.trim() || environmentKeyFor(typed, judge);
  if (!apiKey) {
    return {
      outcome: "no-key",
      message: "Not called: the OpenAI API needs a key. Type one in API key, or ask an admin to set VERDICT_JUDGE_API_KEY or OPENAI_API_KEY.",
      endpoint,
    };
  }
  const model = input.model?.trim() || judge.defaultModel || null;
  const listing = await listEndpointModels({ baseUrl: typed, apiKey, timeoutMs: TEST_TIMEOUT_MS, hostPolicy: policy });
  if (listing.ok) return { ...modelVerdict(model, listing.models), endpoint };
  if (listing.refused) return { outcome: "refused", message: `Not called: ${listing.reason.replace(/^refused: /, "")}.`, endpoint };
  if (listing.status !== null) return { ...httpProblem(listing.status, listing.reason), endpoint };
  return {
    outcome: "unreachable",
    message: `Could not reach the endpoint (${listing.reason}). Check the address and that the server is running and reachable from the Verdict server.`,
    endpoint,
  };
}
