/**
 * The key better-auth signs session cookies with. VERDICT_AUTH_SECRET wins; otherwise a random key is generated
 * once and kept in the data folder (readable by the owner only), so the quick start needs no setup and sessions
 * survive restarts. The key is written to a temporary file, flushed to disk and then linked into place, so
 * the file is either absent or complete: a full disk or a crash mid-write never leaves a short file that would
 * stop every later start. Several processes starting at once agree on one key: linking fails for all but the
 * first, and the others read the winner's key.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

export const SECRET_FILE_NAME = "auth-secret";
const MIN_SECRET_LENGTH = 32;

export function resolveAuthSecret(config: { authSecret?: string; dataDir: string }): string {
  if (config.authSecret) {
    if (config.authSecret.length < MIN_SECRET_LENGTH) {
      throw new Error(`VERDICT_AUTH_SECRET is ${config.authSecret.length} characters; use at least ${MIN_SECRET_LENGTH} (e.g. \`openssl rand -base64 32\`)`);
    }
    return config.authSecret;
  }
  const file = path.join(config.dataDir, SECRET_FILE_NAME);
  const existing = readSecret(file);
  if (existing) return existing;
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const secret = crypto.randomBytes(32).toString("base64url");
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`;
  try {
    const fd = fs.openSync(tmp, "wx", 0o600);
    try {
      fs.writeFileSync(fd, secret + "\n");
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    // link() fails if the name exists, which is the exclusive create of the race; rename would replace a winner.
    fs.linkSync(tmp, file);
    return secret;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "EEXIST") throw new Error(`Cannot write the generated auth secret to ${file}: ${(e as Error).message}`);
    const winner = readSecret(file);
    if (!winner) throw new Error(`${file} exists but holds no usable secret; delete it or set VERDICT_AUTH_SECRET`);
    return winner;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

function readSecret(file: string): string | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new Error(`Cannot read the auth secret ${file}: ${(e as Error).message}`);
  }
  const secret = text.trim();
  if (secret.length < MIN_SECRET_LENGTH) {
    // A half-written file from a process killed mid-write: too short to trust.
    return null;
  }
  return secret;
}
