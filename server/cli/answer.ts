/**
 * How a command answers, by the convention in types.ts: with --json one JSON object on stdout, else human text on
 * stderr. The list, show and remove actions of the judge commands all answer this way.
 */
import { UsageError, type ParsedArgs } from "./args";
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
