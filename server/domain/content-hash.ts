/**
 * Screenshots and bundles are stored by the sha256 of their bytes: the same image imported twice is one file,
 * and a name that is not such a hash never reaches the file system.
 */
import crypto from "node:crypto";

const HASH_RE = /^[0-9a-f]{64}$/;

export function sha256(buf: Uint8Array): string {
  return crypto.createHash("sha256").update(buf).digest("hex");
}

export function isScreenshotHash(s: string): boolean {
  return HASH_RE.test(s);
}
