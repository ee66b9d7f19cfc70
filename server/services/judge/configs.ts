/**
 * Judge configurations: create, list, edit, and resolve the API key for a call.
 *
 * The key is never part of a configuration as returned by this module. It is either stored server-side
 * (`judge_config_secrets`, written by `setStoredApiKey`) or read at call time from the environment: the variable
 * the configuration names, then VERDICT_JUDGE_API_KEY, then OPENAI_API_KEY. Services receive the environment
 * from their caller (CLI, web server, tests) instead of reading process.env themselves.
 */
import type { Db } from "../../../db/client";
import type { JudgeEndpoint } from "./client";
import {
  clearJudgeApiKey,
  countVerdicts,
  deleteJudgeConfig as deleteConfigRow,
  getJudgeApiKey,
  getJudgeConfig,
  getJudgeConfigByName,
  insertJudgeConfig,
  listJudgeConfigs as listConfigRows,
  setJudgeApiKey,
  updateJudgeConfig as updateConfigRow,
  type PublicJudgeConfig,
} from "../../../db/repositories/evaluation";
import { CURRENT_JUDGE_PROMPT_VERSION, isJudgePromptVersion } from "../../domain/evaluators/judge-protocol";
import { DEFAULT_JUDGE_OPTIONS, type JudgeOptions } from "../../domain/evaluators/verdicts";
import { ConflictError, NotFoundError, ValidationError } from "../../errors";

export type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULT_SEED = 42;

/** What a client may see of a configuration: everything but the key (and where it comes from, by name only). */
export interface JudgeConfigView {
  id: number;
  name: string;
  baseUrl: string | null;
  model: string;
  temperature: number;
  seed: number | null;
  maxOutputTokens: number;
  timeoutMs: number;
  maxRetries: number;
  promptVersion: string;
  options: JudgeOptions;
  priceInputPerMTok: number | null;
  priceOutputPerMTok: number | null;
  /** "stored" (kept server-side), "env:NAME" (read from that variable) or "none" (local endpoints). */
  apiKeySource: string;
  createdAt: Date;
  updatedAt: Date;
}

export function toView(c: PublicJudgeConfig): JudgeConfigView {
  return {
    id: c.id,
    name: c.name,
    baseUrl: c.baseUrl,
    model: c.model,
    temperature: c.temperature,
    seed: c.seed,
    maxOutputTokens: c.maxOutputTokens,
    timeoutMs: c.timeoutMs,
    maxRetries: c.maxRetries,
    promptVersion: c.promptVersion,
    options: { ...DEFAULT_JUDGE_OPTIONS, ...c.options },
    priceInputPerMTok: c.priceInputPerMTok,
    priceOutputPerMTok: c.priceOutputPerMTok,
    apiKeySource: c.hasStoredKey ? "stored" : c.apiKeyEnv ? `env:${c.apiKeyEnv}` : "env:VERDICT_JUDGE_API_KEY|OPENAI_API_KEY",
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

export interface JudgeConfigInput {
  name: string;
  baseUrl?: string | null;
  model?: string;
  apiKeyEnv?: string | null;
  temperature?: number;
  seed?: number | null;
  maxOutputTokens?: number;
  timeoutMs?: number;
  maxRetries?: number;
  promptVersion?: string;
  options?: Partial<JudgeOptions>;
  priceInputPerMTok?: number | null;
  priceOutputPerMTok?: number | null;
}

function nonEmpty(v: string | undefined | null): string | undefined {
  return v && v.trim() !== "" ? v.trim() : undefined;
}

function checkOptions(o: JudgeOptions): void {
  if (o.screenshots !== "marked" && o.screenshots !== "raw") throw new ValidationError(`options.screenshots must be "marked" or "raw"`);
  if (!["auto", "low", "high"].includes(o.imageDetail)) throw new ValidationError(`options.imageDetail must be auto, low or high`);
  if (o.maxImageSide !== null && (!Number.isInteger(o.maxImageSide) || o.maxImageSide < 16 || o.maxImageSide > 10_000)) {
    throw new ValidationError(`options.maxImageSide must be a whole number of pixels between 16 and 10000, or null`);
  }
  if (o.includeThoughts && !o.includeActionHistory) {
    throw new ValidationError("options.includeThoughts needs options.includeActionHistory (thoughts are shown in the action history)");
  }
}

function checkNumbers(v: JudgeConfigInput): void {
  const bad = (field: string, why: string) => {
    throw new ValidationError(`judge configuration field "${field}" ${why}`);
  };
  if (v.temperature !== undefined && !(v.temperature >= 0 && v.temperature <= 2)) bad("temperature", "must be between 0 and 2");
  if (v.seed != null && !Number.isInteger(v.seed)) bad("seed", "must be a whole number");
  if (v.maxOutputTokens !== undefined && !(Number.isInteger(v.maxOutputTokens) && v.maxOutputTokens >= 16)) bad("maxOutputTokens", "must be a whole number ≥ 16");
  if (v.timeoutMs !== undefined && !(Number.isInteger(v.timeoutMs) && v.timeoutMs >= 100)) bad("timeoutMs", "must be a whole number of milliseconds ≥ 100");
  if (v.maxRetries !== undefined && !(Number.isInteger(v.maxRetries) && v.maxRetries >= 0 && v.maxRetries <= 20)) bad("maxRetries", "must be 0–20");
  for (const f of ["priceInputPerMTok", "priceOutputPerMTok"] as const) {
    const p = v[f];
    if (p != null && !(p >= 0)) bad(f, "must be a non-negative price in USD per million tokens");
  }
  if (v.baseUrl) {
    try {
      const u = new URL(v.baseUrl);
      if (u.protocol !== "http:" && u.protocol !== "https:") bad("baseUrl", "must be an http(s) URL");
    } catch {
      bad("baseUrl", `is not a URL: ${JSON.stringify(v.baseUrl)}`);
    }
  }
  if (v.promptVersion !== undefined && !isJudgePromptVersion(v.promptVersion)) {
    bad("promptVersion", `is not a known judge prompt version (known: ${CURRENT_JUDGE_PROMPT_VERSION})`);
  }
}

/** Creates a configuration. Base URL and model default to VERDICT_JUDGE_BASE_URL / VERDICT_JUDGE_MODEL. */
export function createJudgeConfig(db: Db, input: JudgeConfigInput, env: Env): JudgeConfigView {
  const name = input.name?.trim();
  if (!name) throw new ValidationError('judge configuration needs a "name"');
  if (getJudgeConfigByName(db, name)) throw new ConflictError(`A judge configuration named ${JSON.stringify(name)} already exists`);
  const model = nonEmpty(input.model) ?? nonEmpty(env.VERDICT_JUDGE_MODEL);
  if (!model) throw new ValidationError('judge configuration needs a "model" (or set VERDICT_JUDGE_MODEL)');
  const baseUrl = input.baseUrl !== undefined ? nonEmpty(input.baseUrl) ?? null : nonEmpty(env.VERDICT_JUDGE_BASE_URL) ?? null;
  const options: JudgeOptions = { ...DEFAULT_JUDGE_OPTIONS, ...(input.options ?? {}) };
  checkNumbers({ ...input, baseUrl });
  checkOptions(options);
  const id = insertJudgeConfig(db, {
    name,
    baseUrl,
    model,
    apiKeyEnv: nonEmpty(input.apiKeyEnv) ?? null,
    temperature: input.temperature ?? 0,
    seed: input.seed === undefined ? DEFAULT_SEED : input.seed,
    maxOutputTokens: input.maxOutputTokens ?? 1024,
    timeoutMs: input.timeoutMs ?? 120_000,
    maxRetries: input.maxRetries ?? 5,
    promptVersion: input.promptVersion ?? CURRENT_JUDGE_PROMPT_VERSION,
    options,
    priceInputPerMTok: input.priceInputPerMTok ?? null,
    priceOutputPerMTok: input.priceOutputPerMTok ?? null,
  });
  return toView(getJudgeConfig(db, id)!);
}

export function listJudgeConfigViews(db: Db): JudgeConfigView[] {
  return listConfigRows(db).map(toView);
}

export function requireJudgeConfig(db: Db, ref: number | string): PublicJudgeConfig {
  const c = typeof ref === "number" ? getJudgeConfig(db, ref) : getJudgeConfigByName(db, ref);
  if (!c) throw new NotFoundError("judge configuration", ref);
  return c;
}

/** Fields whose change would make the configuration a different judge: frozen once it has verdicts. */
const IDENTITY_FIELDS = ["baseUrl", "model", "temperature", "seed", "maxOutputTokens", "promptVersion", "options"] as const;

/**
 * Edits a configuration. Once it has verdicts, only operational fields (prices, timeout, retries, key source)
 * may change: its verdicts must keep describing what the judge was.
 */
export function updateJudgeConfig(db: Db, id: number, patch: Omit<Partial<JudgeConfigInput>, "name">): JudgeConfigView {
  const current = requireJudgeConfig(db, id);
  const changed = IDENTITY_FIELDS.filter(
    (f) => patch[f] !== undefined && JSON.stringify(f === "options" ? { ...current.options, ...patch.options } : patch[f]) !== JSON.stringify(current[f]),
  );
  if (changed.length > 0 && countVerdicts(db, { evaluatorKey: judgeEvaluatorKey(id) }) > 0) {
    throw new ConflictError(
      `Judge configuration ${JSON.stringify(current.name)} already has verdicts; changing ${changed.join(", ")} would make them ` +
        "describe a different judge. Create a new configuration instead.",
    );
  }
  checkNumbers(patch as JudgeConfigInput);
  const options = patch.options ? { ...DEFAULT_JUDGE_OPTIONS, ...current.options, ...patch.options } : undefined;
  if (options) checkOptions(options);
  updateConfigRow(db, id, {
    ...(patch.baseUrl !== undefined ? { baseUrl: nonEmpty(patch.baseUrl) ?? null } : {}),
    ...(patch.model !== undefined ? { model: patch.model } : {}),
    ...(patch.apiKeyEnv !== undefined ? { apiKeyEnv: nonEmpty(patch.apiKeyEnv) ?? null } : {}),
    ...(patch.temperature !== undefined ? { temperature: patch.temperature } : {}),
    ...(patch.seed !== undefined ? { seed: patch.seed } : {}),
    ...(patch.maxOutputTokens !== undefined ? { maxOutputTokens: patch.maxOutputTokens } : {}),
    ...(patch.timeoutMs !== undefined ? { timeoutMs: patch.timeoutMs } : {}),
    ...(patch.maxRetries !== undefined ? { maxRetries: patch.maxRetries } : {}),
    ...(patch.promptVersion !== undefined ? { promptVersion: patch.promptVersion } : {}),
    ...(options ? { options } : {}),
    ...(patch.priceInputPerMTok !== undefined ? { priceInputPerMTok: patch.priceInputPerMTok } : {}),
    ...(patch.priceOutputPerMTok !== undefined ? { priceOutputPerMTok: patch.priceOutputPerMTok } : {}),
  });
  return toView(getJudgeConfig(db, id)!);
}

export function deleteJudgeConfig(db: Db, id: number): void {
  const c = requireJudgeConfig(db, id);
  try {
    deleteConfigRow(db, c.id);
  } catch (e) {
    if (/FOREIGN KEY/i.test((e as Error).message)) {
      throw new ConflictError(`Judge configuration ${JSON.stringify(c.name)} has batches; it cannot be deleted`);
    }
    throw e;
  }
}

/** Stores a key server-side for a configuration (or removes it with null). */
export function setStoredApiKey(db: Db, id: number, apiKey: string | null): void {
  requireJudgeConfig(db, id);
  if (apiKey === null) clearJudgeApiKey(db, id);
  else {
    if (!apiKey.trim()) throw new ValidationError("API key is empty");
    setJudgeApiKey(db, id, apiKey.trim());
  }
}

export function judgeEvaluatorKey(configId: number): string {
  return `judge:${configId}`;
}

/**
 * The key to call a configuration's endpoint with. Local servers (Ollama, vLLM) usually need none: when a base URL
 * is set and no key is found, a placeholder is sent. The OpenAI API itself needs a real key.
 */
export function resolveApiKey(db: Db, config: PublicJudgeConfig, env: Env): string {
  const stored = config.hasStoredKey ? getJudgeApiKey(db, config.id) : undefined;
  const fromEnv =
    (config.apiKeyEnv ? nonEmpty(env[config.apiKeyEnv]) : undefined) ??
    nonEmpty(env.VERDICT_JUDGE_API_KEY) ??
    nonEmpty(env.OPENAI_API_KEY);
  const key = stored ?? fromEnv;
  if (key) return key;
  if (config.baseUrl) return "no-key";
  throw new ValidationError(
    `Judge configuration ${JSON.stringify(config.name)} calls the OpenAI API but no API key was found: store one, or set ` +
      `${config.apiKeyEnv ? `${config.apiKeyEnv}, ` : ""}VERDICT_JUDGE_API_KEY or OPENAI_API_KEY`,
  );
}

/** Replaces every occurrence of a secret in text that may be shown or stored (error messages from endpoints). */
export function redactSecret(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 4 || secret === "no-key") return text;
  return text.split(secret).join("[redacted]");
}

/** How to call a configuration's endpoint: its model settings, with the key found as resolveApiKey finds it. */
export function judgeEndpointOf(db: Db, config: PublicJudgeConfig, env: Env): JudgeEndpoint {
  return {
    baseUrl: config.baseUrl,
    apiKey: resolveApiKey(db, config, env),
    model: config.model,
    temperature: config.temperature,
    seed: config.seed,
    maxOutputTokens: config.maxOutputTokens,
    timeoutMs: config.timeoutMs,
    maxRetries: config.maxRetries,
  };
}
