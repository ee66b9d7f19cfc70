/**
 * Accounts: creating users (first-run setup, admins, invitations, the CLI), roles, passwords and deactivation.
 *
 * Every account is made by `createAccount`, which asks better-auth (admin plugin, trusted server call) to hash
 * the password and write the user and credential rows. The first account of an installation is made admin by the
 * hook in server/auth/auth.ts, whatever role was asked for.
 */
import crypto from "node:crypto";
import { withTransaction } from "../../../db/database";
import {
  countAdmins,
  countUsers,
  findOpenInvitation,
  getUser,
  getUserByEmail,
  insertInvitation,
  deleteUserSessions,
  keepIfFirstUser,
  listOpenInvitations,
  listUsers,
  markInvitationAccepted,
  revokeInvitation,
  setUserRole,
  type UserSummary,
} from "../../../db/repositories/accounts/users";
import { ROLES, type Role } from "../../domain/access/roles";
import { displayNameProblem, forgetSessions, getAuth, MIN_PASSWORD_LENGTH } from "../../auth/auth";
import type { AppContext } from "../../context";
import { AppError, ConflictError, NotFoundError, ValidationError } from "../../errors";

type App = Pick<AppContext, "db" | "config">;

export const INVITATION_DAYS = 7;

export interface NewAccount {
  email: string;
  name: string;
  role: Role;
  /** Omitted: a random password is generated and returned once. */
  password?: string;
}

export interface CreatedAccount {
  user: UserSummary;
  /** Only when the password was generated here. */
  generatedPassword?: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function parseRole(value: string, field = "role"): Role {
  if (!(ROLES as readonly string[]).includes(value)) throw new ValidationError(`${field}: must be one of ${ROLES.join(", ")}, got ${JSON.stringify(value)}`);
  return value as Role;
}

function checkAccountInput(input: { email: string; name: string; password?: string }): void {
  if (!EMAIL.test(input.email.trim())) throw new ValidationError(`email: ${JSON.stringify(input.email)} is not an email address`);
  const nameProblem = displayNameProblem(input.name);
  if (nameProblem) throw new ValidationError(`name: ${nameProblem}`);
  if (input.password !== undefined && input.password.length < MIN_PASSWORD_LENGTH) {
    throw new ValidationError(`password: at least ${MIN_PASSWORD_LENGTH} characters`);
  }
}

/** Readable random password for accounts created without one (shown to whoever created the account, once). */
export function generatePassword(): string {
  return crypto.randomBytes(12).toString("base64url");
}

export async function createAccount(app: App, input: NewAccount): Promise<CreatedAccount> {
  checkAccountInput(input);
  const role = parseRole(input.role);
  const email = input.email.trim().toLowerCase();
  if (await getUserByEmail(app.db, email)) throw new ConflictError(`An account with email ${email} already exists`);
  const password = input.password ?? generatePassword();
  try {
    const res = await (await getAuth(app)).api.createUser({ body: { email, password, name: input.name.trim(), role } });
    const user = await getUser(app.db, res.user.id);
    if (!user) throw new Error(`better-auth reported user ${res.user.id} created, but it is not in the database`);
    return input.password === undefined ? { user, generatedPassword: password } : { user };
  } catch (e) {
    if (e instanceof AppError) throw e;
    const message = (e as { body?: { message?: string } }).body?.message ?? (e as Error).message;
    if (/already exists/i.test(message)) throw new ConflictError(`An account with email ${email} already exists`);
    if (/^name: .* already the name of another account/.test(message)) throw new ConflictError(message);
    throw new ValidationError(`Cannot create the account ${email}: ${message}`);
  }
}

/** True until the first account exists: the web app then shows the first-run setup instead of sign-in. */
export async function needsSetup(app: App): Promise<boolean> {
  return (await countUsers(app.db)) === 0;
}

/**
 * First-run setup: creates the admin account, and refuses once any account exists. Two setup requests can both
 * see an empty installation (creating an account takes a password hash's time); exactly one of the accounts is
 * kept (see keepIfFirstUser), every other request removes its own and is refused.
 */
export async function setupFirstAdmin(app: App, input: { email: string; name: string; password: string }): Promise<UserSummary> {
  const alreadyDone = () => new AppError("FORBIDDEN", "Setup is already done: sign in, or ask an admin for an account");
  if (!(await needsSetup(app))) throw alreadyDone();
  const { user } = await createAccount(app, { ...input, role: "admin" });
  if (!(await keepIfFirstUser(app.db, user.id))) throw alreadyDone();
  return user;
}

export async function listAccounts(app: App): Promise<UserSummary[]> {
  return listUsers(app.db);
}

export async function requireUser(app: App, id: string): Promise<UserSummary> {
  const u = await getUser(app.db, id);
  if (!u) throw new NotFoundError("user", id);
  return u;
}

/** Changes a role; the installation always keeps at least one admin. */
export async function changeRole(app: App, userId: string, role: Role): Promise<UserSummary> {
  const user = await requireUser(app, userId);
  parseRole(role);
  if (user.role === "admin" && role !== "admin" && (await countAdmins(app.db)) <= 1) {
    throw new ConflictError(`${user.email} is the only admin; make someone else admin first`);
  }
  await setUserRole(app.db, userId, role);
  // Whoever holds a session of this user signs in again and gets the new role's view from scratch.
  await endSessions(app, userId);
  return requireUser(app, userId);
}

/** Signs a user out everywhere, at once (sessions are checked against the database on every request). */
async function endSessions(app: App, userId: string): Promise<void> {
  await deleteUserSessions(app.db, userId);
  await forgetSessions(app);
}

export async function setPassword(app: App, userId: string, password: string): Promise<void> {
  await requireUser(app, userId);
  if (password.length < MIN_PASSWORD_LENGTH) throw new ValidationError(`password: at least ${MIN_PASSWORD_LENGTH} characters`);
  const ctx = await (await getAuth(app)).$context;
  const hash = await ctx.password.hash(password);
  if (await ctx.internalAdapter.findCredentialAccount(userId)) await ctx.internalAdapter.updatePassword(userId, hash);
  else await ctx.internalAdapter.linkAccount({ providerId: "credential", accountId: userId, userId, password: hash });
  // A reset password is often a suspected compromise: whoever signed in with the old one is signed out now.
  await endSessions(app, userId);
}

/** Deactivated users cannot sign in and their sessions end; their labels stay. */
export async function setDeactivated(app: App, actorId: string, userId: string, deactivated: boolean): Promise<UserSummary> {
  const user = await requireUser(app, userId);
  if (userId === actorId && deactivated) throw new ConflictError("You cannot deactivate your own account");
  if (deactivated && user.role === "admin" && (await countAdmins(app.db)) <= 1) throw new ConflictError(`${user.email} is the only admin`);
  const ctx = await (await getAuth(app)).$context;
  await ctx.internalAdapter.updateUser(userId, { banned: deactivated, banReason: deactivated ? "deactivated by an admin" : null });
  if (deactivated) await endSessions(app, userId);
  else await forgetSessions(app);
  return requireUser(app, userId);
}

// ---- invitations

function hashToken(token: string): string {
  return crypto.createHash("sha256").update(token).digest("hex");
}

export interface Invitation {
  id: number;
  email: string;
  role: Role;
  expiresAt: Date;
  /** The secret part of the link; returned only here, only the hash is stored. */
  token: string;
  /** Path of the acceptance page, to be prefixed with the app's URL. */
  path: string;
}

export async function invite(app: App, actorId: string, input: { email: string; role: Role; name?: string | null }, now = new Date()): Promise<Invitation> {
  const email = input.email.trim().toLowerCase();
  if (!EMAIL.test(email)) throw new ValidationError(`email: ${JSON.stringify(input.email)} is not an email address`);
  const role = parseRole(input.role);
  if (await getUserByEmail(app.db, email)) throw new ConflictError(`An account with email ${email} already exists`);
  const token = crypto.randomBytes(24).toString("base64url");
  const expiresAt = new Date(now.getTime() + INVITATION_DAYS * 86_400_000);
  const id = await insertInvitation(app.db, { tokenHash: hashToken(token), email, name: input.name?.trim() || null, role, invitedBy: actorId, expiresAt });
  return { id, email, role, expiresAt, token, path: `/invite/${token}` };
}

export async function describeInvitation(app: App, token: string, now = new Date()) {
  const inv = await findOpenInvitation(app.db, hashToken(token), now);
  if (!inv) throw new AppError("NOT_FOUND", "This invitation link is not valid: it was used, revoked or has expired");
  return { email: inv.email, name: inv.name, role: inv.role, expiresAt: inv.expiresAt };
}

export async function acceptInvitation(app: App, token: string, input: { name: string; password: string }, now = new Date()): Promise<UserSummary> {
  const inv = await findOpenInvitation(app.db, hashToken(token), now);
  if (!inv) throw new AppError("NOT_FOUND", "This invitation link is not valid: it was used, revoked or has expired");
  const { user } = await createAccount(app, { email: inv.email, name: input.name, role: inv.role, password: input.password });
  // The unique email already stops a second acceptance from creating a second account; this records who used it.
  await markInvitationAccepted(app.db, inv.id, user.id, now);
  return user;
}

export async function openInvitations(app: App, now = new Date()) {
  return listOpenInvitations(app.db, now);
}

export async function cancelInvitation(app: App, id: number, now = new Date()): Promise<void> {
  if (!(await revokeInvitation(app.db, id, now))) throw new NotFoundError("open invitation", id);
}

/**
 * A new link for an open invitation (same email, name and role, a fresh expiry), the old link revoked: only a link's
 * hash is kept, so a link cannot be shown again once the page that made it is gone, only replaced.
 */
export async function renewInvitation(app: App, actorId: string, id: number, now = new Date()): Promise<Invitation> {
  return withTransaction(app.db, async () => {
    const open = (await listOpenInvitations(app.db, now)).find((i) => i.id === id);
    if (!open || !(await revokeInvitation(app.db, id, now))) throw new NotFoundError("open invitation", id);
    const token = crypto.randomBytes(24).toString("base64url");
    const expiresAt = new Date(now.getTime() + INVITATION_DAYS * 86_400_000);
    const role = parseRole(open.role);
    const renewed = await insertInvitation(app.db, { tokenHash: hashToken(token), email: open.email, name: open.name, role, invitedBy: actorId, expiresAt });
    return { id: renewed, email: open.email, role, expiresAt, token, path: `/invite/${token}` };
  });
}

/** The account with this email, or null. */
export async function findAccountByEmail(app: App, email: string): Promise<UserSummary | null> {
  return (await getUserByEmail(app.db, email)) ?? null;
}

/** The first admin account, or null before there is one (the command line acts as it by default). */
export async function firstAdmin(app: App): Promise<UserSummary | null> {
  return (await listUsers(app.db)).find((u) => u.role === "admin") ?? null;
}
