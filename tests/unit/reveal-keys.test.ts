import { describe, expect, it } from "vitest";
import { REVEAL_SHORTCUTS, revealCommandForKey } from "../../server/domain/agreement/reveal-keys";
import { SHORTCUTS as PLAYER_SHORTCUTS } from "../../server/domain/player/keyboard";
import { LABEL_SHORTCUTS } from "../../server/domain/annotation/label-keys";

const key = (k: string, extra: object = {}) => ({ key: k, ...extra });
const opts = { categories: 3, revising: false };

describe("reveal panel keys", () => {
  it("c keeps, v revises, n writes the reason, Ctrl/Cmd+Enter confirms (also from the reason field, never on repeat)", () => {
    expect(revealCommandForKey(key("c"), null, opts)).toEqual({ kind: "keep" });
    expect(revealCommandForKey(key("v"), null, opts)).toEqual({ kind: "revise" });
    expect(revealCommandForKey(key("n"), null, opts)).toEqual({ kind: "focusReason" });
    expect(revealCommandForKey(key("Enter", { ctrlKey: true }), { tagName: "TEXTAREA" }, opts)).toEqual({ kind: "confirm" });
    expect(revealCommandForKey(key("Enter", { metaKey: true, repeat: true }), null, opts)).toBeNull();
    expect(revealCommandForKey(key("c"), { tagName: "TEXTAREA" }, opts)).toBeNull();
  });

  it("verdict, category and failing step only while revising, categories within the campaign's", () => {
    expect(revealCommandForKey(key("x"), null, opts)).toBeNull();
    const revising = { categories: 3, revising: true };
    expect(revealCommandForKey(key("x"), null, revising)).toEqual({ kind: "verdict", verdict: "failure" });
    expect(revealCommandForKey(key("s"), null, revising)).toEqual({ kind: "verdict", verdict: "success" });
    expect(revealCommandForKey(key("3"), null, revising)).toEqual({ kind: "category", index: 2 });
    expect(revealCommandForKey(key("4"), null, revising)).toBeNull();
    expect(revealCommandForKey(key("f"), null, revising)).toEqual({ kind: "markFirstFailing" });
  });

  it("keep and revise use no key of the player (both listen on the window)", () => {
    const playerKeys = new Set(PLAYER_SHORTCUTS.flatMap((s) => s.keys));
    for (const k of ["c", "v", "n"]) expect(playerKeys.has(k)).toBe(false);
    expect(REVEAL_SHORTCUTS.map((s) => s.keys[0])).toContain("c");
    // Same meaning as on the label panel where the keys are shared.
    expect(LABEL_SHORTCUTS.find((s) => s.keys[0] === "s")!.description).toBe("Success");
  });
});
