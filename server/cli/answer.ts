/**
 * How a command answers, by the convention in types.ts: with --json one JSON object on stdout, else human text on
 * stderr. The list, show and remove actions of the judge commands all answer this way.
 */
import fs from "node:fs";
import path from "node:path";
import { flagBool, flagString, UsageError, userPath, type ParsedArgs } from "./args";
import type { CliIO } from "./types";

/** The action and the one name or id after it (`judge-batch status 12`); a third positional is refused. */
export function actionAndSubject(args: ParsedArgs): [action: string | undefined, subject: string | undefined] {
  const [action, subject, ...extra] = args.positionals;
  if (extra.length) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
  return [action, subject];
}

/** The value as JSON on stdout with --json, else the sentence on stderr. Returns the exit code 0. */
export function answer(io: CliIO, json: boolean, value: unknown, text: string): 0 {
  if (json) io.stdout(JSON.stringify(value) + "\n");
  else io.stderr(text);
  return 0;
}

/** The value as JSON with --json, else the text: either way one line on stdout. Returns the exit code 0. */
export function answerOnStdout(io: CliIO, json: boolean, value: unknown, text: string): 0 {
  io.stdout(json ? JSON.stringify(value) + "\n" : text + "\n");
  return 0;
}

/**
 * A list: `{ [key]: rows }` on stdout with --json; else the empty sentence on stderr when there are none, or a line
 * a row (on stderr unless `to` says stdout). Returns the exit code 0.
 */
export function answerList<T>(
  io: CliIO,
  json: boolean,
  key: string,
  rows: T[],
  text: { empty: string; line: (row: T) => string; to?: "stdout" | "stderr" },
): 0 {
  if (json) io.stdout(JSON.stringify({ [key]: rows }) + "\n");
  else if (!rows.length) io.stderr(text.empty);
  else for (const row of rows) io[text.to ?? "stderr"](text.line(row));
  return 0;
}

/**
 * An export's text: on stdout without --out (where --json is refused, as the export itself is stdout), else written to
 * the --out file, its folder made, and answered with what `written` says of it: JSON on stdout with --json, else the
 * sentence on stderr. `written` gets the file's full path and the path as the user typed it. Returns the exit code 0.
 */
export function answerExport(io: CliIO, args: ParsedArgs, body: string, written: (file: string, typed: string) => { json: object; text: string }): 0 {
  const typed = flagString(args, "out");
  const json = flagBool(args, "json");
  if (!typed) {
    if (json) throw new UsageError("--json needs --out (the export itself would be stdout)");
    io.stdout(body);
    return 0;
  }
  const file = userPath(io, typed);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, body);
  const said = written(file, typed);
  return answer(io, json, said.json, said.text);
}
