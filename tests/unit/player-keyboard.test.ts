import { describe, expect, it } from "vitest";
import {
  commandForKey,
  COMMENTS_SHORTCUT,
  formKeyOf,
  isCommentsKey,
  isTypingTarget,
  keyFor,
  nextSpeed,
  playerKeysFor,
  playerShortcut,
  SHORTCUTS,
} from "../../server/domain/player/keyboard";

const body = { tagName: "BODY" };

describe("commandForKey", () => {
  it.each([
    ["ArrowLeft", "prev"],
    ["k", "prev"],
    ["ArrowRight", "next"],
    ["j", "next"],
    ["Home", "first"],
    ["End", "last"],
    [" ", "togglePlay"],
    ["o", "toggleOverlay"],
    ["O", "toggleOverlay"],
    ["a", "toggleAction"],
    ["r", "toggleRaw"],
    ["z", "toggleZoom"],
    ["e", "toggleEvaluations"],
    ["c", null],
    ["?", "toggleHelp"],
    ["Escape", "close"],
    ["+", "faster"],
    ["=", "faster"],
    ["-", "slower"],
    ["x", null],
    ["Enter", null],
  ])("%j → %s", (key, want) => {
    expect(commandForKey({ key }, body)).toBe(want);
  });

  it.each([
    ["input text", { tagName: "INPUT", type: "text" }],
    ["input search", { tagName: "INPUT", type: "search" }],
    ["input without type", { tagName: "INPUT" }],
    ["textarea", { tagName: "TEXTAREA" }],
    ["select", { tagName: "SELECT" }],
    ["contenteditable", { tagName: "DIV", isContentEditable: true }],
    ["ARIA textbox", { tagName: "DIV", role: "textbox" }],
  ])("never fires while typing in a %s", (_name, target) => {
    expect(isTypingTarget(target)).toBe(true);
    expect(commandForKey({ key: "j" }, target)).toBeNull();
    expect(commandForKey({ key: "ArrowRight" }, target)).toBeNull();
  });

  it("still works on a focused checkbox", () => {
    expect(commandForKey({ key: "o" }, { tagName: "INPUT", type: "checkbox" })).toBe("toggleOverlay");
  });

  it("leaves browser shortcuts alone", () => {
    expect(commandForKey({ key: "ArrowLeft", altKey: true }, body)).toBeNull();
    expect(commandForKey({ key: "r", ctrlKey: true }, body)).toBeNull();
    expect(commandForKey({ key: "k", metaKey: true }, body)).toBeNull();
    expect(commandForKey({ key: "R", shiftKey: true }, body)).toBeNull();
  });

  it("space on a focused button belongs to the button", () => {
    expect(commandForKey({ key: " " }, { tagName: "BUTTON" })).toBeNull();
    expect(commandForKey({ key: "j" }, { tagName: "BUTTON" })).toBe("next");
  });

  it("every listed shortcut maps to its command", () => {
    const keyName: Record<string, string> = { "←": "ArrowLeft", "→": "ArrowRight", Space: " ", Esc: "Escape" };
    for (const s of SHORTCUTS) {
      const mapped = s.keys.map((k) => commandForKey({ key: keyName[k] ?? k }, body));
      if (s.command === "faster") expect(mapped).toEqual(["slower", "faster"]);
      else expect(mapped.every((c) => c === s.command)).toBe(true);
    }
  });
});

describe("nextSpeed", () => {
  it("steps through the speed list and stops at its ends", () => {
    expect(nextSpeed(1, 1)).toBe(2);
    expect(nextSpeed(4, 1)).toBe(4);
    expect(nextSpeed(0.5, -1)).toBe(0.5);
    expect(nextSpeed(3, 1)).toBe(2);
  });
});

describe("one key map for the views that step through trajectories", () => {
  it("gives the player's keys for the commands asked, and the compare view reads them the same way", async () => {
    expect(playerKeysFor(["prev", "next", "close"])).toEqual({ ArrowLeft: "prev", k: "prev", ArrowRight: "next", j: "next", Escape: "close" });
    const { compareCommandForKey } = await import("../../app/compare/_lib/keyboard");
    for (const [key, command] of Object.entries(playerKeysFor(["prev", "next", "first", "last", "toggleOverlay", "toggleAction", "toggleHelp", "close"]))) {
      expect(compareCommandForKey({ key }, null)).toBe(command);
      expect(compareCommandForKey({ key, ctrlKey: true }, null)).toBeNull();
      expect(compareCommandForKey({ key }, { tagName: "INPUT" })).toBeNull();
    }
    expect(keyFor({ key: "K" }, null)).toBe("k");
    expect(keyFor({ key: "K", shiftKey: true }, null)).toBeNull();
  });

  it("lists the player's keys in another view's help, in that view's words where it says more", () => {
    expect(playerShortcut("prev", "Previous step, in every column")).toEqual({
      keys: ["←", "k"],
      command: "prev",
      description: "Previous step, in every column",
    });
    expect(playerShortcut("toggleOverlay")).toEqual({ keys: ["o"], command: "toggleOverlay", description: "Show / hide Set-of-Marks boxes" });
    expect(() => playerShortcut("slower")).toThrow(/"slower"/);
  });

  it("the compare view's help names the keys that do what it says", async () => {
    const { COMPARE_SHORTCUTS, compareCommandForKey } = await import("../../app/compare/_lib/keyboard");
    const eventKey: Record<string, string> = { "←": "ArrowLeft", "→": "ArrowRight", Esc: "Escape" };
    for (const row of COMPARE_SHORTCUTS) {
      for (const shown of row.keys) expect(compareCommandForKey({ key: eventKey[shown] ?? shown }, null), shown).toBe(row.command);
    }
    expect(COMPARE_SHORTCUTS.map((r) => r.command)).toEqual([
      "prev",
      "next",
      "first",
      "last",
      "byStep",
      "byUrl",
      "divergence",
      "toggleOverlay",
      "toggleAction",
      "toggleHelp",
      "close",
    ]);
  });
});

describe("formKeyOf (the labelling forms' shared key rules)", () => {
  const note = { tagName: "TEXTAREA" };
  it("submits on Ctrl or Cmd+Enter, from a text field too, but not on key repeat", () => {
    expect(formKeyOf({ key: "Enter", ctrlKey: true }, note)).toEqual({ submit: true });
    expect(formKeyOf({ key: "Enter", metaKey: true }, body)).toEqual({ submit: true });
    expect(formKeyOf({ key: "Enter", ctrlKey: true, repeat: true }, body)).toBeNull();
    expect(formKeyOf({ key: "Enter", ctrlKey: true, shiftKey: true }, body)).toBeNull();
  });
  it("gives other keys in lower case, and nothing while typing, with a modifier, on repeat or with Shift on a letter", () => {
    expect(formKeyOf({ key: "S" }, body)).toEqual({ submit: false, key: "s" });
    expect(formKeyOf({ key: "3" }, body)).toEqual({ submit: false, key: "3" });
    expect(formKeyOf({ key: "Escape" }, body)).toEqual({ submit: false, key: "Escape" });
    expect(formKeyOf({ key: "s" }, note)).toBeNull();
    expect(formKeyOf({ key: "s", altKey: true }, body)).toBeNull();
    expect(formKeyOf({ key: "s", repeat: true }, body)).toBeNull();
    expect(formKeyOf({ key: "S", shiftKey: true }, body)).toBeNull();
  });
});

describe("the comments key", () => {
  it("is c, on its own, never while typing (the comment box itself), with a modifier, Shift or on repeat", () => {
    expect(COMMENTS_SHORTCUT.keys).toEqual(["c"]);
    expect(isCommentsKey({ key: "c" }, body)).toBe(true);
    expect(isCommentsKey({ key: "c" }, { tagName: "TEXTAREA" })).toBe(false);
    expect(isCommentsKey({ key: "c", ctrlKey: true }, body)).toBe(false);
    expect(isCommentsKey({ key: "C", shiftKey: true }, body)).toBe(false);
    expect(isCommentsKey({ key: "c", repeat: true }, body)).toBe(false);
    expect(isCommentsKey({ key: "x" }, body)).toBe(false);
  });

  it("is not one of the player's own keys (the reveal and QA panels use c where the player leaves it to them)", () => {
    expect(SHORTCUTS.flatMap((s) => s.keys)).not.toContain("c");
  });
});
