/**
 * VERDICT_DEMO_PORT is typed by the configuration schema like every other port: a number, or off; a bad value stops
 * the process with the variable named, as the other variables do, instead of a parser of its own beside the demo sites.
 */
import { describe, expect, it } from "vitest";
import { DEMO_SITES_DEFAULT_PORT, demoSitesPort, readEnvironment } from "../../server/config";

describe("VERDICT_DEMO_PORT", () => {
  it("is 4517 unless set, a port when set, and null when the demo sites are off", () => {
    expect(DEMO_SITES_DEFAULT_PORT).toBe(4517);
    expect(demoSitesPort({})).toBe(4517);
    expect(demoSitesPort({ VERDICT_DEMO_PORT: "" })).toBe(4517);
    expect(demoSitesPort({ VERDICT_DEMO_PORT: " 4600 " })).toBe(4600);
    expect(demoSitesPort({ VERDICT_DEMO_PORT: "0" })).toBe(0);
    for (const off of ["off", "OFF", "none", "no"]) expect(demoSitesPort({ VERDICT_DEMO_PORT: off })).toBeNull();
    expect(readEnvironment({ VERDICT_DEMO_PORT: "off" }).VERDICT_DEMO_PORT).toBeNull();
  });

  it("refuses what is not a port, naming the variable", () => {
    for (const bad of ["4517x", "-1", "65536", "1.5", "yes"]) {
      expect(() => demoSitesPort({ VERDICT_DEMO_PORT: bad }), bad).toThrow(/VERDICT_DEMO_PORT must be a port number or "off", got /);
    }
  });
});
