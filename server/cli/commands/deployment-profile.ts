/**
 * `deployment-profile`: an admin's deployment profiles from the command line (the dashboard's Deployments page does
 * the same). A profile file is JSON: `{ "name", "description"?, "sites": [{ "placeholder": "__REDDIT__", "url",
 * "login"?: { "kind": "recipe", "url", "usernameSelector", "passwordSelector", "submitSelector"?, "username",
 * "password" } | { "kind": "storageState", "stateFile": "reddit_state.json" }, "reset"?: { "method"?, "url" } }] }`.
 * A `stateFile` is read relative to the profile file. Passwords and storage states are stored sealed and never
 * printed.
 */
import fs from "node:fs";
import path from "node:path";
import { getAppContext } from "../../context";
import type { DeploymentProfileInput } from "../../domain/live/deployment";
import {
  createDeploymentProfile,
  deleteDeploymentProfile,
  findDeploymentProfile,
  listDeploymentProfiles,
  updateDeploymentProfile,
  type DeploymentProfileView,
} from "../../services/live";
import { UsageError, flagBool, flagString, parseArgs, userPath } from "../args";
import type { CliCommand } from "../types";

const USAGE = `npm run cli -- deployment-profile <list|show|create|update|delete> [options] [--json]
  list                              the profiles, their sites and allowed destinations
  show <name|id>
  create --file profile.json        a new profile (the file is described in docs/guide/live-runs.md)
  update <name|id> --file profile.json   replaces the sites; passwords and storage states left out are kept
  delete <name|id>`;

/** Reads a profile file; `stateFile` entries become the storage state's text. Errors name the file and field. */
export function readProfileFile(file: string, resolved = file): DeploymentProfileInput {
  if (!fs.existsSync(resolved)) throw new UsageError(`--file ${file}: no such file`);
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(resolved, "utf8"));
  } catch (e) {
    throw new UsageError(`${file}: not JSON (${(e as Error).message})`);
  }
  const sites = (data as { sites?: unknown })?.sites;
  if (Array.isArray(sites)) {
    sites.forEach((site: { login?: { kind?: string; stateFile?: unknown; state?: unknown } }, i) => {
      const login = site?.login;
      if (login?.kind === "storageState" && typeof login.stateFile === "string") {
        const p = path.resolve(path.dirname(resolved), login.stateFile);
        if (!fs.existsSync(p)) throw new UsageError(`${file}: sites[${i}].login.stateFile ${login.stateFile}: no such file`);
        login.state = fs.readFileSync(p, "utf8");
        delete login.stateFile;
      }
    });
  }
  return data as DeploymentProfileInput;
}

function describe(p: DeploymentProfileView): string {
  const lines = [`${p.id}  ${p.name}${p.description ? ` · ${p.description}` : ""}`, `    allowed destinations: ${p.destinations.join(", ")}`];
  for (const s of p.sites) {
    const login =
      s.login?.kind === "recipe"
        ? `login recipe at ${s.login.url} as ${s.login.username}`
        : s.login
          ? `storage state (${s.login.cookies} cookies)`
          : "no login";
    lines.push(`    ${s.placeholder.padEnd(20)} ${s.url}  · ${login}${s.reset ? ` · reset ${s.reset.method} ${s.reset.url}` : ""}`);
  }
  return lines.join("\n");
}

export const deploymentProfileCommand: CliCommand = {
  name: "deployment-profile",
  summary: "admin: the deployments of benchmark sites (VisualWebArena, WebArena) live runs can use",
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, { valueFlags: ["file"], boolFlags: ["json"] });
    const [action, target, ...rest] = args.positionals;
    if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(" ")}`);
    const json = flagBool(args, "json");
    const ctx = getAppContext(io.env);
    const out = (value: unknown, text: string) => (json ? io.stdout(JSON.stringify(value) + "\n") : io.stderr(text + "\n"));
    const needTarget = async () => {
      if (!target) throw new UsageError(`${action} needs a profile name or id`);
      return await findDeploymentProfile(ctx.db, target);
    };
    const needFile = () => {
      const f = flagString(args, "file");
      if (!f) throw new UsageError(`${action} needs --file profile.json`);
      return readProfileFile(f, userPath(io, f));
    };
    switch (action) {
      case "list": {
        const all = await listDeploymentProfiles(ctx.db);
        out({ profiles: all }, all.length ? all.map(describe).join("\n") : "No deployment profiles yet (create one with --file).");
        return 0;
      }
      case "show": {
        const p = await needTarget();
        out(p, describe(p));
        return 0;
      }
      case "create": {
        const p = await createDeploymentProfile(ctx.db, needFile());
        out(p, `Created:\n${describe(p)}`);
        return 0;
      }
      case "update": {
        const p = await updateDeploymentProfile(ctx.db, (await needTarget()).id, needFile());
        out(p, `Updated:\n${describe(p)}`);
        return 0;
      }
      case "delete": {
        const p = await needTarget();
        await deleteDeploymentProfile(ctx.db, p.id);
        out({ deleted: p.id }, `Deleted deployment profile ${p.name}.`);
        return 0;
      }
      default:
        throw new UsageError(action ? `unknown action ${JSON.stringify(action)}` : "an action is required (list, show, create, update, delete)");
    }
  },
};
