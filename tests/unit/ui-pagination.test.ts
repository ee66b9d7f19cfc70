import { describe, expect, it } from "vitest";
import { pageRangeText, pageWindow } from "../../app/_components/ui";

describe("pagination text", () => {
  it("gives the rows on screen and the total", () => {
    expect(pageRangeText(1, 50, 13)).toBe("1–13 of 13");
    expect(pageRangeText(2, 50, 230)).toBe("51–100 of 230");
    expect(pageRangeText(5, 50, 230)).toBe("201–230 of 230");
    expect(pageRangeText(1, 50, 0)).toBe("0 of 0");
  });

  it("says a page past the last one is past it, never an impossible range", () => {
    expect(pageRangeText(99, 50, 13)).toBe("Page 99 is past the last page (1) · 13 in all");
  });

  it("windows the page links around the current page", () => {
    expect(pageWindow(6, 20)).toEqual([1, null, 4, 5, 6, 7, 8, null, 20]);
  });
});
