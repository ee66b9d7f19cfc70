/**
 * Calls an OpenAI-compatible chat-completions endpoint for the judge, through the `openai` SDK.
 *
 * Retries are ours rather than the SDK's (its own are turned off) so every attempt is counted and recorded:
 * 429, 408, 409, 5xx, connection errors, timeouts and unreadable response bodies are retried with exponential
 * backoff and jitter, honouring Retry-After; other errors (400, 401, 404…) fail at once. Cancellation through
 * the AbortSignal stops both the request in flight and any backoff sleep.
 *
 * Requests go through `guardedFetch`, so only hosts the admins allowed are reached. Error texts people see name
 * the status and, for OpenAI-style errors, the error code, never the endpoint's response body: an endpoint that is
 * really an internal service must not have its replies read back through batch errors.
 */
import { LRUCache } from "lru-cache";
import http from "node:http";
import OpenAI from "openai";
import type { ChatCompletionContentPart, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { scrubEndpointError, type JudgeHostPolicy } from "../../domain/evaluation/judge-endpoint-policy";
import { EndpointRefusedError, guardedFetch } from "./guarded-fetch";

/** How a judge configuration calls its model, as stored and as shown (never the key). */
export interface JudgeModelSettings {
  baseUrl: string | null;
  model: string;
  temperature: number;
  seed: number | null;
  maxOutputTokens: number;
  timeoutMs: number;
  maxRetries: number;
}

export interface JudgeEndpoint extends JudgeModelSettings {
  apiKey: string;
  /** Hosts this endpoint may reach (judgeHostPolicyOf in configs.ts). */
  hostPolicy: JudgeHostPolicy;
}

export interface RetryPolicy {
  /** First backoff delay; doubles per attempt. */
  baseDelayMs: number;
  /** Cap on any single delay, including Retry-After. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseDelayMs: 1_000, maxDelayMs: 60_000 };

export interface JudgeCallResult {
  content: string | null;
  refusal: string | null;
  /** Model name the endpoint reported. */
  model: string | null;
  finishReason: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  /** Duration of the successful attempt. */
  latencyMs: number;
  /** Attempts made, including the successful one. */
  attempts: number;
  /** Why earlier attempts failed, in order. */
  retried: string[];
}

export class JudgeCallError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly retryable: boolean,
    readonly attempts: number,
  ) {
    super(message);
    this.name = "JudgeCallError";
  }
}

export class JudgeCallAborted extends Error {
  constructor() {
    super("judge call cancelled");
    this.name = "JudgeCallAborted";
  }
}

export type ChatMessage = ChatCompletionMessageParam;
export type ContentPart = ChatCompletionContentPart;

interface Classified {
  retryable: boolean;
  status: number | null;
  reason: string;
  retryAfterMs: number | null;
}

function retryAfterMs(headers: Headers | undefined): number | null {
  if (!headers) return null;
  const ms = Number(headers.get("retry-after-ms"));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const raw = headers.get("retry-after");
  if (!raw) return null;
  const secs = Number(raw);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : null;
}

/** The OpenAI-style error code of a reply ("model_not_found"), when it is a plain identifier. */
function errorCode(e: InstanceType<typeof OpenAI.APIError>): string | null {
  const code = e.code ?? e.type;
  return typeof code === "string" && /^[A-Za-z0-9_.-]{1,40}$/.test(code) ? code : null;
}

function refusalIn(e: unknown): EndpointRefusedError | null {
  for (let c: unknown = e, depth = 0; c && depth < 4; c = (c as { cause?: unknown }).cause, depth++) {
    if (c instanceof EndpointRefusedError) return c;
  }
  return null;
}

function connectionProblem(e: unknown): string {
  const code = (e as { cause?: { code?: unknown } }).cause?.code;
  return typeof code === "string" && /^[A-Z0-9_]{2,40}$/.test(code) ? `connection error (${code})` : "connection error";
}

function classify(e: unknown): Classified {
  const refused = refusalIn(e);
  if (refused) return { retryable: false, status: null, reason: `refused: ${refused.message}`, retryAfterMs: null };
  if (e instanceof OpenAI.APIConnectionTimeoutError) return { retryable: true, status: null, reason: "timeout", retryAfterMs: null };
  if (e instanceof OpenAI.APIConnectionError) return { retryable: true, status: null, reason: connectionProblem(e), retryAfterMs: null };
  if (e instanceof OpenAI.APIError) {
    const status = e.status ?? null;
    const retryable = status === null || status === 408 || status === 409 || status === 429 || status >= 500;
    const code = errorCode(e);
    return {
      retryable,
      status,
      reason: `HTTP ${status ?? "?"}${status && http.STATUS_CODES[status] ? ` ${http.STATUS_CODES[status]}` : ""}${code ? ` (${code})` : ""}`,
      retryAfterMs: retryAfterMs(e.headers as Headers | undefined),
    };
  }
  if (e instanceof SyntaxError) return { retryable: true, status: null, reason: "unreadable response (not JSON)", retryAfterMs: null };
  return { retryable: false, status: null, reason: e instanceof Error ? `${e.name}: ${e.message}` : String(e), retryAfterMs: null };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new JudgeCallAborted());
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new JudgeCallAborted());
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export interface JudgeClient {
  complete(messages: ChatMessage[], opts?: { signal?: AbortSignal }): Promise<JudgeCallResult>;
}

/**
 * SDK clients are reused per (base URL, key, timeout): a fresh client pays tens to hundreds of milliseconds of
 * set-up and a new connection on its first request, which at batch scale costs a large share of throughput.
 */
const sdkClients = new LRUCache<string, OpenAI>({ max: 16 });

function sdkFor(endpoint: Pick<JudgeEndpoint, "baseUrl" | "apiKey" | "timeoutMs" | "hostPolicy">): OpenAI {
  const key = JSON.stringify([endpoint.baseUrl, endpoint.apiKey, endpoint.timeoutMs, endpoint.hostPolicy]);
  let sdk = sdkClients.get(key);
  if (!sdk) {
    sdk = new OpenAI({
      apiKey: endpoint.apiKey,
      // The OpenAI API unless a base URL is set; never OPENAI_BASE_URL from the environment, which the policy did not see.
      baseURL: endpoint.baseUrl ?? "https://api.openai.com/v1",
      timeout: endpoint.timeoutMs,
      maxRetries: 0,
      fetch: guardedFetch(endpoint.hostPolicy),
    });
    sdkClients.set(key, sdk);
  }
  return sdk;
}

export function createJudgeClient(endpoint: JudgeEndpoint, policy: RetryPolicy = DEFAULT_RETRY_POLICY): JudgeClient {
  const sdk = sdkFor(endpoint);
  return {
    async complete(messages, opts = {}) {
      const retried: string[] = [];
      const maxAttempts = endpoint.maxRetries + 1;
      for (let attempt = 1; ; attempt++) {
        if (opts.signal?.aborted) throw new JudgeCallAborted();
        const started = performance.now();
        try {
          const res = await sdk.chat.completions.create(
            {
              model: endpoint.model,
              messages,
              temperature: endpoint.temperature,
              ...(endpoint.seed !== null ? { seed: endpoint.seed } : {}),
              max_completion_tokens: endpoint.maxOutputTokens,
            },
            { signal: opts.signal },
          );
          const choice = res.choices?.[0];
          return {
            content: choice?.message?.content ?? null,
            refusal: choice?.message?.refusal ?? null,
            model: res.model ?? null,
            finishReason: choice?.finish_reason ?? null,
            inputTokens: res.usage?.prompt_tokens ?? null,
            outputTokens: res.usage?.completion_tokens ?? null,
            latencyMs: Math.round(performance.now() - started),
            attempts: attempt,
            retried,
          };
        } catch (e) {
          if (e instanceof OpenAI.APIUserAbortError || opts.signal?.aborted) throw new JudgeCallAborted();
          const c = classify(e);
          c.reason = scrubEndpointError(c.reason, [endpoint.apiKey]);
          if (!c.retryable || attempt >= maxAttempts) {
            throw new JudgeCallError(
              scrubEndpointError(`judge call failed after ${attempt} attempt${attempt === 1 ? "" : "s"}: ${c.reason}`, [endpoint.apiKey]),
              c.status,
              c.retryable,
              attempt,
            );
          }
          retried.push(c.reason);
          const backoff = policy.baseDelayMs * 2 ** (attempt - 1) * (0.5 + Math.random() * 0.5);
          await sleep(Math.min(policy.maxDelayMs, Math.max(backoff, c.retryAfterMs ?? 0)), opts.signal);
        }
      }
    },
  };
}

/** What an endpoint's model list said: the names it lists, or why it could not be read (`refused`: by the address policy). */
export type ModelListing = { ok: true; models: string[] } | { ok: false; status: number | null; reason: string; refused: boolean };

/**
 * One request, never retried: GET <base>/models, through the same address policy as judge calls. The configuration
 * form's "Test this endpoint" asks it; the reason of a failure is worded like a judge call's (status and code only).
 */
export async function listEndpointModels(endpoint: Pick<JudgeEndpoint, "baseUrl" | "apiKey" | "timeoutMs" | "hostPolicy">): Promise<ModelListing> {
  try {
    const page = await sdkFor(endpoint).models.list();
    return { ok: true, models: page.data.map((m) => String(m.id)) };
  } catch (e) {
    const c = classify(e);
    return { ok: false, status: c.status, reason: scrubEndpointError(c.reason, [endpoint.apiKey]), refused: refusalIn(e) !== null };
  }
}
