import { describe, expect, it } from "vitest";
import {
  actionNavigationTarget,
  addressKind,
  egressRefusal,
  parseDestinationList,
  blockedElementText,
  defaultAllowlist,
  hostAllowed,
  isIpLiteral,
  isLoopbackName,
  isPrivateAddress,
  metadataService,
  normaliseHostEntry,
  originKey,
  parseHostList,
  parseTextList,
} from "../../server/domain/live/safety";
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

describe("address kinds", () => {
  const cases: [string, ReturnType<typeof addressKind>][] = [
    ["127.0.0.1", "loopback"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"], // the same, as Chromium writes it
    ["::127.0.0.1", "loopback"], // IPv4-compatible
    ["64:ff9b::7f00:1", "loopback"], // NAT64
    ["2002:7f00:1::", "loopback"], // 6to4
    ["10.0.0.8", "private"],
    ["::ffff:192.168.0.1", "private"],
    ["100.100.0.1", "carrier-grade NAT"],
    ["169.254.169.254", "link-local"],
    ["::ffff:169.254.169.254", "link-local"],
    ["fe80::1", "link-local"],
    ["fd00::1", "unique-local"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["239.1.2.3", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["198.18.0.1", "reserved"],
    ["8.8.8.8", null],
    ["192.0.2.1", null],
    ["2606:4700::1111", null],
    ["::ffff:8.8.8.8", null],
  ];
  it.each(cases)("%s → %s", (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });
});

describe("egress rules (what the runner's proxy lets the browser connect to)", () => {
  const strict = { allowedDestinations: ["127.0.0.1:4517", "localhost:4517", "wiki.internal:8080"] };

  it("refuses every non-public address, naming its kind, and says when a name resolved to it", () => {
    expect(egressRefusal("127.0.0.1", 9997, "127.0.0.1", strict)).toBe("loopback");
    expect(egressRefusal("::1", 80, "::1", strict)).toBe("loopback");
    expect(egressRefusal("::ffff:7f00:1", 80, "::ffff:7f00:1", strict)).toBe("loopback");
    expect(egressRefusal("metadata.example", 80, "169.254.169.254", strict)).toBe("resolves to 169.254.169.254, cloud metadata service");
    expect(egressRefusal("linklocal.example", 80, "169.254.1.1", strict)).toBe("resolves to 169.254.1.1, link-local");
    expect(egressRefusal("rebind.test", 80, "127.0.0.1", strict)).toBe("resolves to 127.0.0.1, loopback");
    expect(egressRefusal("example.com", 443, "93.184.216.34", strict)).toBeNull();
    expect(egressRefusal("example.com", 443, "not-an-address", strict)).toBe("not-an-address is not an IP address");
  });

  it("allows the explicit destinations on their port only, by the name asked for or the address connected to", () => {
    expect(egressRefusal("127.0.0.1", 4517, "127.0.0.1", strict)).toBeNull();
    expect(egressRefusal("localhost", 4517, "::1", strict)).toBeNull();
    expect(egressRefusal("anything.test", 4517, "127.0.0.1", strict)).toBeNull(); // the demo server is what it reaches
    expect(egressRefusal("127.0.0.1", 4518, "127.0.0.1", strict)).toBe("loopback");
    expect(egressRefusal("wiki.internal", 8080, "10.1.2.3", strict)).toBeNull();
    expect(egressRefusal("wiki.internal", 22, "10.1.2.3", strict)).toBe("resolves to 10.1.2.3, private");
    expect(egressRefusal("[::1]", 4517, "::1", { allowedDestinations: ["[::1]:4517"] })).toBeNull();
  });

  it("review 2, N2: refuses cloud metadata services even when listed, in every spelling and behind names", () => {
    const listed = { allowedDestinations: ["169.254.169.254:80", "[fd00:ec2::254]:80", "100.100.100.200:80", "meta.lab:80", "168.63.129.16:80"] };
    expect(egressRefusal("169.254.169.254", 80, "169.254.169.254", listed)).toBe("cloud metadata service");
    expect(egressRefusal("fd00:ec2::254", 80, "fd00:ec2::254", listed)).toBe("cloud metadata service");
    expect(egressRefusal("[fd00:ec2:0:0:0:0:0:254]", 80, "fd00:ec2:0:0:0:0:0:254", listed)).toBe("cloud metadata service");
    expect(egressRefusal("100.100.100.200", 80, "100.100.100.200", listed)).toBe("cloud metadata service");
    expect(egressRefusal("::ffff:100.100.100.200", 80, "::ffff:100.100.100.200", listed)).toBe("cloud metadata service");
    expect(egressRefusal("2002:a9fe:a9fe::1", 80, "2002:a9fe:a9fe::1", listed)).toBe("cloud metadata service");
    expect(egressRefusal("meta.lab", 80, "169.254.169.254", listed)).toBe("resolves to 169.254.169.254, cloud metadata service");
    expect(egressRefusal("168.63.129.16", 80, "168.63.129.16", listed)).toBe("cloud metadata service");
    // Other addresses of the same ranges are still just what they are.
    expect(egressRefusal("100.100.100.201", 80, "100.100.100.201", listed)).toBe("carrier-grade NAT");
    expect(metadataService("100.100.100.200")).toBe("Alibaba Cloud metadata");
    expect(metadataService("fd00:ec2::254")).toBe("AWS IPv6 instance metadata");
    expect(metadataService("example.com")).toBeNull();
    expect(parseDestinationList("wiki.lab:8080, 169.254.169.254:80")).toEqual({
      destinations: ["wiki.lab:8080"],
      invalid: [],
      metadata: ["169.254.169.254:80"],
    });
  });

  it("names WebSocket origins with their default ports, as the demo-site exceptions are written", () => {
    expect(originKey(new URL("ws://127.0.0.1/socket"))).toBe("127.0.0.1:80");
    expect(originKey(new URL("wss://example.com/socket"))).toBe("example.com:443");
  });

  it("parses allowed destinations, which need a port", () => {
    expect(parseDestinationList("wiki.internal:8080, 10.0.0.5:443\nhttp://intranet:81/x")).toEqual({
      destinations: ["wiki.internal:8080", "10.0.0.5:443", "intranet:81"],
      invalid: [],
      metadata: [],
    });
    expect(parseDestinationList("wiki.internal *.corp:80 bad!host:1")).toEqual({
      destinations: [],
      invalid: ["bad!host:1", "wiki.internal", "*.corp:80"],
      metadata: [],
    });
  });
});
