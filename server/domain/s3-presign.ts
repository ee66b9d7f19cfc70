/**
 * Presigned GET URLs for S3-compatible stores (AWS Signature Version 4, query-string form), so a web server can
 * send the browser straight to the bucket for a screenshot it has just allowed the user to see. The URL is signed
 * for the host header only and expires after a few minutes; whoever holds it may fetch that one object until then.
 */
import crypto from "node:crypto";

export interface PresignInput {
  /** Full URL of the object, e.g. http://127.0.0.1:9000/bucket/sha256/ab/ab12… or https://bucket.s3.amazonaws.com/key */
  objectUrl: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiresSeconds: number;
  now: Date;
}

/** RFC 3986 encoding as SigV4 wants it: everything but unreserved characters, "/" kept only in paths. */
function encode(text: string, keepSlash = false): string {
  const out = encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return keepSlash ? out.replace(/%2F/g, "/") : out;
}

function hmac(key: crypto.BinaryLike, data: string): Buffer {
  return crypto.createHmac("sha256", key).update(data).digest();
}

function sha256Hex(data: string): string {
  return crypto.createHash("sha256").update(data).digest("hex");
}

export function presignGetUrl(input: PresignInput): string {
  if (!Number.isInteger(input.expiresSeconds) || input.expiresSeconds < 1 || input.expiresSeconds > 604_800) {
    throw new Error(`presigned URLs live 1 s to 7 days, not ${input.expiresSeconds} s`);
  }
  const url = new URL(input.objectUrl);
  const amzDate = input.now.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
  const day = amzDate.slice(0, 8);
  const scope = `${day}/${input.region}/s3/aws4_request`;
  const params: [string, string][] = [
    ["X-Amz-Algorithm", "AWS4-HMAC-SHA256"],
    ["X-Amz-Credential", `${input.accessKeyId}/${scope}`],
    ["X-Amz-Date", amzDate],
    ["X-Amz-Expires", String(input.expiresSeconds)],
    ["X-Amz-SignedHeaders", "host"],
  ];
  if (input.sessionToken) params.push(["X-Amz-Security-Token", input.sessionToken]);
  const query = params
    .map(([k, v]) => [encode(k), encode(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  // The path as the server will see it: decoded once, then encoded the SigV4 way (S3 does not normalise it).
  const canonicalPath = url.pathname
    .split("/")
    .map((segment) => encode(decodeURIComponent(segment)))
    .join("/");
  const canonicalRequest = ["GET", canonicalPath, query, `host:${url.host}\n`, "host", "UNSIGNED-PAYLOAD"].join("\n");
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(canonicalRequest)].join("\n");
  const signingKey = ["s3", "aws4_request"].reduce<Buffer>((key, part) => hmac(key, part), hmac(hmac(`AWS4${input.secretAccessKey}`, day), input.region));
  const signature = crypto.createHmac("sha256", signingKey).update(stringToSign).digest("hex");
  return `${url.origin}${canonicalPath}?${query}&X-Amz-Signature=${signature}`;
}
