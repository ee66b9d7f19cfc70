/**
 * The team deployment example (deploy/docker-compose.yml with deploy/.env.example, deploy/Caddyfile and the
 * Dockerfile) hangs together: what the web servers and workers are given is a configuration Verdict accepts, and
 * every address in it leads to the service that answers there. Docker is not needed: the files are read as Compose
 * reads them (YAML with merge keys, then `${VAR}` substitution from the .env file).
 *
 * Each check is a function returning its problems; besides passing on the real files, each is shown to fail on a
 * copy broken in the way it guards against.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { resolveAuthSecret } from "../../server/auth/secret";
import { ENVIRONMENT_VARIABLES, loadConfig, readEnvironment } from "../../server/config";

const ROOT = path.resolve(__dirname, "..", "..");
const DEPLOY = path.join(ROOT, "deploy");
/** Where Debian's `chromium` package puts the browser. */
const DEBIAN_CHROMIUM = "/usr/bin/chromium";

// ---- reading the files ----

type Env = Record<string, string>;
interface Service {
  image?: string;
  build?: unknown;
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: unknown;
  profiles?: string[];
  volumes?: string[];
  networks?: string[] | Record<string, { ipv4_address?: string } | null>;
  ports?: string[];
}
interface Compose {
  services: Record<string, Service>;
  networks?: Record<string, { ipam?: { config?: { subnet?: string; ip_range?: string }[] } } | null>;
}
interface Deployment {
  /** The compose file as YAML (merge keys applied), before substitution. */
  compose: Compose;
  /** deploy/.env.example: its assignments, and those commented out (`# NAME=value`, optional settings). */
  envExample: Env;
  envExampleCommented: Env;
  caddyfile: string;
  dockerfile: string;
}

function readDeployment(): Deployment {
  const envText = fs.readFileSync(path.join(DEPLOY, ".env.example"), "utf8");
  return {
    // Through JSON: a YAML alias (`environment: *web-env`) would otherwise be one object shared by two services.
    compose: JSON.parse(JSON.stringify(parseYaml(fs.readFileSync(path.join(DEPLOY, "docker-compose.yml"), "utf8"), { merge: true }))) as Compose,
    envExample: parseEnvFile(envText, false),
    envExampleCommented: parseEnvFile(envText, true),
    caddyfile: fs.readFileSync(path.join(DEPLOY, "Caddyfile"), "utf8"),
    dockerfile: fs.readFileSync(path.join(ROOT, "Dockerfile"), "utf8"),
  };
}

/** `NAME=value` lines of an .env file; with `commented`, the `# NAME=value` lines instead. */
function parseEnvFile(text: string, commented: boolean): Env {
  const out: Env = {};
  const line = commented ? /^#\s*([A-Z][A-Z0-9_]*)=(.*)$/ : /^([A-Z][A-Z0-9_]*)=(.*)$/;
  for (const raw of text.split("\n")) {
    const m = line.exec(raw.trim());
    if (m) out[m[1]!] = m[2]!.trim();
  }
  return out;
}

/** Compose's substitution: `${NAME}`, `${NAME:-default}`, `${NAME-default}`, `${NAME:?error}`, `${NAME?error}`, `$$`. */
function substitute(text: string, vars: Env): string {
  return text.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (whole, braced?: string, op?: string, arg?: string, bare?: string) => {
      if (whole === "$$") return "$";
      const name = (braced ?? bare)!;
      const value = vars[name];
      const missing = op?.startsWith(":") ? value === undefined || value === "" : value === undefined;
      if (op?.endsWith("-")) return missing ? arg! : value!;
      if (op?.endsWith("?") && missing) throw new Error(`compose refuses to start: ${name}: ${arg}`);
      return value ?? "";
    },
  );
}

function substituteAll<T>(value: T, vars: Env): T {
  if (typeof value === "string") return substitute(value, vars) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => substituteAll(v, vars)) as T;
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteAll(v, vars)])) as T;
  return value;
}

/** The .env a team writes from the example: its blanks that Compose requires filled as the example says (`openssl rand -hex 32`). */
function filledEnv(d: Deployment, extra: Env = {}): Env {
  const vars = { ...d.envExample, ...extra };
  const text = JSON.stringify(d.compose);
  for (const [name, value] of Object.entries(vars)) {
    if (value === "" && new RegExp(`\\$\\{${name}:\\?`).test(text)) vars[name] = crypto.randomBytes(32).toString("hex");
  }
  return vars;
}

function commandOf(s: Service | undefined): string[] {
  const c = s?.command;
  return c === undefined ? [] : Array.isArray(c) ? c.map(String) : c.split(/\s+/);
}

function environmentOf(s: Service | undefined): Env {
  const e = s?.environment;
  if (!e) return {};
  if (Array.isArray(e)) return Object.fromEntries(e.map((kv) => [kv.split("=")[0]!, kv.slice(kv.indexOf("=") + 1)]));
  return Object.fromEntries(Object.entries(e).map(([k, v]) => [k, v === null ? "" : String(v)]));
}

function dependsOn(s: Service): Record<string, string> {
  const d = s.depends_on;
  if (!d) return {};
  if (Array.isArray(d)) return Object.fromEntries(d.map((n) => [n, "service_started"]));
  return Object.fromEntries(Object.entries(d).map(([n, v]) => [n, v?.condition ?? "service_started"]));
}

/** The value after `flag` in a command (`--port 3000`), or undefined. */
function flagValue(command: string[], flag: string): string | undefined {
  const i = command.indexOf(flag);
  return i >= 0 ? command[i + 1] : undefined;
}

const isWeb = (s: Service) => commandOf(s).some((part) => /(^|\/)next$/.test(part)) && commandOf(s).includes("start");
// `npm run worker`'s script (the worker under its memory cap, restarted if it dies), or the worker itself.
const isWorker = (s: Service) => commandOf(s).includes("scripts/run-worker.ts") || commandOf(s).includes("scripts/worker.ts");
const isMigrate = (s: Service) => commandOf(s).at(-1) === "migrate";
const isBrowserServer = (s: Service) => commandOf(s).includes("scripts/browser-server.ts");

function servicesWhere(c: Compose, test: (s: Service) => boolean): [string, Service][] {
  return Object.entries(c.services).filter(([, s]) => test(s));
}

function onlyService(c: Compose, what: string, test: (s: Service) => boolean): [string, Service] {
  const found = servicesWhere(c, test);
  if (found.length !== 1) throw new Error(`expected one ${what} service, found ${found.length}`);
  return found[0]!;
}

/** ENV of the Dockerfile's last stage (what every container of the image starts with). */
function dockerfileFinalStage(dockerfile: string): { env: Env; runs: string[]; from: string; user?: string } {
  const instructions = dockerfile
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  const lastFrom = instructions.map((l) => /^FROM\s/i.test(l)).lastIndexOf(true);
  const stage = instructions.slice(lastFrom);
  const env: Env = {};
  const runs: string[] = [];
  let user: string | undefined;
  for (const line of stage.slice(1)) {
    const [, keyword, rest = ""] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    if (keyword?.toUpperCase() === "ENV") {
      const pairs = [...rest.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g)];
      if (pairs.length) for (const [, k, v] of pairs) env[k!] = v!.replace(/^"|"$/g, "");
      else {
        const [k, ...v] = rest.split(/\s+/);
        env[k!] = v.join(" ");
      }
    }
    if (keyword?.toUpperCase() === "RUN") runs.push(rest);
    if (keyword?.toUpperCase() === "USER") user = rest.trim();
  }
  return { env, runs, from: stage[0]!.replace(/^FROM\s+/i, ""), user };
}

/** What a Verdict process in `service` sees: the image's ENV, then the service's environment. */
function processEnv(d: Deployment, compose: Compose, service: string): Env {
  return { ...dockerfileFinalStage(d.dockerfile).env, ...environmentOf(compose.services[service]) };
}

/** Whether an IPv4 address lies in a CIDR range (`172.29.250.0/24`). */
function inRange(address: string, cidr: string): boolean {
  const toNumber = (ip: string) => ip.split(".").reduce((n, part) => n * 256 + Number(part), 0);
  const [base, bits] = cidr.split("/");
  const size = 2 ** (32 - Number(bits));
  return Math.floor(toNumber(address) / size) === Math.floor(toNumber(base!) / size);
}

function hostPort(url: string, defaultPort: number): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || defaultPort}`;
}

// ---- the checks: each returns its problems, one line each naming the service or file ----

const KNOWN = new Set(ENVIRONMENT_VARIABLES.map((v) => v.name));
const known = (name: string) => KNOWN.has(name) || name.startsWith("VERDICT_JUDGE_KEY_");

/** Every VERDICT_* name in the compose file and .env.example is one server/config.ts reads (a typo would be ignored). */
function unknownVariables(d: Deployment): string[] {
  const problems: string[] = [];
  const names = (text: string) => new Set(text.match(/\bVERDICT_[A-Z0-9_]+/g) ?? []);
  for (const name of names(JSON.stringify(d.compose))) if (!known(name)) problems.push(`docker-compose.yml: ${name} is not a variable server/config.ts reads`);
  for (const name of names(Object.keys({ ...d.envExample, ...d.envExampleCommented }).join(" "))) {
    if (!known(name)) problems.push(`.env.example: ${name} is not a variable server/config.ts reads`);
  }
  return problems;
}

/** Web servers, workers and the migration step start with a configuration Verdict accepts. */
function rejectedConfigurations(d: Deployment, vars = filledEnv(d)): string[] {
  const compose = substituteAll(d.compose, vars);
  const problems: string[] = [];
  for (const [name] of servicesWhere(compose, (s) => isWeb(s) || isWorker(s) || isMigrate(s))) {
    try {
      const config = loadConfig(processEnv(d, compose, name));
      if (config.authSecret !== undefined) resolveAuthSecret({ authSecret: config.authSecret, dataDir: "/nonexistent" });
    } catch (e) {
      problems.push(`${name}: ${(e as Error).message}`);
    }
  }
  return problems;
}

/** VERDICT_DATABASE_URL names the postgres service: its host, port, database, user and password. */
function databaseMismatches(d: Deployment, vars = filledEnv(d)): string[] {
  const compose = substituteAll(d.compose, vars);
  const [pgName, pg] = onlyService(compose, "postgres", (s) => /^postgres(:|$)/.test(s.image ?? ""));
  const pgEnv = environmentOf(pg);
  const port = flagValue(commandOf(pg), "-p") ?? pgEnv.PGPORT ?? "5432";
  const expected = {
    host: `${pgName}:${port}`,
    database: pgEnv.POSTGRES_DB ?? pgEnv.POSTGRES_USER ?? "postgres",
    user: pgEnv.POSTGRES_USER ?? "postgres",
    password: pgEnv.POSTGRES_PASSWORD,
  };
  const problems: string[] = [];
  for (const [name] of servicesWhere(compose, (s) => isWeb(s) || isWorker(s) || isMigrate(s))) {
    const url = loadConfig(processEnv(d, compose, name)).postgresUrl;
    if (!url) {
      problems.push(`${name}: VERDICT_DATABASE_URL does not name a PostgreSQL database`);
      continue;
    }
    const u = new URL(url);
    const got = {
      host: hostPort(url, 5432),
      database: decodeURIComponent(u.pathname.slice(1)),
      user: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password),
    };
    for (const key of Object.keys(expected) as (keyof typeof expected)[]) {
      if (got[key] !== expected[key])
        problems.push(
          `${name}: VERDICT_DATABASE_URL's ${key} is ${JSON.stringify(key === "password" ? "…" : got[key])}, the ${pgName} service's is ${JSON.stringify(key === "password" ? "another" : expected[key])}`,
        );
    }
  }
  return problems;
}

/** The S3 endpoint is the MinIO service, and the bucket service creates that bucket and that user. */
function storageMismatches(d: Deployment, vars = filledEnv(d)): string[] {
  const compose = substituteAll(d.compose, vars);
  const [minioName, minio] = onlyService(compose, "MinIO server", (s) => /^(quay\.io\/)?minio\/minio(:|$)/.test(s.image ?? ""));
  const minioPort = (flagValue(commandOf(minio), "--address") ?? ":9000").split(":").pop();
  const [bucketsName, buckets] = onlyService(compose, "bucket", (s) => /^(quay\.io\/)?minio\/mc(:|$)/.test(s.image ?? ""));
  // The one-shot's script, with its shell variables (`$$NAME` in the file) taken from its environment.
  const script = substitute(commandOf(buckets).join("\n"), environmentOf(buckets));
  const aliases = new Map([...script.matchAll(/mc alias set (\S+) (\S+)/g)].map(([, alias, url]) => [alias!, hostPort(url!.replace(/"/g, ""), 80)]));
  const made = [...script.matchAll(/mc mb (?:--\S+ )*"?([^/\s"]+)\/([^"\s]+)"?/g)].map(([, alias, bucket]) => ({ at: aliases.get(alias!), bucket }));
  const users = [...script.matchAll(/mc admin user add (\S+) "?([^"\s]+)"? "?([^"\s]+)"?/g)].map(([, alias, id, secret]) => ({
    at: aliases.get(alias!),
    id,
    secret,
  }));
  const attached = [...script.matchAll(/mc admin policy attach (\S+) (\S+) --user "?([^"\s]+)"?/g)].map(([, alias, policy, id]) => ({
    at: aliases.get(alias!),
    policy,
    id,
  }));
  const problems: string[] = [];
  for (const [name] of servicesWhere(compose, (s) => isWeb(s) || isWorker(s))) {
    const store = loadConfig(processEnv(d, compose, name)).objectStorage;
    if (!store?.endpoint) {
      problems.push(`${name}: no S3 endpoint (VERDICT_S3_ENDPOINT, VERDICT_S3_BUCKET)`);
      continue;
    }
    const endpoint = hostPort(store.endpoint, 80);
    if (endpoint !== `${minioName}:${minioPort}`)
      problems.push(`${name}: VERDICT_S3_ENDPOINT is ${endpoint}, the ${minioName} service listens on ${minioName}:${minioPort}`);
    if (!made.some((m) => m.at === endpoint && m.bucket === store.bucket))
      problems.push(`${name}: bucket ${store.bucket} at ${endpoint} is not created by ${bucketsName}`);
    const user = users.find((u) => u.at === endpoint && u.id === store.accessKeyId);
    if (!user) problems.push(`${name}: the access key ${store.accessKeyId} is not a user ${bucketsName} creates`);
    else if (user.secret !== store.secretAccessKey)
      problems.push(`${name}: VERDICT_S3_SECRET_ACCESS_KEY is not the secret ${bucketsName} gives ${store.accessKeyId}`);
    if (!attached.some((a) => a.at === endpoint && a.id === store.accessKeyId && a.policy === "readwrite"))
      problems.push(`${name}: ${bucketsName} gives ${store.accessKeyId} no read-write policy`);
  }
  const bucketsNeeds = dependsOn(buckets)[minioName];
  if (bucketsNeeds !== "service_healthy" || !minio.healthcheck)
    problems.push(`${bucketsName}: must wait for ${minioName} to be healthy (a healthcheck and depends_on condition service_healthy)`);
  return problems;
}

/** Web servers, workers, the migration step and the browser server are one image; web servers and workers share the auth secret. */
function sharingMismatches(d: Deployment, vars = filledEnv(d)): string[] {
  const compose = substituteAll(d.compose, vars);
  const verdict = servicesWhere(compose, (s) => isWeb(s) || isWorker(s) || isMigrate(s) || isBrowserServer(s));
  const problems: string[] = [];
  const [firstName, first] = verdict[0]!;
  for (const [name, s] of verdict) {
    if (s.image !== first.image || JSON.stringify(s.build) !== JSON.stringify(first.build))
      problems.push(`${name}: image ${s.image} differs from ${firstName}'s ${first.image}`);
  }
  const secrets = new Map(
    servicesWhere(compose, (s) => isWeb(s) || isWorker(s)).map(([name]) => [name, environmentOf(compose.services[name]).VERDICT_AUTH_SECRET]),
  );
  const distinct = new Set(secrets.values());
  if (distinct.size !== 1 || [...distinct][0] === undefined || [...distinct][0] === "") {
    problems.push(
      `web servers and workers must share one VERDICT_AUTH_SECRET (${[...secrets].map(([n, v]) => `${n}: ${v ? "set" : "unset"}`).join(", ")}${distinct.size > 1 ? "; they differ" : ""})`,
    );
  }
  return problems;
}

/** Nothing of Verdict starts before PostgreSQL is healthy and the migration has completed. */
function orderingProblems(d: Deployment): string[] {
  const c = d.compose;
  const problems: string[] = [];
  const [pgName, pg] = onlyService(c, "postgres", (s) => /^postgres(:|$)/.test(s.image ?? ""));
  const [migrateName] = onlyService(c, "migration", isMigrate);
  if (!pg.healthcheck) problems.push(`${pgName}: needs a healthcheck for the others to wait on`);
  for (const [name, s] of servicesWhere(c, (x) => isWeb(x) || isWorker(x) || isMigrate(x))) {
    const deps = dependsOn(s);
    if (deps[pgName] !== "service_healthy") problems.push(`${name}: depends_on ${pgName} must have condition service_healthy (has ${deps[pgName] ?? "none"})`);
    if (name !== migrateName && deps[migrateName] !== "service_completed_successfully") {
      problems.push(`${name}: depends_on ${migrateName} must have condition service_completed_successfully (has ${deps[migrateName] ?? "none"})`);
    }
  }
  return problems;
}

/** The load balancer sends requests to every web server on the port it listens on, and its address is a trusted proxy. */
function loadBalancerProblems(d: Deployment, vars = filledEnv(d)): string[] {
  const compose = substituteAll(d.compose, vars);
  const [lbName, lb] = onlyService(compose, "load balancer", (s) => /^caddy(:|$)/.test(s.image ?? ""));
  const problems: string[] = [];
  const mounted = (lb.volumes ?? []).some((v) => /^\.\/Caddyfile:\/etc\/caddy\/Caddyfile(:ro)?$/.test(v));
  if (!mounted) problems.push(`${lbName}: must mount ./Caddyfile at /etc/caddy/Caddyfile`);
  const upstreams = new Set([...d.caddyfile.matchAll(/^\s*reverse_proxy\s+([^{\n]+)/gm)].flatMap(([, list]) => list!.trim().split(/\s+/)));
  const webs = servicesWhere(compose, isWeb);
  if (webs.length < 2) problems.push(`expected at least two web servers, found ${webs.length}`);
  const [lbNetwork, lbAddress] =
    Object.entries(lb.networks && !Array.isArray(lb.networks) ? lb.networks : {})
      .map(([network, n]) => [network, n?.ipv4_address] as const)
      .find(([, address]) => address !== undefined) ?? [];
  if (lbNetwork && lbAddress) {
    // Docker hands out addresses of the subnet to containers started earlier unless ip_range keeps them elsewhere.
    const ipam = compose.networks?.[lbNetwork]?.ipam?.config?.[0];
    if (!ipam?.subnet || !inRange(lbAddress, ipam.subnet))
      problems.push(`${lbName}: ${lbAddress} is not in the ${lbNetwork} network's subnet (${ipam?.subnet ?? "none"})`);
    if (!ipam?.ip_range || inRange(lbAddress, ipam.ip_range))
      problems.push(
        `${lbName}: ${lbAddress} may be given to another container first; keep the ${lbNetwork} network's ip_range (${ipam?.ip_range ?? "none"}) clear of it`,
      );
  }
  for (const [name, s] of webs) {
    const port = flagValue(commandOf(s), "-p") ?? flagValue(commandOf(s), "--port") ?? String(readEnvironment(processEnv(d, compose, name)).PORT);
    if (!upstreams.has(`${name}:${port}`))
      problems.push(`Caddyfile: reverse_proxy does not name ${name}:${port} (it names ${[...upstreams].join(" ") || "nothing"})`);
    const trusted = loadConfig(processEnv(d, compose, name)).trustedProxies ?? [];
    if (!lbAddress || !trusted.includes(lbAddress))
      problems.push(
        `${name}: VERDICT_TRUSTED_PROXIES (${trusted.join(",") || "none"}) must name ${lbName}'s fixed address (${lbAddress ?? "none set"}), or sign-in limits count every visitor as one`,
      );
  }
  for (const upstream of upstreams) {
    if (!webs.some(([name]) => upstream.startsWith(`${name}:`))) problems.push(`Caddyfile: ${upstream} is not a web server of the compose file`);
  }
  return problems;
}

/** The image installs Debian's chromium, the runner looks for it where Debian puts it, and does not run as root. */
function imageProblems(d: Deployment, vars = filledEnv(d)): string[] {
  const compose = substituteAll(d.compose, vars);
  const stage = dockerfileFinalStage(d.dockerfile);
  const problems: string[] = [];
  if (!/^node:20[.\w-]*-bookworm/.test(stage.from)) problems.push(`Dockerfile: the image is built FROM ${stage.from}, not Node 20 on Debian bookworm`);
  if (!stage.runs.some((r) => /apt-get install\b[^;&|]*\schromium(\s|$)/.test(r)))
    problems.push("Dockerfile: the final stage does not apt-get install chromium");
  if (!stage.user || /^(root|0)(:|$)/.test(stage.user))
    problems.push(`Dockerfile: the final stage runs as ${stage.user ?? "root"}; Chromium keeps its sandbox only as a non-root user`);
  for (const [name] of servicesWhere(compose, (s) => isWorker(s) || isBrowserServer(s))) {
    const chromium = loadConfig(processEnv(d, compose, name)).chromiumPath;
    if (chromium !== DEBIAN_CHROMIUM) problems.push(`${name}: CHROMIUM_PATH is ${chromium}, Debian's chromium is ${DEBIAN_CHROMIUM}`);
  }
  return problems;
}

/** The commands of the image's services name files and npm scripts the image has; the build leaves out local state and secrets. */
function commandAndContextProblems(d: Deployment, dockerignore: string): string[] {
  const problems: string[] = [];
  const scripts = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
  for (const [name, s] of servicesWhere(d.compose, (x) => isWeb(x) || isWorker(x) || isMigrate(x) || isBrowserServer(x))) {
    const command = commandOf(s);
    for (const part of command) {
      if (/^(scripts|node_modules)\//.test(part) && !fs.existsSync(path.join(ROOT, part))) problems.push(`${name}: ${part} does not exist`);
    }
    if (command[0] === "npm" && command[1] === "run" && !(command[2]! in scripts)) problems.push(`${name}: package.json has no script ${command[2]}`);
  }
  const ignored = new Set(dockerignore.split("\n").map((l) => l.trim()));
  for (const needed of ["node_modules", ".next", "data", ".env", "deploy/.env"]) {
    if (!ignored.has(needed)) problems.push(`.dockerignore: ${needed} is sent to the image build`);
  }
  return problems;
}

/** No secret is committed, and Compose refuses to start until each one is filled in. */
function secretProblems(d: Deployment): string[] {
  const problems: string[] = [];
  const isSecret = (name: string) => /PASSWORD|SECRET|API_KEY/.test(name);
  for (const [name, value] of Object.entries({ ...d.envExample, ...d.envExampleCommented })) {
    if (isSecret(name) && value !== "") problems.push(`.env.example: ${name} holds a value; leave secrets blank`);
  }
  const text = JSON.stringify(d.compose);
  for (const [service, s] of Object.entries(d.compose.services)) {
    for (const [key, value] of Object.entries(environmentOf(s))) {
      if (isSecret(key) && value !== "" && !value.includes("${")) problems.push(`${service}: ${key} is written into the compose file; take it from .env`);
    }
  }
  for (const name of Object.keys(d.envExample).filter((n) => /PASSWORD|SECRET/.test(n))) {
    const uses = [...text.matchAll(new RegExp(`\\$\\{${name}([^}]*)\\}`, "g"))];
    if (uses.length === 0) problems.push(`.env.example: ${name} is not used by the compose file`);
    for (const [use, rest] of uses)
      if (!rest!.startsWith(":?")) problems.push(`docker-compose.yml: ${use} must be \${${name}:?…} so Compose refuses to start without it`);
  }
  return problems;
}

/** The commented remote-browser setting, once uncommented, leads every worker to the browser server, which each can reach back. */
function remoteBrowserProblems(d: Deployment): string[] {
  const ws = d.envExampleCommented.VERDICT_BROWSER_WS;
  if (!ws) return [".env.example: no commented VERDICT_BROWSER_WS=… line showing how to use the browser server"];
  const compose = substituteAll(d.compose, filledEnv(d, { VERDICT_BROWSER_WS: ws }));
  const problems: string[] = [];
  const [browserName, browser] = onlyService(compose, "browser server", isBrowserServer);
  if (!browser.profiles?.length) problems.push(`${browserName}: must sit in a profile (optional, not started by default)`);
  const command = commandOf(browser);
  const listens = `${browserName}:${flagValue(command, "--port") ?? "3000"}${flagValue(command, "--path") ?? "/playwright"}`;
  const u = new URL(ws);
  if (`${u.hostname}:${u.port}${u.pathname}` !== listens)
    problems.push(`.env.example: VERDICT_BROWSER_WS ${ws} is not where ${browserName} listens (${listens})`);
  for (const [name] of servicesWhere(compose, isWorker)) {
    try {
      const config = loadConfig(processEnv(d, compose, name));
      if (config.remoteBrowser?.wsEndpoint !== ws) problems.push(`${name}: does not take VERDICT_BROWSER_WS from .env`);
      if (config.runnerProxyHost !== name)
        problems.push(
          `${name}: VERDICT_RUNNER_PROXY_HOST is ${config.runnerProxyHost ?? "unset"}; the browser server reaches this worker's egress proxy as ${name}`,
        );
    } catch (e) {
      problems.push(`${name}: ${(e as Error).message}`);
    }
  }
  return problems;
}

// ---- the tests ----

const deployment = readDeployment();
/** A deep copy of the deployment to break. */
const copy = (): Deployment => JSON.parse(JSON.stringify(deployment)) as Deployment;

describe("the team deployment example (deploy/)", () => {
  it("names only variables Verdict reads", () => {
    expect(unknownVariables(deployment)).toEqual([]);
    const broken = copy();
    (broken.compose.services["worker-2"]!.environment as Env).VERDICT_RUNNER_CONCURENCY = "4";
    expect(unknownVariables(broken)).toEqual(["docker-compose.yml: VERDICT_RUNNER_CONCURENCY is not a variable server/config.ts reads"]);
  });

  it("gives web servers, workers and the migration step a configuration Verdict accepts", () => {
    const web = servicesWhere(deployment.compose, isWeb).map(([n]) => n);
    const workers = servicesWhere(deployment.compose, isWorker).map(([n]) => n);
    expect(web.length).toBeGreaterThanOrEqual(2);
    expect(workers.length).toBeGreaterThanOrEqual(3);
    expect(servicesWhere(deployment.compose, isMigrate)).toHaveLength(1);
    expect(rejectedConfigurations(deployment)).toEqual([]);

    const broken = copy();
    (broken.compose.services["web-2"]!.environment as Env).VERDICT_MAX_BODY_BYTES = "1 MB";
    expect(rejectedConfigurations(broken)).toEqual([expect.stringMatching(/^web-2: VERDICT_MAX_BODY_BYTES must be a whole number/)]);
    // A short auth secret is refused when the server signs its first session.
    expect(rejectedConfigurations(deployment, filledEnv(deployment, { VERDICT_AUTH_SECRET: "too-short" }))).toContainEqual(
      expect.stringMatching(/VERDICT_AUTH_SECRET is 9 characters/),
    );
  });

  it("points VERDICT_DATABASE_URL at the postgres service's host, port, database, user and password", () => {
    expect(databaseMismatches(deployment)).toEqual([]);
    const broken = copy();
    const env = broken.compose.services["worker-1"]!.environment as Env;
    env.VERDICT_DATABASE_URL = env.VERDICT_DATABASE_URL!.replace("@postgres:5432/verdict", "@db:5433/verdict");
    expect(databaseMismatches(broken)).toEqual([
      expect.stringMatching(/^worker-1: VERDICT_DATABASE_URL's host is "db:5433", the postgres service's is "postgres:5432"/),
    ]);
    const renamed = copy();
    (renamed.compose.services.postgres!.environment as Env).POSTGRES_DB = "lab";
    expect(databaseMismatches(renamed).length).toBe(servicesWhere(deployment.compose, (s) => isWeb(s) || isWorker(s) || isMigrate(s)).length);
  });

  it("stores screenshots in the MinIO service, in the bucket and as the user the bucket service creates", () => {
    expect(storageMismatches(deployment)).toEqual([]);
    const wrongBucket = copy();
    (wrongBucket.compose.services["minio-buckets"]!.environment as Env).BUCKET = "screenshots";
    expect(storageMismatches(wrongBucket)).toContainEqual(expect.stringMatching(/^web-1: bucket verdict at minio:9000 is not created by minio-buckets/));
    const wrongEndpoint = copy();
    (wrongEndpoint.compose.services["web-2"]!.environment as Env).VERDICT_S3_ENDPOINT = "http://minio:9001";
    expect(storageMismatches(wrongEndpoint)).toContainEqual("web-2: VERDICT_S3_ENDPOINT is minio:9001, the minio service listens on minio:9000");
    const wrongSecret = copy();
    (wrongSecret.compose.services["worker-3"]!.environment as Env).VERDICT_S3_SECRET_ACCESS_KEY = "${MINIO_ROOT_PASSWORD:?}";
    expect(storageMismatches(wrongSecret)).toEqual(["worker-3: VERDICT_S3_SECRET_ACCESS_KEY is not the secret minio-buckets gives verdict"]);
  });

  it("runs web servers, workers and the migration from one image, with one auth secret", () => {
    expect(sharingMismatches(deployment)).toEqual([]);
    const otherImage = copy();
    otherImage.compose.services["worker-2"]!.image = "verdict:old";
    expect(sharingMismatches(otherImage)).toEqual([expect.stringMatching(/^worker-2: image verdict:old differs/)]);
    const otherSecret = copy();
    (otherSecret.compose.services["web-2"]!.environment as Env).VERDICT_AUTH_SECRET = "${POSTGRES_PASSWORD:?}";
    expect(sharingMismatches(otherSecret)).toEqual([expect.stringMatching(/must share one VERDICT_AUTH_SECRET.*they differ/)]);
  });

  it("starts nothing of Verdict before PostgreSQL is healthy and the migration has completed", () => {
    expect(orderingProblems(deployment)).toEqual([]);
    const broken = copy();
    broken.compose.services["worker-3"]!.depends_on = { postgres: { condition: "service_started" }, migrate: { condition: "service_started" } };
    expect(orderingProblems(broken)).toEqual([
      "worker-3: depends_on postgres must have condition service_healthy (has service_started)",
      "worker-3: depends_on migrate must have condition service_completed_successfully (has service_started)",
    ]);
    const noHealth = copy();
    delete noHealth.compose.services.postgres!.healthcheck;
    expect(orderingProblems(noHealth)).toEqual(["postgres: needs a healthcheck for the others to wait on"]);
  });

  it("balances over both web servers on the port they listen on, from an address they trust", () => {
    expect(loadBalancerProblems(deployment)).toEqual([]);
    const missing = copy();
    missing.caddyfile = missing.caddyfile.replace(/web-2:3000/, "");
    expect(loadBalancerProblems(missing)).toEqual([expect.stringMatching(/^Caddyfile: reverse_proxy does not name web-2:3000/)]);
    const otherPort = copy();
    (otherPort.compose.services["web-1"]!.environment as Env).PORT = "3001";
    expect(loadBalancerProblems(otherPort)).toContainEqual(expect.stringMatching(/^Caddyfile: reverse_proxy does not name web-1:3001/));
    const shared = copy();
    shared.compose.networks!.verdict!.ipam!.config![0]!.ip_range = "172.29.250.0/25";
    expect(loadBalancerProblems(shared)).toEqual([
      "caddy: 172.29.250.10 may be given to another container first; keep the verdict network's ip_range (172.29.250.0/25) clear of it",
    ]);
    const untrusted = copy();
    (untrusted.compose.services["web-1"]!.environment as Env).VERDICT_TRUSTED_PROXIES = "";
    expect(loadBalancerProblems(untrusted)).toEqual([expect.stringMatching(/^web-1: VERDICT_TRUSTED_PROXIES \(none\) must name caddy's fixed address/)]);
  });

  it("builds an image with Debian's chromium where the runner looks for it, run as a non-root user", () => {
    expect(imageProblems(deployment)).toEqual([]);
    const noChromium = copy();
    noChromium.dockerfile = noChromium.dockerfile.replace(/\bchromium fonts-dejavu-core/, "fonts-dejavu-core");
    expect(imageProblems(noChromium)).toEqual(["Dockerfile: the final stage does not apt-get install chromium"]);
    const elsewhere = copy();
    elsewhere.dockerfile = elsewhere.dockerfile.replace("CHROMIUM_PATH=/usr/bin/chromium", "CHROMIUM_PATH=/opt/chrome/chrome");
    expect(imageProblems(elsewhere)).toContainEqual("worker-1: CHROMIUM_PATH is /opt/chrome/chrome, Debian's chromium is /usr/bin/chromium");
    const asRoot = copy();
    asRoot.dockerfile = asRoot.dockerfile.replace(/^USER verdict$/m, "USER root");
    expect(imageProblems(asRoot)).toEqual([expect.stringMatching(/runs as root/)]);
  });

  it("runs commands the image has, built from a context without local state or secrets", () => {
    const dockerignore = fs.readFileSync(path.join(ROOT, ".dockerignore"), "utf8");
    expect(commandAndContextProblems(deployment, dockerignore)).toEqual([]);
    const broken = copy();
    broken.compose.services["worker-1"]!.command = ["node", "--import", "tsx", "scripts/worker.ts", "--config", "scripts/runner.json"];
    broken.compose.services.migrate!.command = ["npm", "run", "db-cli", "--", "migrate"];
    expect(commandAndContextProblems(broken, dockerignore.replace(/^deploy\/\.env$/m, ""))).toEqual([
      "migrate: package.json has no script db-cli",
      "worker-1: scripts/runner.json does not exist",
      ".dockerignore: deploy/.env is sent to the image build",
    ]);
  });

  it("commits no secret, and Compose refuses to start until each is filled in", () => {
    expect(secretProblems(deployment)).toEqual([]);
    expect(() => substituteAll(deployment.compose, deployment.envExample)).toThrow(
      /compose refuses to start: (POSTGRES_PASSWORD|VERDICT_AUTH_SECRET|MINIO_ROOT_PASSWORD|VERDICT_S3_SECRET_ACCESS_KEY)/,
    );
    const committed = copy();
    committed.envExample.POSTGRES_PASSWORD = "hunter2hunter2";
    expect(secretProblems(committed)).toEqual([".env.example: POSTGRES_PASSWORD holds a value; leave secrets blank"]);
    const optional = copy();
    (optional.compose.services["worker-1"]!.environment as Env).VERDICT_AUTH_SECRET = "${VERDICT_AUTH_SECRET:-}";
    expect(secretProblems(optional)).toEqual([
      "docker-compose.yml: ${VERDICT_AUTH_SECRET:-} must be ${VERDICT_AUTH_SECRET:?…} so Compose refuses to start without it",
    ]);
  });

  it("wires the optional browser server: workers reach it, and it reaches each worker's egress proxy by name", () => {
    expect(remoteBrowserProblems(deployment)).toEqual([]);
    const wrongPath = copy();
    wrongPath.envExampleCommented.VERDICT_BROWSER_WS = "ws://browsers:3000/";
    expect(remoteBrowserProblems(wrongPath)).toEqual([
      expect.stringMatching(/^\.env\.example: VERDICT_BROWSER_WS ws:\/\/browsers:3000\/ is not where browsers listens \(browsers:3000\/playwright\)/),
    ]);
    const sameProxy = copy();
    (sameProxy.compose.services["worker-2"]!.environment as Env).VERDICT_RUNNER_PROXY_HOST = "worker-1";
    expect(remoteBrowserProblems(sameProxy)).toEqual([expect.stringMatching(/^worker-2: VERDICT_RUNNER_PROXY_HOST is worker-1/)]);
  });
});

/** Every web server's healthcheck asks GET /api/health, which answers 503 while the database does not. */
function healthcheckProblems(d: Deployment): string[] {
  const problems: string[] = [];
  for (const [name, s] of servicesWhere(d.compose, isWeb)) {
    const test = (s.healthcheck as { test?: string[] } | undefined)?.test ?? [];
    if (!test.join(" ").includes("http://127.0.0.1:3000/api/health")) problems.push(`${name}: its healthcheck must ask http://127.0.0.1:3000/api/health`);
  }
  return problems;
}

describe("deploy/docker-compose.yml healthchecks", () => {
  it("marks a web server healthy only when GET /api/health says its database answers", () => {
    const deployment = readDeployment();
    expect(healthcheckProblems(deployment)).toEqual([]);
    const broken = JSON.parse(JSON.stringify(deployment)) as Deployment;
    (broken.compose.services["web-1"]!.healthcheck as { test: string[] }).test = ["CMD", "node", "-e", "fetch('http://127.0.0.1:3000/sign-in')"];
    expect(healthcheckProblems(broken)).toEqual(["web-1: its healthcheck must ask http://127.0.0.1:3000/api/health"]);
  });
});
