/** Imported URLs become links only when they are http(s) (L3: no data:, javascript: or file: links from imports). */
import { describe, expect, it } from "vitest";
import { isWebUrl } from "../../app/_components/web-link";

describe("isWebUrl", () => {
  it("accepts http and https, in any case", () => {
    expect(["https://example.org/a.png", "http://127.0.0.1:9999/beacon.png", "HTTPS://EXAMPLE.ORG/"].map(isWebUrl)).toEqual([true, true, true]);
  });
  it("refuses every other scheme and anything that is not a URL", () => {
    const bad = ["javascript:alert(1)", "data:text/html,<b>x</b>", "file:///etc/passwd", "ftp://example.org/x", "images/input.png", "/abs/path.png", ""];
    expect(bad.map(isWebUrl)).toEqual(bad.map(() => false));
  });
});
