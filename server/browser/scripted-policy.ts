/**
 * A policy that replays a fixed list of actions: for demo data, tests and the runner's "scripted" policy.
 *
 * Set-of-Marks labels depend on the page as rendered, so a script may name an element by its text instead of its
 * number: `Click [{{Add to cart}}]` becomes `Click [7]` when element 7's text is "Add to cart". `{{input:Search}}`
 * also requires the tag, and `{{Vegetarian#2}}` takes the second match. Exact text matches win over partial ones;
 * ties go in reading order.
 * Anything outside the braces is replayed verbatim, so scripts can also contain deliberate mistakes.
 */
import type { SomElement } from "../domain/types";
import type { Policy, PolicyDecision, PolicyObservation } from "./policy";

export type ScriptEntry =
  | string
  | {
      thought?: string;
      /** Action text (with optional `{{…}}` element references) or a function computing it from the observation. */
      action: string | ((obs: PolicyObservation) => string);
    };

export class ScriptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ScriptError";
  }
}

const REF = /\{\{\s*(?:([a-z][a-z0-9-]*):)?([^}]+?)\s*\}\}/g; // tag names are lower case: "Price: low" is text

/** The label of the element a `{{tag:text#n}}` reference names (n-th match, 1-based), or null. */
export function findElementLabel(elements: SomElement[], text: string, tag?: string | null): string | null {
  const nth = /#(\d+)$/.exec(text.trim());
  const index = nth ? Number(nth[1]) - 1 : 0;
  const wanted = (nth ? text.trim().slice(0, nth.index) : text).trim().toLowerCase();
  const pool = tag ? elements.filter((e) => (e.tag ?? "").toLowerCase() === tag.toLowerCase()) : elements;
  const exact = pool.filter((e) => (e.text ?? "").trim().toLowerCase() === wanted);
  const matches = exact.length > 0 ? exact : pool.filter((e) => (e.text ?? "").toLowerCase().includes(wanted));
  return matches[index]?.label ?? null;
}

/** Replaces every `{{…}}` reference with the label it names; throws ScriptError when one matches nothing. */
export function resolveElementReferences(actionText: string, obs: Pick<PolicyObservation, "elements" | "url" | "stepIndex">): string {
  return actionText.replace(REF, (_all, tag: string | undefined, text: string) => {
    const label = findElementLabel(obs.elements, text, tag);
    if (label === null) {
      throw new ScriptError(`script step ${obs.stepIndex}: no ${tag ? `<${tag}> ` : ""}element matching "${text}" on ${obs.url}`);
    }
    return label;
  });
}

export function createScriptedPolicy(script: ScriptEntry[], name = "scripted"): Policy {
  let next = 0;
  return {
    name,
    async nextAction(obs: PolicyObservation): Promise<PolicyDecision> {
      const entry = script[next];
      if (entry === undefined) {
        throw new ScriptError(`the script has ${script.length} actions and none left for step ${obs.stepIndex}`);
      }
      next++;
      const { thought, action } = typeof entry === "string" ? { thought: undefined, action: entry } : entry;
      const text = typeof action === "function" ? action(obs) : action;
      return { thought: thought ?? null, actionRaw: resolveElementReferences(text, obs) };
    },
  };
}
