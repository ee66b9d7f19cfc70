/**
 * Judge configurations: create, list, edit, and resolve the API key for a call.
 *
 * The key is never part of a configuration as returned by this module. It is either stored server-side
 * (`judge_config_secrets`, written by `setStoredApiKey`) or read at call time from the environment: the variable
 * the configuration names, then VERDICT_JUDGE_API_KEY, then OPENAI_API_KEY. Services receive the judge settings
 * (`JudgeSettings`, parsed by server/config.ts) from their caller (CLI, web server, workers, tests); the key
 * variables are the one thing looked up by name there, by design: a configuration names the variable holding its key.
 *
 * Keys only go where admins allow (server/domain/evaluation/judge-endpoint-policy.ts):
 * - a configuration may name only VERDICT_JUDGE_API_KEY, OPENAI_API_KEY or a VERDICT_JUDGE_KEY_* variable, and each
 *   variable's key is sent only to the endpoint an admin bound it to (`keyDestination`);
 * - a stored key is encrypted with a key derived from the auth secret, together with the base URL it was stored
 *   for: changing the base URL deletes it, and it is only ever sent to that URL;
 * - the endpoint's host must pass the admins' allowlist, when a configuration is saved and before every call.
 */
import { withTransaction, type Db } from "../../../db/database";
import { isSealed, secretBoxOf } from "../../auth/secret-box";
import {
  endpointUrlRefusal,
  isAllowedKeyEnv,
  judgeKeyEnvSchema,
  KEY_ENV_RULE,
  keyDestination,
  keyMayGoTo,
  OPENAI_BASE_URL,
  scrubEndpointError,
  SHARED_KEY_ENVS,
} from "../../domain/evaluation/judge-endpoint-policy";
import type { JudgeSettings } from "../../config";
import type { JudgeEndpoint, JudgeModelSettings } from "./judge-client";
import { judgeHostPolicyOf } from "./judge-endpoints";
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
} from "../../../db/repositories/evaluation/verdicts";
import {
  CURRENT_JUDGE_PROMPT_VERSION,
  isJudgePromptVersion,
  JUDGE_PROTOCOLS,
  protocolOfVersion,
  type JudgeProtocolId,
} from "../../domain/evaluation/judge-protocol";
import { DEFAULT_JUDGE_OPTIONS, type JudgeOptions } from "../../domain/evaluation/verdicts";
import { baseUrlProblem } from "../../domain/evaluation/judge-config-form";
import { ConflictError, NotFoundError, ValidationError } from "../../errors";

/** A process environment as handed down by an entry point (workers' and the CLI's deps carry one; judgeSettings parses it). */
export type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULT_SEED = 42;

/** What a client may see of a configuration: everything but the key (and where it comes from, by name only). */
export interface JudgeConfigView extends JudgeModelSettings {
  id: number;
  name: string;
  promptVersion: string;
  /** The built-in protocol the prompt version belongs to. */
  protocol: JudgeProtocolId;
  options: JudgeOptions;
  priceInputPerMTok: number | null;
  priceOutputPerMTok: number | null;
  /**
   * "stored" (kept server-side), "env:NAME" (read from that variable), "env:VERDICT_JUDGE_API_KEY|OPENAI_API_KEY",
   * or "none: …" when the configuration names a variable that is not an allowed key source (no key is sent).
   */
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
    protocol: protocolOfVersion(c.promptVersion),
    options: { ...DEFAULT_JUDGE_OPTIONS, ...c.options },
    priceInputPerMTok: c.priceInputPerMTok,
    priceOutputPerMTok: c.priceOutputPerMTok,
    apiKeySource: c.hasStoredKey
      ? "stored"
      : c.apiKeyEnv && !isAllowedKeyEnv(c.apiKeyEnv)
        ? `none: ${c.apiKeyEnv} is not an allowed key source (use ${KEY_ENV_RULE})`
        : c.apiKeyEnv
          ? `env:${c.apiKeyEnv}`
          : "env:VERDICT_JUDGE_API_KEY|OPENAI_API_KEY",
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
  const bad = (field: string, message: string) => {
    throw new ValidationError(message, field);
  };
  if (o.screenshots !== "marked" && o.screenshots !== "raw") bad("screenshots", `Screenshots are sent "marked" or "raw"`);
  if (!["auto", "low", "high"].includes(o.imageDetail)) bad("imageDetail", "The image detail is auto, low or high");
  if (o.maxImageSide !== null && (!Number.isInteger(o.maxImageSide) || o.maxImageSide < 16 || o.maxImageSide > 10_000)) {
    bad("maxImageSide", "The longest image side must be a whole number of pixels from 16 to 10000, or empty to send screenshots as recorded");
  }
  if (o.relevanceThreshold !== undefined && !(Number.isInteger(o.relevanceThreshold) && o.relevanceThreshold >= 1 && o.relevanceThreshold <= 5)) {
    bad("relevanceThreshold", "The relevance threshold must be a whole number from 1 to 5 (the lowest relevance score a screenshot needs)");
  }
  for (const flag of ["askFirstFailingStep", "withoutFinalAnswer", "askCitations"] as const) {
    if (o[flag] !== undefined && typeof o[flag] !== "boolean") bad(flag, `options.${flag} must be true or false`);
  }
  if (o.includeThoughts && !o.includeActionHistory) {
    bad("includeThoughts", "The agent's thoughts are shown in the action history: include the action history to include them");
  }
}

/** The URL a configuration's requests go to (the OpenAI API when it has no base URL). */
function endpointUrl(baseUrl: string | null): URL {
  return new URL(baseUrl ?? OPENAI_BASE_URL);
}

/** Why the key in `keyEnv` may not go with calls to `baseUrl`, or null when it may. */
function keyBindingProblem(keyEnv: string, baseUrl: string | null, judge: JudgeSettings): string | null {
  const bound = keyDestination(keyEnv, judge);
  if ("problem" in bound) return bound.problem;
  if (keyMayGoTo(bound.url, endpointUrl(baseUrl))) return null;
  return `${keyEnv} is sent only to ${bound.url}, not to ${baseUrl ?? OPENAI_BASE_URL}`;
}

/** A configuration that names its key variable must call the endpoint that key is bound to. */
function checkKeyBinding(apiKeyEnv: string | null | undefined, baseUrl: string | null, judge: JudgeSettings): void {
  const name = nonEmpty(apiKeyEnv ?? undefined);
  if (!name) return;
  const problem = keyBindingProblem(name, baseUrl, judge);
  if (problem) throw new ValidationError(`The key variable cannot be used with this endpoint: ${problem}`, "apiKeyEnv");
}

async function checkEndpointAllowed(db: Db, baseUrl: string | null, judge: JudgeSettings): Promise<void> {
  const refusal = endpointUrlRefusal(endpointUrl(baseUrl), await judgeHostPolicyOf(db, judge));
  if (refusal) throw new ValidationError(`This endpoint is not allowed: ${refusal}`, "baseUrl");
}

function checkKeyEnv(apiKeyEnv: string | null | undefined): void {
  if (apiKeyEnv == null || apiKeyEnv.trim() === "") return;
  const parsed = judgeKeyEnvSchema.safeParse(apiKeyEnv);
  if (!parsed.success) throw new ValidationError(`The key variable is refused: ${parsed.error.issues[0]!.message}`, "apiKeyEnv");
}

/** Each refusal names its field (so a form shows it beside that field) and says what to write. */
function checkNumbers(v: JudgeConfigInput): void {
  const bad = (field: string, message: string) => {
    throw new ValidationError(message, field);
  };
  if (v.temperature !== undefined && !(v.temperature >= 0 && v.temperature <= 2)) bad("temperature", "The temperature must be a number from 0 to 2");
  if (v.seed != null && !Number.isInteger(v.seed)) bad("seed", "The seed must be a whole number");
  if (v.maxOutputTokens !== undefined && !(Number.isInteger(v.maxOutputTokens) && v.maxOutputTokens >= 16))
    bad("maxOutputTokens", "The maximum output must be a whole number of tokens, at least 16");
  if (v.timeoutMs !== undefined && !(Number.isInteger(v.timeoutMs) && v.timeoutMs >= 100))
    bad("timeoutMs", "The timeout must be a whole number of milliseconds, at least 100");
  if (v.maxRetries !== undefined && !(Number.isInteger(v.maxRetries) && v.maxRetries >= 0 && v.maxRetries <= 20))
    bad("maxRetries", "The number of retries must be a whole number from 0 to 20");
  for (const f of ["priceInputPerMTok", "priceOutputPerMTok"] as const) {
    const p = v[f];
    if (p != null && !(p >= 0)) bad(f, "A price must be 0 or more US dollars per million tokens");
  }
  if (v.baseUrl) {
    const problem = baseUrlProblem(v.baseUrl);
    if (problem) bad("baseUrl", problem);
  }
  if (v.promptVersion !== undefined && !isJudgePromptVersion(v.promptVersion)) {
    bad(
      "promptVersion",
      `${JSON.stringify(v.promptVersion)} is not a judge protocol (known: ${JUDGE_PROTOCOLS.map((p) => `${p.id} (${p.promptVersion})`).join(", ")})`,
    );
  }
}

/** A protocol may be named by its id ("key-points") as well as by its prompt version. */
function withProtocolVersion<T extends { promptVersion?: string }>(input: T): T {
  const found = JUDGE_PROTOCOLS.find((p) => p.id === input.promptVersion);
  return found ? { ...input, promptVersion: found.promptVersion } : input;
}

/** Creates a configuration. Base URL and model default to VERDICT_JUDGE_BASE_URL / VERDICT_JUDGE_MODEL (`judge`). */
export async function createJudgeConfig(db: Db, given: JudgeConfigInput, judge: JudgeSettings): Promise<JudgeConfigView> {
  const input = withProtocolVersion(given);
  const name = input.name?.trim();
  if (!name) throw new ValidationError("A judge configuration needs a name", "name");
  if (await getJudgeConfigByName(db, name)) throw new ConflictError(`A judge configuration named ${JSON.stringify(name)} already exists`);
  const model = nonEmpty(input.model) ?? judge.defaultModel;
  if (!model) throw new ValidationError("A judge configuration needs a model (or an admin sets VERDICT_JUDGE_MODEL)", "model");
  const baseUrl = input.baseUrl !== undefined ? (nonEmpty(input.baseUrl) ?? null) : (judge.defaultBaseUrl ?? null);
  const options: JudgeOptions = { ...DEFAULT_JUDGE_OPTIONS, ...(input.options ?? {}) };
  checkNumbers({ ...input, baseUrl });
  checkOptions(options);
  checkKeyEnv(input.apiKeyEnv);
  await checkEndpointAllowed(db, baseUrl, judge);
  checkKeyBinding(input.apiKeyEnv, baseUrl, judge);
  const id = await insertJudgeConfig(db, {
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
  return toView((await getJudgeConfig(db, id))!);
}

export async function listJudgeConfigViews(db: Db): Promise<JudgeConfigView[]> {
  return (await listConfigRows(db)).map(toView);
}

export async function requireJudgeConfig(db: Db, ref: number | string): Promise<PublicJudgeConfig> {
  const c = typeof ref === "number" ? await getJudgeConfig(db, ref) : await getJudgeConfigByName(db, ref);
  if (!c) throw new NotFoundError("judge configuration", ref);
  return c;
}

/** Fields whose change would make the configuration a different judge: frozen once it has verdicts. */
const IDENTITY_FIELDS = ["baseUrl", "model", "temperature", "seed", "maxOutputTokens", "promptVersion", "options"] as const;

export interface JudgeConfigUpdate extends JudgeConfigView {
  /** The stored key was deleted because the base URL changed: it is only ever sent where it was entered for. */
  storedKeyRemoved: boolean;
}

/**
 * Edits a configuration. Once it has verdicts, only operational fields (prices, timeout, retries, key source)
 * may change: its verdicts must keep describing what the judge was. A new base URL must pass the admins' host
 * allowlist, and it deletes a stored key.
 */
export async function updateJudgeConfig(db: Db, id: number, given: Omit<Partial<JudgeConfigInput>, "name">, judge: JudgeSettings): Promise<JudgeConfigUpdate> {
  const patch = withProtocolVersion(given);
  const current = await requireJudgeConfig(db, id);
  const changed = IDENTITY_FIELDS.filter(
    (f) => patch[f] !== undefined && JSON.stringify(f === "options" ? { ...current.options, ...patch.options } : patch[f]) !== JSON.stringify(current[f]),
  );
  if (changed.length > 0 && (await countVerdicts(db, { evaluatorKey: judgeEvaluatorKey(id) })) > 0) {
    throw new ConflictError(
      `Judge configuration ${JSON.stringify(current.name)} already has verdicts; changing ${changed.join(", ")} would make them ` +
        "describe a different judge. Create a new configuration instead.",
    );
  }
  checkNumbers(patch as JudgeConfigInput);
  const options = patch.options ? { ...DEFAULT_JUDGE_OPTIONS, ...current.options, ...patch.options } : undefined;
  if (options) checkOptions(options);
  if (patch.apiKeyEnv !== undefined) checkKeyEnv(patch.apiKeyEnv);
  const newBaseUrl = patch.baseUrl !== undefined ? (nonEmpty(patch.baseUrl) ?? null) : current.baseUrl;
  const baseUrlChanged = newBaseUrl !== current.baseUrl;
  if (baseUrlChanged) await checkEndpointAllowed(db, newBaseUrl, judge);
  if (baseUrlChanged || patch.apiKeyEnv !== undefined) checkKeyBinding(patch.apiKeyEnv !== undefined ? patch.apiKeyEnv : current.apiKeyEnv, newBaseUrl, judge);
  const storedKeyRemoved = baseUrlChanged && current.hasStoredKey;
  // The key goes with the old URL in the same transaction: no moment exists where the new URL has the old key.
  await withTransaction(db, async () => {
    if (storedKeyRemoved) await clearJudgeApiKey(db, id);
    await updateConfigRow(db, id, {
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
  });
  return { ...toView((await getJudgeConfig(db, id))!), storedKeyRemoved };
}

export async function deleteJudgeConfig(db: Db, id: number): Promise<void> {
  const c = await requireJudgeConfig(db, id);
  try {
    await deleteConfigRow(db, c.id);
  } catch (e) {
    if (isForeignKeyViolation(e)) {
      throw new ConflictError(`Judge configuration ${JSON.stringify(c.name)} has batches; it cannot be deleted`);
    }
    throw e;
  }
}

/** SQLite and PostgreSQL both refuse to delete a row others still point at; the error may be wrapped by the driver layer. */
function isForeignKeyViolation(e: unknown): boolean {
  for (let cur: unknown = e, depth = 0; cur && depth < 5; depth++, cur = (cur as { cause?: unknown }).cause) {
    const { code, message } = cur as { code?: unknown; message?: unknown };
    if (code === "23503" || code === "SQLITE_CONSTRAINT_FOREIGNKEY") return true;
    if (typeof message === "string" && /FOREIGN KEY constraint failed|violates foreign key constraint/i.test(message)) return true;
  }
  return false;
}

/** What `judge_config_secrets.api_key` holds, sealed: the key and the base URL it was stored for. */
interface StoredKeyRecord {
  apiKey: string;
  baseUrl: string | null;
}

/** Binds a sealed key to its row: a value copied to another configuration does not open there. */
function secretContext(configId: number): string {
  return `judge_config_secrets:${configId}`;
}

async function sealKey(db: Db, configId: number, record: StoredKeyRecord): Promise<string> {
  return secretBoxOf(db).seal(JSON.stringify(record), secretContext(configId));
}

/**
 * Stores a key server-side for a configuration (or removes it with null), encrypted, bound to the configuration's
 * current base URL.
 */
export async function setStoredApiKey(db: Db, id: number, apiKey: string | null): Promise<void> {
  const config = await requireJudgeConfig(db, id);
  if (apiKey === null) await clearJudgeApiKey(db, id);
  else {
    if (!apiKey.trim()) throw new ValidationError("API key is empty");
    await setJudgeApiKey(db, id, await sealKey(db, id, { apiKey: apiKey.trim(), baseUrl: config.baseUrl }));
  }
}

/**
 * The stored key of a configuration, if it may be sent to the configuration's base URL. Keys stored in plain text
 * by earlier versions are encrypted on first read, bound to the base URL the configuration has then (which the
 * host allowlist has already accepted).
 */
async function storedKeyFor(db: Db, config: PublicJudgeConfig): Promise<string | undefined> {
  const raw = config.hasStoredKey ? await getJudgeApiKey(db, config.id) : undefined;
  if (raw === undefined) return undefined;
  let record: StoredKeyRecord;
  if (!isSealed(raw)) {
    record = { apiKey: raw, baseUrl: config.baseUrl };
    await setJudgeApiKey(db, config.id, await sealKey(db, config.id, record));
  } else {
    const opened = secretBoxOf(db).open(raw, secretContext(config.id));
    if (opened === null) {
      throw new ValidationError(
        `The stored API key of judge configuration ${JSON.stringify(config.name)} cannot be decrypted (the auth secret changed?); store the key again`,
      );
    }
    record = JSON.parse(opened) as StoredKeyRecord;
  }
  if (record.baseUrl !== config.baseUrl) {
    throw new ValidationError(
      `The stored API key of judge configuration ${JSON.stringify(config.name)} was stored for another base URL and is not sent to ` +
        `${config.baseUrl ?? "the OpenAI API"}; store the key again for this URL`,
    );
  }
  return record.apiKey;
}

export function judgeEvaluatorKey(configId: number): string {
  return `judge:${configId}`;
}

/**
 * The key to call a configuration's endpoint with, once the endpoint passed the admins' host allowlist: its stored
 * key (bound to its base URL), else the variable it names, else VERDICT_JUDGE_API_KEY, else OPENAI_API_KEY, each only
 * when the variable is bound to this endpoint. Local servers (Ollama, vLLM) usually need none: when a base URL is set
 * and no key may go there, a placeholder is sent. A variable the configuration names but may not send here is an
 * error naming where that key goes; a configuration naming a variable outside the allowed key sources gets no key.
 */
export async function resolveApiKey(db: Db, config: PublicJudgeConfig, judge: JudgeSettings): Promise<string> {
  await checkEndpointAllowed(db, config.baseUrl, judge);
  const stored = await storedKeyFor(db, config);
  if (stored) return stored;
  const named = config.apiKeyEnv ? config.apiKeyEnv : null;
  const namedSourceAllowed = !named || isAllowedKeyEnv(named);
  // Looked up by the name the configuration gives (an allowed key source), not read as a Verdict setting.
  const namedKey = named && namedSourceAllowed ? nonEmpty(judge.keyVariables[named]) : undefined;
  if (named && namedKey) {
    const problem = keyBindingProblem(named, config.baseUrl, judge);
    if (problem) throw new ValidationError(`Judge configuration ${JSON.stringify(config.name)}: ${problem}`);
    return namedKey;
  }
  const shared = namedSourceAllowed ? environmentKeyFor(config.baseUrl, judge) : null;
  if (shared) return shared;
  if (config.baseUrl) return "no-key";
  if (!namedSourceAllowed) {
    throw new ValidationError(
      `Judge configuration ${JSON.stringify(config.name)} names ${config.apiKeyEnv} as its key source, which is not allowed (use ${KEY_ENV_RULE})`,
    );
  }
  throw new ValidationError(
    `Judge configuration ${JSON.stringify(config.name)} calls the OpenAI API but no API key was found: store one, or set ` +
      `${config.apiKeyEnv ? `${config.apiKeyEnv}, ` : ""}VERDICT_JUDGE_API_KEY or OPENAI_API_KEY`,
  );
}

/**
 * The key a call to `baseUrl` takes from the server's environment (VERDICT_JUDGE_API_KEY, then OPENAI_API_KEY, each
 * only where it is bound), else a placeholder for a local server that needs none; null for the OpenAI API with no key.
 */
export function environmentKeyFor(baseUrl: string | null, judge: JudgeSettings): string | null {
  for (const shared of SHARED_KEY_ENVS) {
    const key = nonEmpty(judge.keyVariables[shared]);
    if (key && !keyBindingProblem(shared, baseUrl, judge)) return key;
  }
  return baseUrl ? "no-key" : null;
}

/** Replaces every occurrence of a secret in text that may be shown or stored (error messages from endpoints). */
export function redactSecret(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 4 || secret === "no-key") return text;
  return text.split(secret).join("[redacted]");
}

/** An endpoint's error as users may see it: cut short, with the key scrubbed. */
export function endpointErrorText(text: string, secret: string | undefined): string {
  return scrubEndpointError(text, [secret]);
}

/** How to call a configuration's endpoint: its model settings, the key resolveApiKey finds, and the admins' host policy. */
export async function judgeEndpointOf(db: Db, config: PublicJudgeConfig, judge: JudgeSettings): Promise<JudgeEndpoint> {
  return {
    baseUrl: config.baseUrl,
    apiKey: await resolveApiKey(db, config, judge),
    model: config.model,
    temperature: config.temperature,
    seed: config.seed,
    maxOutputTokens: config.maxOutputTokens,
    timeoutMs: config.timeoutMs,
    maxRetries: config.maxRetries,
    hostPolicy: await judgeHostPolicyOf(db, judge),
  };
}
