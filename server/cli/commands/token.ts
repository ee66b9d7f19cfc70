/**
 * `npm run cli -- token …`: API tokens managed by whoever runs the server (docs/guide/api.md). People make their
 * own on their account page; this is for admins setting up a CI account or revoking a leaked token at once.
 */
import { getAppContext } from "../../context";
import { findAccountByEmail, apiTokensOf, createApiToken, revokeToken } from "../../services/accounts";
import { DEFAULT_TOKEN_DAYS } from "../../domain/access/api-tokens";
import { AppError } from "../../errors";
import { flagBool, flagString, parseArgs, requiredFlag, UsageError } from "../args";
import { answerOnStdout } from "../answer";
import { formatTable } from "../table";
import type { CliCommand } from "../types";

const USAGE = [
  "npm run cli -- token create --email <owner> --name <what it is for> [--scope read|read-write] [--days N] [--json]",
  "       npm run cli -- token list --email <owner> [--json]",
  "       npm run cli -- token revoke --id <token id> [--json]",
  "",
  `A token acts as its owner with the owner's role. --scope defaults to read, --days to ${DEFAULT_TOKEN_DAYS}. The token is printed once.`,
].join("\n");

const day = (d: Date | null) => (d ? d.toISOString().slice(0, 16).replace("T", " ") : "never");

export const tokenCommand: CliCommand = {
  name: "token",
  summary: "make, list and revoke API tokens for the HTTP API",
  usage: USAGE,
  async run(argv, io) {
    const [sub, ...rest] = argv;
    const args = parseArgs(rest, { valueFlags: ["email", "name", "scope", "days", "id"], boolFlags: ["json"], noPositionals: true });
    const json = flagBool(args, "json");
    const app = getAppContext(io.env);
    const owner = async () => {
      const email = requiredFlag(args, "email");
      const u = await findAccountByEmail(app, email);
      if (!u) throw new AppError("NOT_FOUND", `No account with email ${email}`);
      return u;
    };
    switch (sub) {
      case "create": {
        const user = await owner();
        const daysText = flagString(args, "days");
        const days = daysText === undefined ? undefined : Number(daysText);
        const made = await createApiToken(app, "command line", {
          ownerId: user.id,
          name: requiredFlag(args, "name"),
          scope: flagString(args, "scope") ?? "read",
          days,
        });
        answerOnStdout(
          io,
          json,
          { token: made.token, ...made.listing },
          `Token ${made.listing.id} "${made.listing.name}" for ${user.email} (${made.listing.scope}, expires ${day(made.listing.expiresAt)} UTC):\n${made.token}\nShown once: store it now.`,
        );
        return 0;
      }
      case "list": {
        const user = await owner();
        const tokens = await apiTokensOf(app, "command line", user.id);
        answerOnStdout(
          io,
          json,
          { tokens },
          tokens.length
            ? formatTable(
                [{ header: "id" }, { header: "name" }, { header: "scope" }, { header: "expires" }, { header: "last used" }, { header: "state" }],
                tokens.map((t) => [
                  String(t.id),
                  t.name,
                  t.scope,
                  day(t.expiresAt),
                  day(t.lastUsedAt),
                  t.revokedAt ? "revoked" : t.expiresAt < new Date() ? "expired" : "active",
                ]),
                { indent: "" },
              ).join("\n")
            : `${user.email} has no API tokens`,
        );
        return 0;
      }
      case "revoke": {
        const id = Number(requiredFlag(args, "id"));
        if (!Number.isInteger(id) || id <= 0) throw new UsageError("--id: a token id (see token list)");
        const t = await revokeToken(app, "command line", id);
        answerOnStdout(io, json, { token: t }, `Token ${t.id} "${t.name}" is revoked`);
        return 0;
      }
      default:
        throw new UsageError(sub ? `unknown subcommand ${JSON.stringify(sub)}` : "a subcommand is needed: create, list or revoke");
    }
  },
};
