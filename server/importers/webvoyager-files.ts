/**
 * Which files of a WebVoyager task folder are its transcript and its screenshots, for the names forks give them.
 *
 * WebVoyager writes `interact_messages.json` and `screenshot<N>.png` (`screenshot<N>_no_box.png` without the marks).
 * Forks add text around both: `interact_messages_task1.json`, `task1_interact_messages.json`,
 * `screenshot_www.amazon.com_3.png`, `3_screenshot.jpg`, `screenshot-3.png`. A transcript is any JSON file whose
 * name holds `interact_messages`; a screenshot is any image whose name holds a number, and the number is the one
 * that tells the folder's images apart (the last one in the name, else the first: a host or a date in the name
 * repeats across images, the step number does not).
 *
 * Pure: works on file names only.
 */

export const PLAIN_TRANSCRIPT = "interact_messages.json";
const TRANSCRIPT = /^(?:(.*?)[_\-. ])?interact_messages(?:[_\-. ](.*?))?\.json$/i;
const IMAGE = /\.(png|jpe?g|webp)$/i;
/** Words that mark an image as the screenshot without the Set-of-Marks boxes. */
const RAW_MARK = /(?:^|[_\-. ])(?:no[_\- ]?box(?:es)?|raw|unmarked)(?=$|[_\-. ])/i;

export function isTranscriptName(name: string): boolean {
  return TRANSCRIPT.test(name);
}

export interface TranscriptChoice {
  file: string;
  /** The text around `interact_messages` in the name ("task1" of `interact_messages_task1.json`), if any. */
  tag: string | null;
}

/**
 * The transcripts of a folder. One per folder as WebVoyager writes it: the plain name wins over copies a pipeline
 * wrote beside it (`interact_messages_dedup.json`), and a name that carries the folder's own task wins over others.
 * A folder holding several transcripts with none of these (a fork that wrote every task into one folder) gives each
 * of them. `notRead` lists the transcripts passed over, for the report.
 */
export function chooseTranscripts(names: string[], folderName: string): { transcripts: TranscriptChoice[]; notRead: string[] } {
  const all = names
    .filter(isTranscriptName)
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }))
    .map((file) => ({ file, tag: transcriptTag(file) }));
  if (all.length <= 1) return { transcripts: all, notRead: [] };
  const plain = all.find((t) => t.file.toLowerCase() === PLAIN_TRANSCRIPT);
  const folder = folderName.toLowerCase();
  const own = plain ?? all.find((t) => t.tag !== null && sameTask(t.tag, folder));
  if (own) return { transcripts: [own], notRead: all.filter((t) => t !== own).map((t) => t.file) };
  return { transcripts: all, notRead: [] };
}

function transcriptTag(file: string): string | null {
  const m = TRANSCRIPT.exec(file);
  const tag = [m?.[1], m?.[2]].filter((p): p is string => !!p && !!p.trim()).join("_");
  return tag || null;
}

/** "task1" names the folder "task1"; so does "1" (the folder is "task" + id). */
function sameTask(tag: string, folder: string): boolean {
  const t = tag.toLowerCase();
  return t === folder || `task${t}` === folder || t === folder.replace(/^task[_-]?/, "");
}

/** The task id a transcript's tag names: "task1" → "1", "task_amazon--3" → "amazon--3". */
export function taskIdFromTag(tag: string): string {
  return tag.replace(/^task[_-]?/i, "") || tag;
}

export interface NumberedImages {
  /** Screenshot number → file name (the image the agent saw, with its marks). */
  marked: Map<number, string>;
  /** Screenshot number → file name of the same screenshot without marks. */
  raw: Map<number, string>;
  /** Images that share a number with another one (the first in name order is used). */
  duplicates: string[];
}

/**
 * The numbered screenshots among a folder's files. WebVoyager's own names are used alone when present; otherwise
 * every image whose name holds a number. `only` keeps the images whose name holds that text (a folder with one
 * transcript per task keeps each task's images apart by its tag).
 */
export function numberedImages(names: string[], only: string | null = null): NumberedImages {
  const sorted = [...names].sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  const standard = sorted.filter((n) => /^screenshot\d+(?:_no_box)?\.(png|jpe?g)$/i.test(n));
  let images = standard.length ? standard : sorted.filter((n) => IMAGE.test(n) && /\d/.test(stem(n)));
  if (only !== null) images = images.filter((n) => containsToken(stem(n), only));
  const markedNames = images.filter((n) => !RAW_MARK.test(stem(n)));
  const rawNames = images.filter((n) => RAW_MARK.test(stem(n)));
  const position = numberPosition(markedNames.length ? markedNames : rawNames, only);
  const out: NumberedImages = { marked: new Map(), raw: new Map(), duplicates: [] };
  for (const [list, target] of [
    [markedNames, out.marked],
    [rawNames, out.raw],
  ] as const) {
    for (const name of list) {
      const n = numberAt(name, position, only);
      if (n === null) continue;
      if (target.has(n)) out.duplicates.push(name);
      else target.set(n, name);
    }
  }
  return out;
}

function stem(name: string): string {
  return name.replace(/\.[^.]*$/, "");
}

/** Where `text` appears in `s` as a whole token (not inside a longer word or number: "task1" is not in "task12"). */
function tokenAt(s: string, text: string): number {
  const lower = s.toLowerCase();
  const want = text.toLowerCase();
  for (let at = lower.indexOf(want); at >= 0; at = lower.indexOf(want, at + 1)) {
    const before = s[at - 1];
    const after = s[at + text.length];
    if (!(before && /[A-Za-z0-9]/.test(before)) && !(after && /[A-Za-z0-9]/.test(after))) return at;
  }
  return -1;
}

function containsToken(s: string, text: string): boolean {
  return tokenAt(s, text) >= 0;
}

/** The digit runs of a name, without the text `only` (whose own digits are not a step number) and raw marks. */
function digitRuns(name: string, only: string | null): number[] {
  let s = stem(name).replace(RAW_MARK, "_");
  const at = only === null ? -1 : tokenAt(s, only);
  if (at >= 0) s = `${s.slice(0, at)}_${s.slice(at + only!.length)}`;
  return (s.match(/\d+/g) ?? []).map(Number);
}

function numberAt(name: string, position: "last" | "first", only: string | null): number | null {
  const runs = digitRuns(name, only);
  if (!runs.length) return null;
  return position === "last" ? runs[runs.length - 1]! : runs[0]!;
}

/** The last number in the names when it tells them apart, else the first when that does. */
function numberPosition(names: string[], only: string | null): "last" | "first" {
  const distinct = (position: "last" | "first") => {
    const seen = names.map((n) => numberAt(n, position, only)).filter((n): n is number => n !== null);
    return new Set(seen).size === seen.length;
  };
  return distinct("last") || !distinct("first") ? "last" : "first";
}
