/**
 * The judge configuration form's own checks, in plain words, one message per field: what the browser says beside a
 * field before anything is sent (the server checks again, and names the field of anything it refuses). Pure.
 */

/** The form's fields as typed (text, as in the inputs). */
export interface JudgeConfigFormText {
  name: string;
  baseUrl: string;
  temperature: string;
  maxOutputTokens: string;
  maxImageSide: string;
  priceInputPerMTok: string;
  priceOutputPerMTok: string;
  /** The key-point protocol's relevance threshold; null when the protocol has none. */
  relevanceThreshold: string | null;
}

export type JudgeConfigFormField = keyof JudgeConfigFormText | "model" | "apiKey" | "apiKeyEnv" | "form";

export type JudgeConfigFormProblems = Partial<Record<JudgeConfigFormField, string>>;

function isWhole(text: string): boolean {
  return /^\s*\d+\s*$/.test(text);
}

function isNumber(text: string): boolean {
  return text.trim() !== "" && Number.isFinite(Number(text));
}

/** Why `text` is not an endpoint address the form can send, or null (empty is fine: the OpenAI API). */
export function baseUrlProblem(text: string): string | null {
  const t = text.trim();
  if (t === "") return null;
  let url: URL;
  try {
    url = new URL(t);
  } catch {
    return "This is not a web address. Write the endpoint's full address, e.g. http://gpu-box:8000/v1 or https://api.openai.com/v1.";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return `The address must start with http:// or https://, not ${url.protocol}//.`;
  return null;
}

/** Every field the form would refuse, with what to write instead. Empty: the form may be sent. */
export function judgeConfigFormProblems(v: JudgeConfigFormText): JudgeConfigFormProblems {
  const out: JudgeConfigFormProblems = {};
  if (v.name.trim() === "") out.name = "Give the configuration a name (it is how batches and figures name this judge).";
  const url = baseUrlProblem(v.baseUrl);
  if (url) out.baseUrl = url;
  const temperature = Number(v.temperature);
  if (!isNumber(v.temperature) || temperature < 0 || temperature > 2) out.temperature = "Write a number from 0 to 2 (0 gives the most repeatable verdicts).";
  if (!isWhole(v.maxOutputTokens) || Number(v.maxOutputTokens) < 16 || Number(v.maxOutputTokens) > 1_000_000)
    out.maxOutputTokens = "Write a whole number of tokens, at least 16 (the verdict and its reasoning need room).";
  if (v.maxImageSide.trim() !== "" && (!isWhole(v.maxImageSide) || Number(v.maxImageSide) < 16 || Number(v.maxImageSide) > 10_000))
    out.maxImageSide = "Leave it empty to send screenshots as recorded, or write a whole number of pixels from 16 to 10000.";
  for (const f of ["priceInputPerMTok", "priceOutputPerMTok"] as const) {
    if (v[f].trim() !== "" && !(isNumber(v[f]) && Number(v[f]) >= 0)) out[f] = "Leave it empty, or write a price in US dollars of 0 or more.";
  }
  if (v.relevanceThreshold !== null && !(isWhole(v.relevanceThreshold) && Number(v.relevanceThreshold) >= 1 && Number(v.relevanceThreshold) <= 5))
    out.relevanceThreshold = "Write a whole number from 1 to 5.";
  return out;
}
