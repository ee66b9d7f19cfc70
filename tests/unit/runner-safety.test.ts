import { describe, expect, it } from "vitest";
import {
  actionNavigationTarget,
  blockedElementText,
  defaultAllowlist,
  hostAllowed,
  isIpLiteral,
  isLoopbackName,
  isPrivateAddress,
  normaliseHostEntry,
  originKey,
  parseHostList,
  parseTextList,
} from "../../server/domain/runner/safety";
import type { SomElement } from "../../server/domain/types";

describe("private addresses", () => {
  const cases: [string, boolean][] = [
    ["127.0.0.1", true],
    ["127.255.0.9", true],
    ["10.1.2.3", true],
    ["172.16.0.1", true],
    ["172.31.255.255", true],
    ["172.32.0.1", false],
    ["192.168.1.10", true],
    ["169.254.169.254", true],
    ["100.64.0.1", true],
    ["100.128.0.1", false],
    ["0.0.0.0", true],
    ["224.0.0.1", true],
    ["8.8.8.8", false],
    ["93.184.216.34", false],
    ["::1", true],
    ["[::1]", true],
    ["::", true],
    ["fe80::1", true],
    ["fd12:3456::1", true],
    ["fc00::", true],
    ["::ffff:10.0.0.1", true],
    ["::ffff:127.0.0.1", true],
    ["::ffff:8.8.8.8", false],
    ["2001:db8::1", true],
    ["2606:4700::1111", false],
    ["example.com", false],
    ["999.1.1.1", false],
  ];
  it.each(cases)("%s → %s", (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });

  it("knows IP literals and loopback names", () => {
    expect(isIpLiteral("10.0.0.1")).toBe(true);
    expect(isIpLiteral("[fe80::1]")).toBe(true);
    expect(isIpLiteral("localhost")).toBe(false);
    expect(isLoopbackName("localhost")).toBe(true);
    expect(isLoopbackName("app.localhost.")).toBe(true);
    expect(isLoopbackName("localhost.example.com")).toBe(false);
  });
});

describe("host allowlist", () => {
  it("normalises entries from hosts and URLs, and rejects what is not a host", () => {
    expect(normaliseHostEntry(" Example.COM ")).toBe("example.com");
    expect(normaliseHostEntry("https://www.allrecipes.com/recipes/x")).toBe("www.allrecipes.com");
    expect(normaliseHostEntry("http://127.0.0.1:4517/shop/")).toBe("127.0.0.1:4517");
    expect(normaliseHostEntry("*.example.org")).toBe("*.example.org");
    expect(normaliseHostEntry("not a host")).toBeNull();
    expect(parseHostList("a.com, b.org\nhttp://c.net/x  a.com ex!ample @@")).toEqual({ hosts: ["a.com", "b.org", "c.net"], invalid: ["ex!ample", "@@"] });
  });

  it("defaults to the start URL's host without www.", () => {
    expect(defaultAllowlist("https://www.allrecipes.com/")).toEqual(["allrecipes.com"]);
    expect(defaultAllowlist("http://127.0.0.1:4517/recipes/")).toEqual(["127.0.0.1"]);
    expect(defaultAllowlist(null)).toEqual([]);
    expect(defaultAllowlist("__SHOPPING__/x")).toEqual([]);
  });

  const cases: [string, string[], boolean][] = [
    ["https://allrecipes.com/x", ["allrecipes.com"], true],
    ["https://www.allrecipes.com/x", ["allrecipes.com"], true],
    ["https://evilallrecipes.com/", ["allrecipes.com"], false],
    ["https://allrecipes.com.evil.net/", ["allrecipes.com"], false],
    ["https://a.example.org/", ["*.example.org"], true],
    ["https://example.org/", ["*.example.org"], false],
    ["http://127.0.0.1:4517/shop/", ["127.0.0.1:4517"], true],
    ["http://127.0.0.1:9999/", ["127.0.0.1:4517"], false],
    ["https://site.com/", ["site.com:443"], true],
    ["http://site.com/", ["site.com:443"], false],
    ["http://localhost:4517/", ["127.0.0.1"], false],
  ];
  it.each(cases)("%s with %j → %s", (url, list, expected) => {
    expect(hostAllowed(new URL(url), list)).toBe(expected);
  });

  it("keys origins with their default port", () => {
    expect(originKey(new URL("http://127.0.0.1:4517/a"))).toBe("127.0.0.1:4517");
    expect(originKey(new URL("https://Example.com/"))).toBe("example.com:443");
  });
});

describe("element text blocklist", () => {
  const elements: SomElement[] = [
    { label: "0", bbox: [0, 0, 10, 10], tag: "button", text: "Place   Order" },
    { label: "1", bbox: [0, 0, 10, 10], tag: "a", text: "Order history" },
    { label: "2", bbox: [0, 0, 10, 10], tag: "button", text: "Delete account" },
    { label: "3", bbox: [0, 0, 10, 10], tag: "input", text: null },
  ];
  const list = parseTextList("place order\n\nDelete\n delete ");

  it("splits one entry per line, without duplicates", () => {
    expect(list).toEqual(["place order", "Delete", "delete"]);
  });

  it("refuses clicks and typing on matching elements, case and spacing aside", () => {
    expect(blockedElementText({ type: "click", target: "0" }, elements, list)).toBe("place order");
    expect(blockedElementText({ type: "type", target: "2", value: "x" }, elements, list)).toBe("Delete");
  });

  it("lets other elements, text-less ones and harmless actions through", () => {
    expect(blockedElementText({ type: "click", target: "1" }, elements, list)).toBeNull();
    expect(blockedElementText({ type: "click", target: "3" }, elements, list)).toBeNull();
    expect(blockedElementText({ type: "hover", target: "0" }, elements, list)).toBeNull();
    expect(blockedElementText({ type: "scroll", target: "2", direction: "down" }, elements, list)).toBeNull();
    expect(blockedElementText({ type: "click", target: "0" }, elements, [])).toBeNull();
  });
});

describe("navigation targets of actions", () => {
  it("resolves goto and new_tab URLs against the current page; other actions have none", () => {
    expect(actionNavigationTarget({ type: "goto", value: "http://evil.example/" }, "http://a.com/")?.href).toBe("http://evil.example/");
    expect(actionNavigationTarget({ type: "goto", value: "/cart" }, "http://a.com/shop/")?.href).toBe("http://a.com/cart");
    expect(actionNavigationTarget({ type: "new_tab", value: "b.org/x" }, "http://a.com/")?.href).toBe("https://b.org/x");
    expect(actionNavigationTarget({ type: "new_tab" }, "http://a.com/")).toBeNull();
    expect(actionNavigationTarget({ type: "click", target: "1" }, "http://a.com/")).toBeNull();
  });
});
