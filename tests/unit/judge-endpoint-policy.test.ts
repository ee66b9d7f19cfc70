import { describe, expect, it } from "vitest";
import {
  endpointUrlRefusal,
  isAllowedKeyEnv,
  isLoopbackAddress,
  judgeHostPolicy,
  judgeKeyEnvSchema,
  keyDestination,
  keyMayGoTo,
  MAX_ENDPOINT_ERROR_CHARS,
  parseAllowedHosts,
  resolvedAddressRefusal,
  scrubEndpointError,
} from "../../server/domain/evaluation/judge-endpoint-policy";
import { ConfigError, judgeSettings } from "../../server/config";

/** The admins' settings as they write them: the environment's, read by the configuration, and the hosts saved through the API. */
interface Written {
  defaultBaseUrl?: string;
  allowedHosts?: string;
  allowLoopback?: string;
  saved?: { allowedHosts: readonly string[] };
}
const policyOf = (written: Written) => {
  const judge = judgeSettings({
    VERDICT_JUDGE_BASE_URL: written.defaultBaseUrl,
    VERDICT_JUDGE_ALLOWED_HOSTS: written.allowedHosts,
    VERDICT_JUDGE_ALLOW_LOOPBACK: written.allowLoopback,
  });
  const { policy, problems } = judgeHostPolicy({ ...judge, saved: written.saved });
  expect(problems).toEqual([]);
  return policy;
};
const refusal = (url: string, written: Written = {}) => endpointUrlRefusal(new URL(url), policyOf(written));

describe("judge key sources", () => {
  it("are the two shared variables and VERDICT_JUDGE_KEY_<SUFFIX>, nothing else", () => {
    for (const ok of ["VERDICT_JUDGE_API_KEY", "OPENAI_API_KEY", "VERDICT_JUDGE_KEY_VLLM", "VERDICT_JUDGE_KEY_TEAM_2"]) expect(isAllowedKeyEnv(ok)).toBe(true);
    for (const bad of ["VERDICT_DB", "VERDICT_AUTH_SECRET", "AWS_SECRET_ACCESS_KEY", "VERDICT_JUDGE_KEY_", "VERDICT_JUDGE_KEY_lower", "PATH"]) {
      expect(isAllowedKeyEnv(bad)).toBe(false);
    }
    const r = judgeKeyEnvSchema.safeParse("VERDICT_DB");
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toMatch(
      /apiKeyEnv "VERDICT_DB" is not an allowed key source: use VERDICT_JUDGE_API_KEY, OPENAI_API_KEY or .*VERDICT_JUDGE_KEY_<SUFFIX>/,
    );
  });
});

describe("judge endpoint host policy", () => {
  it("allows api.openai.com and the host of VERDICT_JUDGE_BASE_URL by default, and nothing else", () => {
    expect(refusal("https://api.openai.com/v1")).toBeNull();
    expect(refusal("https://judge.example.org/v1", { defaultBaseUrl: "https://judge.example.org/openai/v1" })).toBeNull();
    expect(refusal("https://evil.example.net/v1")).toMatch(
      /^judge endpoint host evil\.example\.net is not on the admins' allowlist \(api\.openai\.com\); an admin can add it to VERDICT_JUDGE_ALLOWED_HOSTS$/,
    );
    // Exact host names: a look-alike or a subdomain is another host.
    expect(refusal("https://api.openai.com.evil.net/v1")).not.toBeNull();
    expect(refusal("https://x.api.openai.com/v1")).not.toBeNull();
  });

  it("takes extra hosts from VERDICT_JUDGE_ALLOWED_HOSTS, with the port pinned when given", () => {
    const settings = { allowedHosts: " vllm.lab.internal:8000 , ollama.lab.internal" };
    expect(refusal("http://vllm.lab.internal:8000/v1", settings)).toBeNull();
    expect(refusal("http://vllm.lab.internal:8001/v1", settings)).toMatch(/vllm\.lab\.internal:8001 is not on the admins' allowlist/);
    expect(refusal("http://ollama.lab.internal:11434/v1", settings)).toBeNull();
    // A wrong list is refused where the configuration reads it, at start-up, naming the variable and each wrong entry.
    expect(() => judgeSettings({ VERDICT_JUDGE_ALLOWED_HOSTS: "ok.example, http://x.example/, *.wild.example, bad host" })).toThrow(
      new ConfigError([
        'VERDICT_JUDGE_ALLOWED_HOSTS entry "http://x.example/" is not a host or host:port; entry "*.wild.example" is not a host or host:port; ' +
          'entry "bad host" is not a host or host:port',
      ]),
    );
    expect(() => judgeSettings({ VERDICT_JUDGE_ALLOW_LOOPBACK: "maybe" })).toThrow(
      new ConfigError(['VERDICT_JUDGE_ALLOW_LOOPBACK "maybe" is not a TCP port (2–65535) or range (8000-8010); list ports such as 8000,11434']),
    );
    expect(() => judgeSettings({ VERDICT_JUDGE_ALLOW_LOOPBACK: "1" })).toThrow(
      /^VERDICT_JUDGE_ALLOW_LOOPBACK lists the ports of the judge servers on this machine/,
    );
    // The policy still names entries it is given that are not hosts.
    expect(judgeHostPolicy({ allowedHosts: ["ok.example", "bad host"] }).problems).toEqual([
      'VERDICT_JUDGE_ALLOWED_HOSTS entry "bad host" is not a host or host:port',
    ]);
  });

  it("adds what admins saved through the admin API to the environment's settings", () => {
    expect(parseAllowedHosts([" GPU-Box.Lab:8000 ", "gpu-box.lab:8000", "", "a b", "x.example/v1", "[::1]:8000"])).toEqual({
      hosts: ["gpu-box.lab:8000", "[::1]:8000"],
      invalid: ["a b", "x.example/v1"],
    });
    const saved = { saved: { allowedHosts: ["gpu-box.lab:8000", "127.0.0.1:1234"] }, allowedHosts: "env.example" };
    expect(refusal("http://gpu-box.lab:8000/v1", saved)).toBeNull();
    expect(refusal("http://env.example/v1", saved)).toBeNull();
    expect(refusal("http://127.0.0.1:1234/v1", saved)).toBeNull();
    expect(refusal("http://127.0.0.1:1235/v1", saved)).toMatch(/loopback address/);
    expect(refusal("http://127.0.0.1:1234/v1", { saved: { allowedHosts: [] } })).toMatch(/loopback address/);
  });

  it("refuses loopback unless an admin listed the local server's port or host", () => {
    for (const url of ["http://127.0.0.1:9998/v1", "http://localhost:11434/v1", "http://[::1]:8000/v1", "http://127.9.9.9/v1"]) {
      const port = new URL(url).port || "80";
      expect(refusal(url)).toMatch(
        /is a loopback address on a port an admin has not allowed; an admin lists the local judge servers' ports in VERDICT_JUDGE_ALLOW_LOOPBACK/,
      );
      expect(refusal(url, { allowLoopback: `${port}, 1234` })).toBeNull();
      // Security review 2, N7: a port list, so the other ports of the machine (the web app, other services) stay closed.
      expect(refusal(url, { allowLoopback: "3300" })).toMatch(/loopback address on a port an admin has not allowed/);
    }
    expect(refusal("http://127.0.0.1:8000/v1", { allowedHosts: "127.0.0.1:8000" })).toBeNull();
    expect(refusal("http://127.0.0.1:8001/v1", { allowedHosts: "127.0.0.1:8000" })).toMatch(/loopback address/);
    expect(refusal("http://localhost:11434/v1", { defaultBaseUrl: "http://localhost:11434/v1" })).toBeNull();
  });

  it("refuses private, link-local and metadata addresses unless listed, even when loopback is allowed", () => {
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "http://10.0.0.5:8000/v1",
      "http://[fd00:ec2::254]/",
      "http://192.168.1.20/v1",
      "http://[::ffff:169.254.169.254]/",
    ]) {
      expect(refusal(url, { allowLoopback: "80, 8000" })).toMatch(/is a (private or link-local address; only an admin can allow it|cloud metadata service)/);
    }
    expect(refusal("http://10.0.0.5:8000/v1", { allowedHosts: "10.0.0.5:8000" })).toBeNull();
  });

  it("review 2, L7: calls the OpenAI API over https on port 443 only, whatever an admin listed", () => {
    for (const url of ["http://api.openai.com/v1", "http://api.openai.com:9998/v1", "https://api.openai.com:9998/v1", "http://api.openai.com:443/v1"]) {
      expect(refusal(url), url).toMatch(/the OpenAI API is called over https on port 443 only/);
      expect(refusal(url, { allowedHosts: "api.openai.com" }), url).toMatch(/https on port 443 only/);
    }
    expect(refusal("https://api.openai.com:443/v1")).toBeNull();
  });

  it("never allows a cloud metadata service, even when an admin lists it", () => {
    for (const url of [
      "http://169.254.169.254/latest/",
      "http://[fd00:ec2::254]/",
      "http://100.100.100.200/",
      "http://[::ffff:a9fe:a9fe]/",
      "http://[64:ff9b::6464:64c8]/",
    ]) {
      const host = new URL(url).host;
      expect(refusal(url, { allowedHosts: host }), url).toMatch(/is a cloud metadata service/);
    }
  });

  it("refuses other schemes and URLs with credentials", () => {
    expect(refusal("ftp://api.openai.com/v1")).toMatch(/http\(s\) URLs/);
    expect(refusal("https://user:pw@api.openai.com/v1")).toMatch(/user name or password/);
  });

  it("checks resolved addresses: public only for default hosts, loopback when allowed, anything for hosts an admin listed", () => {
    const openai = new URL("https://api.openai.com/v1");
    expect(resolvedAddressRefusal(openai, ["162.159.140.245", "2606:4700::6812:1"], policyOf({}))).toBeNull();
    expect(resolvedAddressRefusal(openai, ["162.159.140.245", "127.0.0.1"], policyOf({}))).toMatch(
      /resolves to a loopback address, which an admin has not allowed/,
    );
    expect(resolvedAddressRefusal(openai, ["169.254.169.254"], policyOf({ allowLoopback: "443" }))).toMatch(/resolves to a cloud metadata service/);
    expect(resolvedAddressRefusal(openai, ["10.9.9.9"], policyOf({ allowLoopback: "443" }))).toMatch(/private, link-local or reserved address/);
    expect(resolvedAddressRefusal(openai, ["::1"], policyOf({ allowLoopback: "443" }))).toBeNull();
    expect(resolvedAddressRefusal(new URL("https://api.openai.com:8443/v1"), ["::1"], policyOf({ allowLoopback: "443" }))).toMatch(/loopback/);
    expect(resolvedAddressRefusal(openai, [], policyOf({}))).toBe("judge endpoint host api.openai.com could not be resolved");
    const listed = new URL("http://vllm.lab.internal:8000/v1");
    expect(resolvedAddressRefusal(listed, ["10.1.2.3"], policyOf({ allowedHosts: "vllm.lab.internal:8000" }))).toBeNull();
    expect(resolvedAddressRefusal(listed, [], policyOf({ allowedHosts: "vllm.lab.internal:8000" }))).toMatch(/could not be resolved/);
  });

  it("knows loopback addresses in their usual spellings", () => {
    for (const a of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"]) expect(isLoopbackAddress(a)).toBe(true);
    for (const a of ["10.0.0.1", "::2", "1.127.0.0", "fe80::1"]) expect(isLoopbackAddress(a)).toBe(false);
  });
});

describe("review 2, N7: each key goes only to the endpoint an admin bound it to", () => {
  const env = judgeSettings({
    VERDICT_JUDGE_BASE_URL: "http://vllm.lab:8000/v1",
    VERDICT_JUDGE_KEY_PROD: "k",
    VERDICT_JUDGE_KEY_PROD_URL: "https://gateway.lab/anthropic/v1",
    VERDICT_DB: "/srv/secret.db",
  });
  it("reads the binding of each key source", () => {
    expect(keyDestination("OPENAI_API_KEY", env)).toEqual({ url: "https://api.openai.com/v1" });
    expect(keyDestination("VERDICT_JUDGE_API_KEY", env)).toEqual({ url: "http://vllm.lab:8000/v1" });
    expect(keyDestination("VERDICT_JUDGE_API_KEY", judgeSettings({}))).toEqual({ url: "https://api.openai.com/v1" });
    // Only the key variables reach the judge services by name: no other server setting.
    expect(Object.keys(env.keyVariables).sort()).toEqual(["VERDICT_JUDGE_KEY_PROD", "VERDICT_JUDGE_KEY_PROD_URL"]);
    expect(keyDestination("VERDICT_JUDGE_KEY_PROD", env)).toEqual({ url: "https://gateway.lab/anthropic/v1" });
    expect(keyDestination("VERDICT_JUDGE_KEY_TEAM", env)).toEqual({
      problem: "VERDICT_JUDGE_KEY_TEAM is sent only to the endpoint an admin declares for it in VERDICT_JUDGE_KEY_TEAM_URL, which is not set",
    });
    expect(keyDestination("VERDICT_JUDGE_KEY_X", judgeSettings({ VERDICT_JUDGE_KEY_X_URL: "file:///etc/passwd" }))).toMatchObject({
      problem: expect.stringMatching(/is not an http\(s\) URL/),
    });
    // The URL variable itself is not a key source.
    expect(isAllowedKeyEnv("VERDICT_JUDGE_KEY_PROD_URL")).toBe(false);
  });
  it("matches scheme, host, port and path prefix", () => {
    const bound = "https://gateway.lab/anthropic/v1";
    expect(keyMayGoTo(bound, new URL("https://gateway.lab/anthropic/v1"))).toBe(true);
    expect(keyMayGoTo(bound, new URL("https://GATEWAY.lab:443/anthropic/v1/"))).toBe(true);
    for (const other of [
      "http://gateway.lab/anthropic/v1",
      "https://gateway.lab:8443/anthropic/v1",
      "https://gateway.lab/other/v1",
      "https://gateway.lab/anthropic",
      "https://gateway.lab.evil/anthropic/v1",
      "http://127.0.0.1:9998/v1",
    ]) {
      expect(keyMayGoTo(bound, new URL(other)), other).toBe(false);
    }
  });
});

describe("endpoint error texts", () => {
  it("are cut to 200 characters with every secret replaced, also one that straddles the cut", () => {
    const key = "sk-live-0123456789abcdef";
    const text = `HTTP 401 ${"x".repeat(190)} ${key} trailing`;
    const out = scrubEndpointError(text, [key, undefined]);
    expect(out).not.toContain(key);
    expect(out).not.toContain("sk-live");
    expect(out.length).toBeLessThanOrEqual(MAX_ENDPOINT_ERROR_CHARS);
    expect(out.endsWith("…")).toBe(true);
    expect(scrubEndpointError(`a\n  ${key}\tb`, [key])).toBe("a [redacted] b");
  });
});
