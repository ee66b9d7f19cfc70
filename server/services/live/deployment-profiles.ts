/**
 * Deployment profiles as admins manage them (dashboard page and CLI): create, update, list, delete. Account passwords
 * and uploaded storage-state files are sealed with the installation's secret box before they are stored and are never
 * shown again; a profile's views say only whether one is set. Runs read the secrets back in their worker.
 */
import type { Db } from "../../../db/database";
import {
  deleteDeploymentProfile as deleteRow,
  findDeploymentProfileRowByName,
  getDeploymentProfileRow,
  insertDeploymentProfile,
  listDeploymentProfileRows,
  updateDeploymentProfile as updateRow,
  type DeploymentProfileRow,
} from "../../../db/repositories/live/evidence";
import type { StoredDeploymentSite } from "../../../db/schema/index";
import { secretBoxOf, type SecretBox } from "../../auth/secret-box";
import {
  deploymentPlan,
  deploymentProfileInputSchema,
  deploymentProfileProblems,
  parseStorageState,
  type DeploymentPlan,
  type DeploymentProfileInput,
  type StorageState,
} from "../../domain/live/deployment";
import { ConflictError, NotFoundError, ValidationError } from "../../errors";

function secretContext(profileName: string, placeholder: string, what: "password" | "storage-state"): string {
  return `deployment-profile:${profileName}:${placeholder}:${what}`;
}

function parseInput(input: DeploymentProfileInput) {
  const parsed = deploymentProfileInputSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ValidationError(`deployment profile ${issue.path.join(".") || "(input)"}: ${issue.message}`);
  }
  const problems = deploymentProfileProblems(parsed.data);
  if (problems.length) throw new ValidationError(`deployment profile ${problems.join("; ")}`);
  return parsed.data;
}

/** The sites as stored: new secrets sealed, omitted ones kept from `previous` (same site, same kind of login). */
function storedSites(box: SecretBox, name: string, sites: ReturnType<typeof parseInput>["sites"], previous: StoredDeploymentSite[]): StoredDeploymentSite[] {
  return sites.map((s, i) => {
    const before = previous.find((p) => p.placeholder === s.placeholder)?.login ?? null;
    // A secret given now is sealed for this profile and site; one left out keeps what was stored, if anything.
    const sealOrKeep = (given: string | undefined, what: "password" | "storage-state", kept: string | null) =>
      given !== undefined ? box.seal(given, secretContext(name, s.placeholder, what)) : kept;
    let login: StoredDeploymentSite["login"] = null;
    if (s.login?.kind === "recipe") {
      const passwordSealed = sealOrKeep(s.login.password, "password", before?.kind === "recipe" ? before.passwordSealed : null);
      if (!passwordSealed)
        throw new ValidationError(`deployment profile sites[${i}] (${s.placeholder}).login.password: a login recipe needs the account's password`);
      const { password: _p, ...rest } = s.login;
      login = { ...rest, submitSelector: s.login.submitSelector ?? null, passwordSealed };
    } else if (s.login?.kind === "storageState") {
      const stateSealed = sealOrKeep(s.login.state, "storage-state", before?.kind === "storageState" ? before.stateSealed : null);
      if (!stateSealed) throw new ValidationError(`deployment profile sites[${i}] (${s.placeholder}).login.state: upload the Playwright storage-state file`);
      login = { kind: "storageState", stateSealed };
    }
    return { placeholder: s.placeholder, url: s.url, login, reset: s.reset ?? null };
  });
}

export interface DeploymentProfileView {
  id: number;
  name: string;
  description: string | null;
  updatedAt: Date;
  sites: {
    placeholder: string;
    url: string;
    login:
      | { kind: "recipe"; url: string; usernameSelector: string; passwordSelector: string; submitSelector: string | null; username: string; hasPassword: true }
      | { kind: "storageState"; hasState: true; cookies: number }
      | null;
    reset: { method: "POST" | "GET"; url: string } | null;
  }[];
  /** host:port destinations runs using the profile may reach. */
  destinations: string[];
}

function view(box: SecretBox, row: DeploymentProfileRow): DeploymentProfileView {
  const plan = planOfRow(row);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    updatedAt: row.updatedAt,
    destinations: plan.destinations,
    sites: row.sites.map((s) => {
      let login: DeploymentProfileView["sites"][number]["login"] = null;
      if (s.login?.kind === "recipe") {
        const { passwordSealed: _sealed, ...rest } = s.login;
        login = { ...rest, hasPassword: true };
      } else if (s.login?.kind === "storageState") {
        const opened = box.open(s.login.stateSealed, secretContext(row.name, s.placeholder, "storage-state"));
        login = { kind: "storageState", hasState: true, cookies: opened ? parseStorageState(opened).cookies.length : 0 };
      }
      return { placeholder: s.placeholder, url: s.url, login, reset: s.reset };
    }),
  };
}

function planOfRow(row: DeploymentProfileRow): DeploymentPlan {
  return deploymentPlan({
    id: row.id,
    name: row.name,
    sites: row.sites.map((s) => ({
      placeholder: s.placeholder as never,
      url: s.url,
      reset: s.reset,
      login: s.login?.kind === "recipe" ? { ...s.login, kind: "recipe" as const } : s.login ? { kind: "storageState" as const } : null,
    })),
  });
}

export async function listDeploymentProfiles(db: Db): Promise<DeploymentProfileView[]> {
  const box = secretBoxOf(db);
  return (await listDeploymentProfileRows(db)).map((r) => view(box, r));
}

export async function getDeploymentProfile(db: Db, id: number): Promise<DeploymentProfileView> {
  const row = await getDeploymentProfileRow(db, id);
  if (!row) throw new NotFoundError("deployment profile", id);
  return view(secretBoxOf(db), row);
}

export async function findDeploymentProfile(db: Db, idOrName: string): Promise<DeploymentProfileView> {
  const row = /^\d+$/.test(idOrName) ? await getDeploymentProfileRow(db, Number(idOrName)) : await findDeploymentProfileRowByName(db, idOrName);
  if (!row) throw new NotFoundError("deployment profile", idOrName);
  return view(secretBoxOf(db), row);
}

export async function createDeploymentProfile(db: Db, input: DeploymentProfileInput): Promise<DeploymentProfileView> {
  const p = parseInput(input);
  if (await findDeploymentProfileRowByName(db, p.name)) throw new ConflictError(`a deployment profile named "${p.name}" exists already`);
  const id = await insertDeploymentProfile(db, { name: p.name, description: p.description ?? null, sites: storedSites(secretBoxOf(db), p.name, p.sites, []) });
  return getDeploymentProfile(db, id);
}

/** Replaces a profile's sites; passwords and storage states left out are kept. The name does not change. */
export async function updateDeploymentProfile(db: Db, id: number, input: DeploymentProfileInput): Promise<DeploymentProfileView> {
  const row = await getDeploymentProfileRow(db, id);
  if (!row) throw new NotFoundError("deployment profile", id);
  const p = parseInput(input);
  if (p.name !== row.name) throw new ValidationError(`deployment profile name: a profile keeps its name ("${row.name}"); create a new one instead`);
  await updateRow(db, id, { description: p.description ?? null, sites: storedSites(secretBoxOf(db), row.name, p.sites, row.sites) });
  return getDeploymentProfile(db, id);
}

export async function deleteDeploymentProfile(db: Db, id: number): Promise<void> {
  if (!(await deleteRow(db, id))) throw new NotFoundError("deployment profile", id);
}

export async function deploymentPlanOf(db: Db, id: number): Promise<DeploymentPlan> {
  const row = await getDeploymentProfileRow(db, id);
  if (!row) throw new NotFoundError("deployment profile", id);
  return planOfRow(row);
}

/** How the runner signs in to one site of a profile, secrets opened. */
export type SiteLogin =
  | { kind: "recipe"; url: string; usernameSelector: string; passwordSelector: string; submitSelector: string | null; username: string; password: string }
  | { kind: "storageState"; state: StorageState };

export interface SiteRuntime {
  placeholder: string;
  url: string;
  login: SiteLogin | null;
  reset: { method: "POST" | "GET"; url: string } | null;
}

/** A profile's sites as the runner needs them; a secret that does not open (another auth secret) is an error naming it. */
export async function deploymentRuntime(db: Db, id: number): Promise<Map<string, SiteRuntime>> {
  const row = await getDeploymentProfileRow(db, id);
  if (!row) throw new NotFoundError("deployment profile", id);
  const box = secretBoxOf(db);
  const out = new Map<string, SiteRuntime>();
  for (const s of row.sites) {
    let login: SiteLogin | null = null;
    if (s.login?.kind === "recipe") {
      const password = box.open(s.login.passwordSealed, secretContext(row.name, s.placeholder, "password"));
      if (password === null)
        throw new Error(
          `deployment profile "${row.name}" ${s.placeholder}: the stored password cannot be opened (sealed with another auth secret); enter it again`,
        );
      const { passwordSealed: _sealed, ...rest } = s.login;
      login = { ...rest, password };
    } else if (s.login?.kind === "storageState") {
      const state = box.open(s.login.stateSealed, secretContext(row.name, s.placeholder, "storage-state"));
      if (state === null)
        throw new Error(
          `deployment profile "${row.name}" ${s.placeholder}: the stored storage state cannot be opened (sealed with another auth secret); upload it again`,
        );
      login = { kind: "storageState", state: parseStorageState(state) };
    }
    out.set(s.placeholder, { placeholder: s.placeholder, url: s.url, login, reset: s.reset });
  }
  return out;
}
