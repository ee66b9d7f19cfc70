/**
 * `npm run cli -- user …`: accounts from the command line (first admin on a server without a browser, scripted
 * setups, password resets).
 */
import { getAppContext } from "../../context";
import { changeRole, createAccount, findAccountByEmail, generatePassword, listAccounts, parseRole, setPassword } from "../../services/accounts";
import { AppError } from "../../errors";
import { flagBool, flagString, parseArgs, requiredFlag, UsageError } from "../args";
import { answerOnStdout } from "../answer";
import { formatTable } from "../table";
import type { CliCommand } from "../types";

const USAGE = [
  "npm run cli -- user add --email <email> --name <name> --role admin|researcher|annotator [--password <pw>] [--json]",
  "       npm run cli -- user list [--json]",
  "       npm run cli -- user set-role --email <email> --role <role> [--json]",
  "       npm run cli -- user set-password --email <email> [--password <pw>] [--json]",
  "",
  "The first account created becomes admin whatever --role says. Without --password a random one is generated and printed once.",
].join("\n");

export const userCommand: CliCommand = {
  name: "user",
  summary: "add and list accounts, change roles and passwords",
  usage: USAGE,
  async run(argv, io) {
    const [sub, ...rest] = argv;
    const args = parseArgs(rest, { valueFlags: ["email", "name", "role", "password"], boolFlags: ["json"], noPositionals: true });
    const json = flagBool(args, "json");
    const app = getAppContext(io.env);

    switch (sub) {
      case "add": {
        const email = requiredFlag(args, "email");
        const name = requiredFlag(args, "name");
        const roleText = requiredFlag(args, "role");
        let role;
        try {
          role = parseRole(roleText, "--role");
        } catch (e) {
          throw new UsageError((e as Error).message);
        }
        const { user, generatedPassword } = await createAccount(app, { email, name, role, password: flagString(args, "password") });
        if (user.role !== role) io.stderr(`Note: ${user.email} is the first account, so it was made admin.\n`);
        answerOnStdout(
          io,
          json,
          { user, ...(generatedPassword ? { password: generatedPassword } : {}) },
          `Created ${user.role} ${user.name} <${user.email}> (id ${user.id})${generatedPassword ? `\nPassword: ${generatedPassword}  (shown once; change it after signing in)` : ""}`,
        );
        return 0;
      }
      case "list": {
        const users = await listAccounts(app);
        answerOnStdout(
          io,
          json,
          { users },
          users.length
            ? formatTable(
                [{ header: "role" }, { header: "email" }, { header: "name" }],
                users.map((u) => [u.role, u.email, `${u.name}${u.banned ? "  (deactivated)" : ""}`]),
                { indent: "", header: false },
              ).join("\n")
            : "No accounts yet. Create the first (it becomes admin): npm run cli -- user add --email … --name … --role admin",
        );
        return 0;
      }
      case "set-role": {
        const email = requiredFlag(args, "email");
        const role = parseRole(requiredFlag(args, "role"), "--role");
        const u = await findAccountByEmail(app, email);
        if (!u) throw new AppError("NOT_FOUND", `No account with email ${email}`);
        const updated = await changeRole(app, u.id, role);
        answerOnStdout(io, json, { user: updated }, `${updated.email} is now ${updated.role}`);
        return 0;
      }
      case "set-password": {
        const email = requiredFlag(args, "email");
        const u = await findAccountByEmail(app, email);
        if (!u) throw new AppError("NOT_FOUND", `No account with email ${email}`);
        const given = flagString(args, "password");
        const password = given ?? generatePassword();
        await setPassword(app, u.id, password);
        answerOnStdout(
          io,
          json,
          { user: u, ...(given ? {} : { password }) },
          `Password of ${u.email} changed${given ? "" : `\nPassword: ${password}  (shown once)`}`,
        );
        return 0;
      }
      case undefined:
        throw new UsageError("which user command? add, list, set-role or set-password");
      default:
        throw new UsageError(`unknown user command ${JSON.stringify(sub)}; known: add, list, set-role, set-password`);
    }
  },
};
