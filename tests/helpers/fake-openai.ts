/**
 * A small OpenAI-compatible chat-completions server for tests, on 127.0.0.1 and a random port.
 *
 * It records every request (parsed body, headers, the images' sha256 so tests can tell which screenshots were
 * sent) and answers from a script: normal replies, arbitrary (malformed) reply text, HTTP errors such as 429 or
 * 500 with optional Retry-After, unreadable bodies, delays, and requests that never get an answer (timeouts).
 * When the script runs out, a responder function (default: a SUCCESS verdict) answers.
 * GET <base>/__stats returns the request count and peak concurrency (for callers in another process).
 */
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export type FakeAction =
  | {
      /** Assistant message content. */
      reply: string;
      model?: string;
      usage?: { prompt_tokens: number; completion_tokens: number };
      finishReason?: string;
      delayMs?: number;
      /** Answer only once this settles: a test holds the reply while it changes things mid-call. */
      after?: PromiseLike<unknown>;
    }
  | { refusal: string; delayMs?: number }
  | { status: number; message?: string; headers?: Record<string, string>; delayMs?: number }
  | { rawBody: string; status?: number; contentType?: string; delayMs?: number }
  | { hang: true };

export interface ChatContentPart {
  type: string;
  text?: string;
  image_url?: { url: string; detail?: string };
}

/** The parts of a chat-completions request body the tests look at. A body that is not JSON reads as `{ messages: [] }`. */
export interface ChatBody {
  model?: string;
  temperature?: number;
  seed?: number;
  max_completion_tokens?: number;
  messages: { role: string; content: string | ChatContentPart[] | null }[];
  [key: string]: unknown;
}

export interface RecordedRequest {
  n: number;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body (`{ messages: [] }` when it was not JSON; `rawBody` has the text). */
  body: ChatBody;
  rawBody: string;
  receivedAt: number;
  /** sha256 of each image sent as a data URL, in message order. */
  imageHashes: string[];
  /** `detail` of each image_url part. */
  imageDetails: (string | undefined)[];
  /** All text parts of all messages, in order. */
  texts: string[];
  /** When the answer was written (absent for requests never answered). */
  respondedAt?: number;
}

export type Responder = (req: RecordedRequest) => FakeAction;

export interface FakeOpenAI {
  /** Base URL to configure the judge with, ending in /v1. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Queues actions answered in order before the responder takes over. */
  script(actions: FakeAction[]): void;
  setResponder(responder: Responder): void;
  /** Number of requests currently being answered (for concurrency checks) and the most seen at once. */
  inFlight(): { now: number; max: number };
  close(): Promise<void>;
}

export const DEFAULT_REPLY = "Reasoning: The final screenshot shows the requested result.\nVerdict: SUCCESS";

function analyse(body: ChatBody): Pick<RecordedRequest, "imageHashes" | "imageDetails" | "texts"> {
  const imageHashes: string[] = [];
  const imageDetails: (string | undefined)[] = [];
  const texts: string[] = [];
  for (const m of Array.isArray(body.messages) ? body.messages : []) {
    if (typeof m.content === "string") texts.push(m.content);
    else if (Array.isArray(m.content)) {
      for (const part of m.content) {
        if (part?.type === "text") texts.push(part.text ?? "");
        if (part?.type === "image_url") {
          const url: string = part.image_url?.url ?? "";
          const comma = url.indexOf(",");
          const bytes = url.startsWith("data:") && comma > 0 ? Buffer.from(url.slice(comma + 1), "base64") : Buffer.from(url);
          imageHashes.push(crypto.createHash("sha256").update(bytes).digest("hex"));
          imageDetails.push(part.image_url?.detail);
        }
      }
    }
  }
  return { imageHashes, imageDetails, texts };
}

/**
 * `models`: the names GET <base>/models lists (as vLLM and Ollama answer it); without them that route is a 404, as on
 * servers that keep no model list.
 */
export async function startFakeOpenAI(opts: { responder?: Responder; models?: string[] } = {}): Promise<FakeOpenAI> {
  const requests: RecordedRequest[] = [];
  const queue: FakeAction[] = [];
  let responder: Responder = opts.responder ?? (() => ({ reply: DEFAULT_REPLY }));
  let now = 0;
  let max = 0;
  const hanging = new Set<http.ServerResponse>();

  const server = http.createServer((req, res) => {
    if (req.method === "GET" && (req.url ?? "").endsWith("/__stats")) {
      // For callers in another process (the benchmark runs the server as a child process).
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ requests: requests.length, maxInFlight: max, inFlight: now }));
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      let body: ChatBody = { messages: [] };
      try {
        const parsed: unknown = JSON.parse(rawBody);
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) body = { messages: [], ...(parsed as Partial<ChatBody>) };
      } catch {
        // Not JSON: the test sees an empty body and the raw text.
      }
      const rec: RecordedRequest = {
        n: requests.length + 1,
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body,
        rawBody,
        receivedAt: Date.now(),
        ...analyse(body),
      };
      requests.push(rec);
      if (req.method === "GET" && (req.url ?? "").endsWith("/models") && opts.models && queue.length === 0) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: opts.models.map((id) => ({ id, object: "model", created: 0, owned_by: "test" })) }));
        return;
      }
      if (req.method === "GET" && (req.url ?? "").endsWith("/models") && queue.length > 0) {
        // A scripted answer (an error status) for the model list too.
        const action = queue.shift()!;
        const status = ("status" in action && action.status) || 500;
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "message" in action ? action.message : "scripted", type: "scripted", code: null } }));
        return;
      }
      if (req.method !== "POST" || !(req.url ?? "").endsWith("/chat/completions")) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: "not_found" } }));
        return;
      }
      const action = queue.length > 0 ? queue.shift()! : responder(rec);
      now++;
      max = Math.max(max, now);
      let finished = false;
      const done = () => {
        if (!finished) {
          finished = true;
          now--;
        }
      };
      res.on("close", done);
      if ("hang" in action) {
        hanging.add(res);
        return;
      }
      const send = () => {
        if (res.destroyed) return;
        rec.respondedAt = Date.now();
        if ("status" in action && !("rawBody" in action)) {
          res.writeHead(action.status, { "content-type": "application/json", ...(action.headers ?? {}) });
          res.end(JSON.stringify({ error: { message: action.message ?? `scripted status ${action.status}`, type: "scripted", code: null } }));
        } else if ("rawBody" in action) {
          res.writeHead(action.status ?? 200, { "content-type": action.contentType ?? "application/json" });
          res.end(action.rawBody);
        } else {
          const isRefusal = "refusal" in action;
          const images = rec.imageHashes.length;
          const payload = {
            id: `chatcmpl-fake-${rec.n}`,
            object: "chat.completion",
            created: Math.floor(Date.now() / 1000),
            model: (!isRefusal && action.model) || body.model || "fake-model",
            choices: [
              {
                index: 0,
                message: { role: "assistant", content: isRefusal ? null : action.reply, refusal: isRefusal ? action.refusal : null },
                finish_reason: (!isRefusal && action.finishReason) || "stop",
              },
            ],
            usage: (() => {
              const u = (!isRefusal && action.usage) || { prompt_tokens: 500 + 765 * images, completion_tokens: 60 };
              return { ...u, total_tokens: u.prompt_tokens + u.completion_tokens };
            })(),
          };
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify(payload));
        }
        done();
      };
      const delay = action.delayMs ?? 0;
      const sendLater = () => (delay > 0 ? setTimeout(send, delay) : send());
      if ("after" in action && action.after) void Promise.resolve(action.after).then(sendLater, sendLater);
      else sendLater();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script(actions) {
      queue.push(...actions);
    },
    setResponder(r) {
      responder = r;
    },
    inFlight: () => ({ now, max }),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
