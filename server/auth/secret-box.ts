/**
 * Encryption at rest for secrets Verdict must keep (judge API keys), so a copy of the database file or a backup
 * does not hand out the keys. AES-256-GCM with a key derived by HKDF-SHA256 from the auth secret
 * (server/auth/secret.ts), which lives outside the database: in VERDICT_AUTH_SECRET or <data>/auth-secret.
 *
 * Each sealed value is bound to a context string (e.g. the row it belongs to) through GCM's associated data:
 * a value copied to another row does not open there.
 *
 * Services get the box of a database with `secretBoxOf(db)`; whoever opens the database for an installation
 * (server/context.ts) says where its auth secret comes from with `bindSecretBox`.
 */
import crypto from "node:crypto";
import { resolveAuthSecret } from "./secret";

const SEALED_PREFIX = "v1:";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretBox {
  seal(plain: string, context: string): string;
  /** The plain text, or null when the value was sealed with another auth secret, for another context, or altered. */
  open(sealed: string, context: string): string | null;
}

/** True for a value written by `seal` (older plain-text values are not). */
export function isSealed(value: string): boolean {
  return value.startsWith(SEALED_PREFIX);
}

export function secretBoxFromAuthSecret(authSecret: string): SecretBox {
  const key = Buffer.from(crypto.hkdfSync("sha256", authSecret, "verdict-secret-box", "verdict stored secrets v1", 32));
  return {
    seal(plain, context) {
      const iv = crypto.randomBytes(IV_BYTES);
      const cipher = crypto.createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(Buffer.from(context, "utf8"));
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return SEALED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
    },
    open(sealed, context) {
      if (!isSealed(sealed)) return null;
      const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), "base64url");
      if (raw.length < IV_BYTES + TAG_BYTES) return null;
      try {
        const decipher = crypto.createDecipheriv("aes-256-gcm", key, raw.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(context, "utf8"));
        decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
      } catch {
        return null;
      }
    },
  };
}

const boxes = new WeakMap<object, () => SecretBox>();

/** Declares where the auth secret of the installation that owns `db` comes from; it is read on first use. */
export function bindSecretBox(db: object, config: { authSecret?: string; dataDir: string }): void {
  if (boxes.has(db)) return;
  let box: SecretBox | undefined;
  boxes.set(db, () => (box ??= secretBoxFromAuthSecret(resolveAuthSecret(config))));
}

export function secretBoxOf(db: object): SecretBox {
  const box = boxes.get(db);
  if (!box) throw new Error("no auth secret is known for this database (open it through server/context.ts to store or read judge keys)");
  return box();
}
