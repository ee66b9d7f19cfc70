import { describe, expect, it } from "vitest";
import { LIST_SHORTCUTS, listCommandForKey } from "../../server/domain/trajectory-list-keyboard";

const body = { tagName: "BODY" };

describe("listCommandForKey", () => {
  it("maps j/k, the arrows, x, o, Enter, ? and Esc", () => {
    expect(listCommandForKey({ key: "j" }, body)).toBe("down");
    expect(listCommandForKey({ key: "ArrowDown" }, body)).toBe("down");
    expect(listCommandForKey({ key: "k" }, body)).toBe("up");
    expect(listCommandForKey({ key: "ArrowUp" }, body)).toBe("up");
    expect(listCommandForKey({ key: "x" }, body)).toBe("toggle");
    expect(listCommandForKey({ key: "X", shiftKey: false }, body)).toBe("toggle");
    expect(listCommandForKey({ key: "o" }, body)).toBe("open");
    expect(listCommandForKey({ key: "Enter" }, body)).toBe("open");
    expect(listCommandForKey({ key: "?", shiftKey: true }, body)).toBe("toggleHelp");
    expect(listCommandForKey({ key: "Escape" }, body)).toBe("close");
    expect(listCommandForKey({ key: "q" }, body)).toBeNull();
  });

  it("leaves keys alone while typing, with modifiers, and Enter on a focused control", () => {
    expect(listCommandForKey({ key: "x" }, { tagName: "INPUT", type: "search" })).toBeNull();
    expect(listCommandForKey({ key: "j" }, { tagName: "SELECT" })).toBeNull();
    expect(listCommandForKey({ key: "x", ctrlKey: true }, body)).toBeNull();
    expect(listCommandForKey({ key: "X", shiftKey: true }, body)).toBeNull();
    expect(listCommandForKey({ key: "Enter" }, { tagName: "A" })).toBeNull();
    expect(listCommandForKey({ key: "Enter" }, { tagName: "BUTTON" })).toBeNull();
    // A checkbox takes no text: x and j still work after clicking one.
    expect(listCommandForKey({ key: "x" }, { tagName: "INPUT", type: "checkbox" })).toBe("toggle");
  });

  it("the help lists every command once", () => {
    expect(new Set(LIST_SHORTCUTS.map((s) => s.command)).size).toBe(LIST_SHORTCUTS.length);
  });
});
