/**
 * Accounts over tRPC: who am I (anyone), first-run setup and invitation acceptance (public, one-shot), user
 * management (admins).
 */
import { z } from "zod";
import { ROLES } from "../../domain/access/roles";
import {
  acceptInvitation,
  cancelInvitation,
  changeRole,
  createAccount,
  describeInvitation,
  invite,
  listAccounts,
  needsSetup,
  openInvitations,
  renewInvitation,
  setDeactivated,
  setPassword,
  setupFirstAdmin,
  apiTokensOf,
  createApiToken,
  revokeToken,
} from "../../services/accounts";
import { API_TOKEN_SCOPES, MAX_TOKEN_DAYS, MAX_TOKEN_NAME_LENGTH } from "../../domain/access/api-tokens";
import { TRPCError } from "@trpc/server";
import { adminProcedure, authedProcedure, createTRPCRouter, publicProcedure, researcherProcedure } from "../trpc";

/**
 * Tokens are managed by a person in the dashboard (or an admin at the command line), never through a token: a
 * stolen token must not be able to list its siblings, mint a longer-lived one or revoke the owner's others.
 */
const tokenManagement = authedProcedure.use(({ ctx, next }) => {
  if (ctx.tokenScope) throw new TRPCError({ code: "FORBIDDEN", message: "API tokens are managed from the account page, not with a token" });
  return next();
});

const password = z.string().min(8).max(256);
const email = z.string().min(3).max(320);
const name = z.string().min(1).max(200);

export const accountsRouter = createTRPCRouter({
  /** The signed-in user, or null; and whether the installation still needs its first account. */
  session: publicProcedure.query(async ({ ctx }) => ({ user: ctx.session, needsSetup: await needsSetup(ctx) })),

  setup: publicProcedure.input(z.object({ email, name, password })).mutation(({ ctx, input }) => setupFirstAdmin(ctx, input)),

  invitation: publicProcedure.input(z.object({ token: z.string().min(10).max(200) })).query(({ ctx, input }) => describeInvitation(ctx, input.token)),

  acceptInvitation: publicProcedure
    .input(z.object({ token: z.string().min(10).max(200), name, password }))
    .mutation(({ ctx, input }) => acceptInvitation(ctx, input.token, input)),

  me: authedProcedure.query(({ ctx }) => ctx.actor),

  /** The signed-in user's API tokens (docs/guide/api.md); the token itself is in `create`'s answer only. */
  apiTokens: createTRPCRouter({
    list: tokenManagement.query(({ ctx }) => apiTokensOf(ctx, ctx.actor, ctx.actor.userId)),
    create: tokenManagement
      .input(z.object({ name: z.string().max(MAX_TOKEN_NAME_LENGTH), scope: z.enum(API_TOKEN_SCOPES), days: z.number().int().min(1).max(MAX_TOKEN_DAYS) }))
      .mutation(({ ctx, input }) => createApiToken(ctx, ctx.actor, { ownerId: ctx.actor.userId, ...input })),
    revoke: tokenManagement.input(z.object({ id: z.number().int().positive() })).mutation(({ ctx, input }) => revokeToken(ctx, ctx.actor, input.id)),
  }),

  list: adminProcedure.query(async ({ ctx }) => {
    const [users, invitations] = await Promise.all([listAccounts(ctx), openInvitations(ctx)]);
    return { users, invitations };
  }),

  /** Annotator picker for campaigns (researchers need it too): names and roles only. */
  directory: researcherProcedure.query(async ({ ctx }) =>
    (await listAccounts(ctx)).filter((u) => !u.banned).map((u) => ({ id: u.id, name: u.name, email: u.email, role: u.role })),
  ),

  create: adminProcedure
    .input(z.object({ email, name, role: z.enum(ROLES), password: password.optional() }))
    .mutation(({ ctx, input }) => createAccount(ctx, input)),

  invite: adminProcedure
    .input(z.object({ email, role: z.enum(ROLES), name: name.optional() }))
    .mutation(({ ctx, input }) => invite(ctx, ctx.actor.userId, input)),

  cancelInvitation: adminProcedure.input(z.object({ id: z.number().int().positive() })).mutation(({ ctx, input }) => cancelInvitation(ctx, input.id)),

  /** A new link for an open invitation (the old one stops working): links are kept only as hashes, so none is shown again. */
  renewInvitation: adminProcedure
    .input(z.object({ id: z.number().int().positive() }))
    .mutation(({ ctx, input }) => renewInvitation(ctx, ctx.actor.userId, input.id)),

  setRole: adminProcedure.input(z.object({ userId: z.string(), role: z.enum(ROLES) })).mutation(({ ctx, input }) => changeRole(ctx, input.userId, input.role)),

  setPassword: adminProcedure.input(z.object({ userId: z.string(), password })).mutation(({ ctx, input }) => setPassword(ctx, input.userId, input.password)),

  setDeactivated: adminProcedure
    .input(z.object({ userId: z.string(), deactivated: z.boolean() }))
    .mutation(({ ctx, input }) => setDeactivated(ctx, ctx.actor.userId, input.userId, input.deactivated)),
});
