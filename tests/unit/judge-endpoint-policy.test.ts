import { describe, expect, it } from "vitest";
import {
  endpointUrlRefusal,
  isAllowedKeyEnv,
  isLoopbackAddress,
  judgeHostPolicy,
  judgeKeyEnvSchema,
  MAX_ENDPOINT_ERROR_CHARS,
  parseAllowedHosts,
  resolvedAddressRefusal,
  scrubEndpointError,
} from "../../server/domain/evaluators/judge-endpoint-policy";

const policyOf = (settings: Parameters<typeof judgeHostPolicy>[0]) => {
  const { policy, problems } = judgeHostPolicy(settings);
  expect(problems).toEqual([]);
  return policy;
};
const refusal = (url: string, settings: Parameters<typeof judgeHostPolicy>[0] = {}) => endpointUrlRefusal(new URL(url), policyOf(settings));

describe("judge key sources", () => {
  it("are the two shared variables and VERDICT_JUDGE_KEY_<SUFFIX>, nothing else", () => {
    for (const ok of ["VERDICT_JUDGE_API_KEY", "OPENAI_API_KEY", "VERDICT_JUDGE_KEY_VLLM", "VERDICT_JUDGE_KEY_TEAM_2"]) expect(isAllowedKeyEnv(ok)).toBe(true);
    for (const bad of ["VERDICT_DB", "VERDICT_AUTH_SECRET", "AWS_SECRET_ACCESS_KEY", "VERDICT_JUDGE_KEY_", "VERDICT_JUDGE_KEY_lower", "PATH"]) {
      expect(isAllowedKeyEnv(bad)).toBe(false);
    }
    const r = judgeKeyEnvSchema.safeParse("VERDICT_DB");
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toMatch(/apiKeyEnv "VERDICT_DB" is not an allowed key source: use VERDICT_JUDGE_API_KEY, OPENAI_API_KEY or .*VERDICT_JUDGE_KEY_<SUFFIX>/);
  });
});

describe("judge endpoint host policy", () => {
  it("allows api.openai.com and the host of VERDICT_JUDGE_BASE_URL by default, and nothing else", () => {
    expect(refusal("https://api.openai.com/v1")).toBeNull();
    expect(refusal("https://judge.example.org/v1", { defaultBaseUrl: "https://judge.example.org/openai/v1" })).toBeNull();
    expect(refusal("https://evil.example.net/v1")).toMatch(/^judge endpoint host evil\.example\.net is not on the admins' allowlist \(api\.openai\.com\); an admin can add it to VERDICT_JUDGE_ALLOWED_HOSTS$/);
    // Exact host names: a look-alike or a subdomain is another host.
    expect(refusal("https://api.openai.com.evil.net/v1")).not.toBeNull();
    expect(refusal("https://x.api.openai.com/v1")).not.toBeNull();
  });

  it("takes extra hosts from VERDICT_JUDGE_ALLOWED_HOSTS, with the port pinned when given", () => {
    const settings = { allowedHosts: " vllm.lab.internal:8000 , ollama.lab.internal" };
    expect(refusal("http://vllm.lab.internal:8000/v1", settings)).toBeNull();
    expect(refusal("http://vllm.lab.internal:8001/v1", settings)).toMatch(/vllm\.lab\.internal:8001 is not on the admins' allowlist/);
    expect(refusal("http://ollama.lab.internal:11434/v1", settings)).toBeNull();
    expect(judgeHostPolicy({ allowedHosts: "ok.example, http://x.example/, *.wild.example, bad host" }).problems).toEqual([
      'VERDICT_JUDGE_ALLOWED_HOSTS entry "http://x.example/" is not a host or host:port',
      'VERDICT_JUDGE_ALLOWED_HOSTS entry "*.wild.example" is not a host or host:port',
      'VERDICT_JUDGE_ALLOWED_HOSTS entry "bad host" is not a host or host:port',
    ]);
    expect(judgeHostPolicy({ allowLoopback: "maybe" }).problems).toEqual(['VERDICT_JUDGE_ALLOW_LOOPBACK must be 1 or 0, got "maybe"']);
  });

  it("adds what admins saved through the admin API to the environment's settings", () => {
    expect(parseAllowedHosts([" GPU-Box.Lab:8000 ", "gpu-box.lab:8000", "", "a b", "x.example/v1", "[::1]:8000"])).toEqual({
      hosts: ["gpu-box.lab:8000", "[::1]:8000"],
      invalid: ["a b", "x.example/v1"],
    });
    const saved = { saved: { allowedHosts: ["gpu-box.lab:8000"], allowLoopback: true }, allowedHosts: "env.example" };
    expect(refusal("http://gpu-box.lab:8000/v1", saved)).toBeNull();
    expect(refusal("http://env.example/v1", saved)).toBeNull();
    expect(refusal("http://127.0.0.1:1234/v1", saved)).toBeNull();
    expect(refusal("http://127.0.0.1:1234/v1", { saved: { allowedHosts: [], allowLoopback: false } })).toMatch(/loopback address/);
  });

  it("refuses loopback unless an admin allowed local servers or listed the host", () => {
    for (const url of ["http://127.0.0.1:9998/v1", "http://localhost:11434/v1", "http://[::1]:8000/v1", "http://127.9.9.9/v1"]) {
      expect(refusal(url)).toMatch(/is a loopback address; an admin must allow local judge servers \(VERDICT_JUDGE_ALLOW_LOOPBACK=1\)/);
      expect(refusal(url, { allowLoopback: "1" })).toBeNull();
    }
    expect(refusal("http://127.0.0.1:8000/v1", { allowedHosts: "127.0.0.1:8000" })).toBeNull();
    expect(refusal("http://127.0.0.1:8001/v1", { allowedHosts: "127.0.0.1:8000" })).toMatch(/loopback address/);
    expect(refusal("http://localhost:11434/v1", { defaultBaseUrl: "http://localhost:11434/v1" })).toBeNull();
  });

  it("refuses private, link-local and metadata addresses unless listed, even when loopback is allowed", () => {
    for (const url of ["http://169.254.169.254/latest/meta-data/", "http://10.0.0.5:8000/v1", "http://[fd00:ec2::254]/", "http://192.168.1.20/v1", "http://[::ffff:169.254.169.254]/"]) {
      expect(refusal(url, { allowLoopback: "1" })).toMatch(/is a private or link-local address; only an admin can allow it/);
    }
    expect(refusal("http://10.0.0.5:8000/v1", { allowedHosts: "10.0.0.5:8000" })).toBeNull();
  });

  it("refuses other schemes and URLs with credentials", () => {
    expect(refusal("ftp://api.openai.com/v1")).toMatch(/http\(s\) URLs/);
    expect(refusal("https://user:pw@api.openai.com/v1")).toMatch(/user name or password/);
  });

  it("checks resolved addresses: public only for default hosts, loopback when allowed, anything for hosts an admin listed", () => {
    const openai = new URL("https://api.openai.com/v1");
    expect(resolvedAddressRefusal(openai, ["162.159.140.245", "2606:4700::6812:1"], policyOf({}))).toBeNull();
    expect(resolvedAddressRefusal(openai, ["162.159.140.245", "127.0.0.1"], policyOf({}))).toMatch(/resolves to a loopback address, which an admin has not allowed/);
    expect(resolvedAddressRefusal(openai, ["169.254.169.254"], policyOf({ allowLoopback: "1" }))).toMatch(/private, link-local or reserved address/);
    expect(resolvedAddressRefusal(openai, ["::1"], policyOf({ allowLoopback: "1" }))).toBeNull();
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
