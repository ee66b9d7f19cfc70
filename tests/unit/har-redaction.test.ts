import { describe, expect, it } from "vitest";
import { redactHar, REDACTED } from "../../server/domain/live/har-redaction";

describe("a live run's HAR keeps no credentials (security review 2, L1)", () => {
  it("replaces the values of Cookie, Set-Cookie, Authorization and Proxy-Authorization, and of the cookie lists, keeping names", () => {
    const har = {
      log: {
        entries: [
          {
            request: {
              headers: [
                { name: "Cookie", value: "labsession=SUPERSECRET-COOKIE-VALUE" },
                { name: "authorization", value: "Bearer sk-X" },
                { name: "Proxy-Authorization", value: "Basic dmVyZGljdDpwdw==" },
                { name: "Accept", value: "text/html" },
              ],
              cookies: [{ name: "labsession", value: "SUPERSECRET-COOKIE-VALUE" }],
            },
            response: {
              headers: [{ name: "set-cookie", value: "labsession=NEW-SECRET; HttpOnly" }],
              cookies: [{ name: "labsession", value: "NEW-SECRET", httpOnly: true }],
            },
          },
          { request: {}, response: null },
        ],
      },
    };
    expect(redactHar(har)).toBe(6);
    const text = JSON.stringify(har);
    expect(text).not.toMatch(/SECRET|sk-X|dmVyZGljdDpwdw/);
    expect(har.log.entries[0]!.request.headers!.map((h) => h.value)).toEqual([REDACTED, REDACTED, REDACTED, "text/html"]);
    expect(har.log.entries[0]!.response!.cookies[0]).toEqual({ name: "labsession", value: REDACTED, httpOnly: true });
    // Twice is the same.
    expect(redactHar(har)).toBe(0);
    expect(redactHar(null)).toBe(0);
  });
});
