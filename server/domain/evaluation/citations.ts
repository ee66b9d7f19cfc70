/**
 * Citations: the steps, and regions of their screenshots, a judge says its verdict rests on. Reviewers check a
 * verdict by its evidence, so the player links each citation to its step with the region drawn; a citation Verdict
 * cannot check (a step the trajectory does not have, a box outside the screenshot, a line without a step number)
 * is kept with its problem and counted, never dropped or corrected.
 *
 * The judge writes one line per cited step, after its reasoning:
 *   Evidence: step 4 [120, 80, 460, 140] — the order confirmation with the order number
 * The box is optional (x1, y1, x2, y2 in the pixels of the screenshot as the judge was sent it). Pure.
 */

/** The lines a prompt adds to its answer form to ask for citations. */
export const CITATION_INSTRUCTIONS = [
  "Cite the steps your verdict rests on, one line each, before the verdict line:",
  "Evidence: step <number> — <what that step shows>",
  "Use the step numbers given above. When one region of a screenshot is the evidence, add its box in the pixels of",
  "the screenshot as you see it, right after the step number: Evidence: step <number> [x1, y1, x2, y2] — <what it shows>",
].join("\n");

export type CitationBox = [number, number, number, number];

export interface ParsedCitation {
  /** 1-based, in the order the reply gave them. */
  position: number;
  /** The step number written; null when the line has none. */
  stepNumber: number | null;
  box: CitationBox | null;
  note: string | null;
  /** A problem found while reading the line (no step number, a malformed box). */
  problem: string | null;
}

const EVIDENCE_LINE = /^[\s*_#>`-]*evidence[\s*_`]*:[\s*_`]*(.*)$/i;
const STEP_REF = /^steps?\s*#?\s*(\d+)\b\s*(.*)$/i;
const BOX = /^[[(]\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*[\])]\s*(.*)$/;
const LOOSE_BOX = /^[[(][^\])]*[\])]\s*(.*)$/;

function noteOf(rest: string): string | null {
  const t = rest.replace(/^[\s—–:,-]+/, "").trim();
  return t ? t.slice(0, 500) : null;
}

/** Every "Evidence:" line of a reply, in order. Lines whose step number or box cannot be read carry a problem. */
export function parseCitations(reply: string | null | undefined): ParsedCitation[] {
  const out: ParsedCitation[] = [];
  for (const line of (reply ?? "").replace(/\r\n?/g, "\n").split("\n")) {
    const m = EVIDENCE_LINE.exec(line);
    if (!m) continue;
    const body = m[1]!.trim();
    const position = out.length + 1;
    const ref = STEP_REF.exec(body);
    if (!ref) {
      out.push({ position, stepNumber: null, box: null, note: noteOf(body), problem: "no step number" });
      continue;
    }
    const stepNumber = Number(ref[1]);
    let rest = ref[2]!.trim();
    let box: CitationBox | null = null;
    let problem: string | null = null;
    const b = BOX.exec(rest);
    if (b) {
      box = [Number(b[1]), Number(b[2]), Number(b[3]), Number(b[4])];
      rest = b[5]!;
    } else if (/^[[(]/.test(rest)) {
      problem = `box ${rest.slice(0, rest.search(/[\])]/) + 1 || 40)} is not four numbers x1, y1, x2, y2`;
      rest = LOOSE_BOX.exec(rest)?.[1] ?? rest;
    }
    out.push({ position, stepNumber, box, note: noteOf(rest), problem });
  }
  return out;
}

/** What Verdict knows of a step to check a citation: its stored index and the screenshot size the judge was sent. */
export interface CitableStep {
  index: number;
  /** Size of the screenshot as sent to the judge; null when the judge was not sent this step's screenshot. */
  sent: { width: number; height: number } | null;
  /** Size of the stored screenshot (the player draws boxes in these pixels); null when the step has none. */
  stored: { width: number; height: number } | null;
}

export interface CheckedCitation extends ParsedCitation {
  /** The step's stored index; null when the number names no step. */
  stepIndex: number | null;
  /** The box in the stored screenshot's pixels (scaled from the size sent), for drawing; null without one. */
  storedBox: CitationBox | null;
}

function formatBox(b: CitationBox): string {
  return `[${b.join(", ")}]`;
}

/**
 * Checks citations against the trajectory: `steps` in prompt order (step number n is steps[n - 1]). A step
 * number outside 1..steps.length names no step; a box must have x1 < x2, y1 < y2 and lie within the screenshot
 * the judge was sent (a box on a step whose screenshot it was not sent cannot be checked).
 */
export function checkCitations(citations: ParsedCitation[], steps: CitableStep[]): CheckedCitation[] {
  return citations.map((c) => {
    if (c.stepNumber === null) return { ...c, stepIndex: null, storedBox: null };
    const step = c.stepNumber >= 1 ? steps[c.stepNumber - 1] : undefined;
    if (!step) {
      return {
        ...c,
        stepIndex: null,
        storedBox: null,
        problem: c.problem ?? `step ${c.stepNumber} does not exist (the trajectory has ${steps.length} step${steps.length === 1 ? "" : "s"})`,
      };
    }
    if (!c.box || c.problem) return { ...c, stepIndex: step.index, storedBox: null };
    const [x1, y1, x2, y2] = c.box;
    if (!(x1 < x2 && y1 < y2)) return { ...c, stepIndex: step.index, storedBox: null, problem: `box ${formatBox(c.box)} is empty or reversed` };
    if (!step.sent)
      return {
        ...c,
        stepIndex: step.index,
        storedBox: null,
        problem: `box ${formatBox(c.box)} on step ${c.stepNumber}, whose screenshot the judge was not sent`,
      };
    const { width, height } = step.sent;
    if (x1 < 0 || y1 < 0 || x2 > width || y2 > height) {
      return {
        ...c,
        stepIndex: step.index,
        storedBox: null,
        problem: `box ${formatBox(c.box)} lies outside the ${width}×${height} screenshot of step ${c.stepNumber}`,
      };
    }
    const stored = step.stored ?? step.sent;
    const fx = stored.width / width;
    const fy = stored.height / height;
    const storedBox: CitationBox = [Math.round(x1 * fx), Math.round(y1 * fy), Math.round(x2 * fx), Math.round(y2 * fy)];
    return { ...c, stepIndex: step.index, storedBox };
  });
}

/** How many citations could not be checked. */
export function unverifiableCount(citations: Pick<ParsedCitation, "problem">[]): number {
  return citations.filter((c) => c.problem !== null).length;
}

/** The player's `?region=x1,y1,x2,y2` (a cited box in the stored screenshot's pixels); null when absent or malformed. */
export function parseRegionParam(text: string | null | undefined): CitationBox | null {
  const m = /^(\d{1,6}),(\d{1,6}),(\d{1,6}),(\d{1,6})$/.exec(text ?? "");
  if (!m) return null;
  const box = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])] as CitationBox;
  return box[0] < box[2] && box[1] < box[3] ? box : null;
}
