/**
 * A small argument parser for `npm run cli -- <command> …`: positionals plus `--flag value`, `--flag=value`
 * and boolean `--flag`. Which flags take a value is declared per command so `--json` never eats a positional.
 */
import path from "node:path";
import type { CliIO } from "./types";

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
  /** Every value of each value flag, in order, for repeatable flags (`--eval-log A --eval-log B`). */
  repeated: Map<string, string[]>;
}

/**
 * Reads `argv` by the command's spec. A command that takes no positional arguments says `noPositionals: true`, and
 * any it is given are refused here, named, instead of each command checking for them.
 */
export function parseArgs(argv: string[], spec: { valueFlags?: string[]; boolFlags?: string[]; noPositionals?: boolean }): ParsedArgs {
  const valueFlags = new Set(spec.valueFlags ?? []);
  const boolFlags = new Set(spec.boolFlags ?? []);
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  const repeated = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith("--") || a === "-") {
      positionals.push(a);
      continue;
    }
    const eq = a.indexOf("=");
    const name = a.slice(2, eq === -1 ? undefined : eq);
    if (valueFlags.has(name)) {
      const value = eq !== -1 ? a.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      flags.set(name, value);
      repeated.set(name, [...(repeated.get(name) ?? []), value]);
    } else if (boolFlags.has(name)) {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      flags.set(name, true);
    } else {
      throw new UsageError(`unknown option --${name}`);
    }
  }
  if (spec.noPositionals && positionals.length) throw new UsageError(`unexpected arguments: ${positionals.join(" ")}`);
  return { positionals, flags, repeated };
}

export function flagString(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags.get(name);
  return typeof v === "string" ? v : undefined;
}

/** A flag the command cannot go without (given empty counts as missing); `message` says what to give. */
export function requiredFlag(args: ParsedArgs, name: string, message = `--${name} is required`): string {
  const v = flagString(args, name);
  if (!v) throw new UsageError(message);
  return v;
}

export function flagBool(args: ParsedArgs, name: string): boolean {
  return args.flags.get(name) === true;
}

/** A path typed on the command line, resolved against the folder the user ran the command from (see CliIO.cwd). */
export function userPath(io: Pick<CliIO, "cwd">, p: string): string {
  return path.resolve(io.cwd ?? process.cwd(), p);
}
