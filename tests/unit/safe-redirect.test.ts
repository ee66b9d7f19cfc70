import { describe, expect, it } from "vitest";
import { safeNextPath } from "@/server/domain/safe-redirect";

describe("safeNextPath: where sign-in may send the user", () => {
  it("keeps same-site paths with their query and fragment", () => {
    expect(safeNextPath("/trajectories/3?step=2#x")).toBe("/trajectories/3?step=2#x");
    expect(safeNextPath("/annotate")).toBe("/annotate");
    expect(safeNextPath(["/campaigns", "/users"])).toBe("/campaigns");
    expect(safeNextPath("/./annotate")).toBe("/annotate");
    expect(safeNextPath("/a/../trajectories?x=//y")).toBe("/trajectories?x=//y");
  });
  it("refuses anything a browser could read as another origin", () => {
    const attacks = [
      "//evil.host/x",
      "/\\evil.host/x",
      "/%5Cevil.host/x",
      "/%5cevil.host/x",
      "/%2F%2Fevil.host",
      "/%2Fevil.host",
      "/%252F%252Fevil.host",
      "/\tevil",
      "/\n/evil.host",
      "https://evil.host/",
      "javascript:alert(1)",
      "evil.host",
      "/%E0%A4%A",
      // Dot segments the URL parser removes, leaving `//host` (security review 2, N4).
      "/.//evil.host/x",
      "/.%2F%2Fevil.host/x",
      "/./%2F/evil.host",
      "/a/..//evil.host",
      "/%2E//evil.host",
      "/.%5C/evil.host",
      "/./\\evil.host",
    ];
    for (const a of attacks) expect(safeNextPath(a), a).toBe("/");
  });
  it("never loops back to the sign-in page and defaults to home", () => {
    expect(safeNextPath("/sign-in?next=/x")).toBe("/");
    expect(safeNextPath(undefined)).toBe("/");
    expect(safeNextPath("")).toBe("/");
  });
});
