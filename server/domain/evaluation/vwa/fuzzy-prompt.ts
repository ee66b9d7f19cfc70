/**
 * Prompts for the two LLM-graded string checks of VisualWebArena, asked through Verdict's judge endpoint:
 * - semantic: does the agent's answer mean the same as a reference answer (`fuzzy_match`)?
 * - unachievable: the task cannot be done; does the agent's stated reason agree with the real one (`fuzzy_match: "N/A"`)?
 * Verdict's own wording; versioned with the rule evaluator. Replies are parsed strictly: a final "Match: YES|NO" line.
 */

export type FuzzyMatchRequest =
  { kind: "semantic"; intent: string; reference: string; prediction: string } | { kind: "unachievable"; intent: string; reason: string; prediction: string };

export interface FuzzyMatchResult {
  /** Null when the judge's reply could not be read as YES or NO. */
  match: boolean | null;
  /** The judge's reply as received. */
  raw: string;
}

/** The grading call, injected so evaluators stay pure (the service passes one backed by a judge configuration). */
export type FuzzyMatcher = (request: FuzzyMatchRequest) => Promise<FuzzyMatchResult>;

export function buildFuzzyMatchPrompt(req: FuzzyMatchRequest): { system: string; user: string } {
  if (req.kind === "semantic") {
    return {
      system: [
        "You grade short answers. Given a question, a reference answer and a candidate answer, decide whether the",
        "candidate says the same thing as the reference. Wording, formatting, units written differently and extra",
        "harmless detail do not matter; a different fact, a missing part of the reference, or hedging between",
        "several answers does. The string N/A means the question cannot be answered.",
        'End with a line that is exactly "Match: YES" or "Match: NO".',
      ].join(" "),
      user: `Question: ${req.intent}\nReference answer: ${req.reference}\nCandidate answer: ${req.prediction}`,
    };
  }
  return {
    system: [
      "A task was given to an agent, but the task cannot be accomplished, for a known reason. The agent gave up and",
      "reported its own reason. Decide whether the agent's reason agrees with the known reason, even if it says so",
      "only implicitly or in other words. A reason that points at something else, or no reason at all, does not agree.",
      'End with a line that is exactly "Match: YES" or "Match: NO".',
    ].join(" "),
    user: `Task: ${req.intent}\nKnown reason it cannot be done: ${req.reason}\nAgent's reported reason: ${req.prediction}`,
  };
}

const MATCH_LINE = /^[\s*_`]*match[\s*_`]*:[\s*_`]*(yes|no)[\s*_`.!]*$/i;

export function parseFuzzyMatchReply(reply: string | null | undefined): boolean | null {
  const found = new Set<string>();
  for (const line of (reply ?? "").split(/\r?\n/)) {
    const m = MATCH_LINE.exec(line);
    if (m) found.add(m[1]!.toLowerCase());
  }
  if (found.size !== 1) return null;
  return found.has("yes");
}
