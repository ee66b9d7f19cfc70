/**
 * Deployment profiles' pure rules: what a profile accepts, what a run using it may reach, and how a task's config
 * (placeholders, storage_state, input images) is read against it.
 */
import { describe, expect, it } from "vitest";
import {
  deploymentPlan,
  deploymentProfileInputSchema,
  deploymentProfileProblems,
  inputImageUrl,
  loginSitesOfStorageState,
  mergeStorageStates,
  parseStorageState,
  sitesOfTask,
  storageStateProblem,
  substituteSites,
  substituteSitesDeep,
} from "../../server/domain/live/deployment";

const profile = deploymentProfileInputSchema.parse({
  name: "lab",
  sites: [
    {
      placeholder: "__REDDIT__",
      url: "http://10.0.0.5:9999/",
      login: {
        kind: "recipe",
        url: "http://10.0.0.5:9999/login",
        usernameSelector: "#user",
        passwordSelector: "#pass",
        username: "MarvelsGrantMan136",
        password: "test1234",
      },
      reset: { url: "http://10.0.0.9:7000/reset/reddit" },
    },
    { placeholder: "__HOMEPAGE__", url: "http://10.0.0.5:4399" },
  ],
});

describe("deployment profiles", () => {
  it("a run's browser using a profile may reach its sites and login pages by host:port; reset hooks only by the runner, at their exact URLs", () => {
    const plan = deploymentPlan({ id: 3, name: "lab", sites: profile.sites });
    expect(plan.siteUrls).toEqual({ __REDDIT__: "http://10.0.0.5:9999", __HOMEPAGE__: "http://10.0.0.5:4399" });
    // Security review 2, L5: the hook host 10.0.0.9:7000 is not among the browser's destinations.
    expect(plan.destinations.sort()).toEqual(["10.0.0.5:4399", "10.0.0.5:9999"]);
    expect(plan.resetUrls).toEqual(["http://10.0.0.9:7000/reset/reddit"]);
    expect(plan.hosts).toEqual(["10.0.0.5"]);
    expect(plan.loginSites).toEqual(["__REDDIT__"]);
    expect(plan.resetSites).toEqual(["__REDDIT__"]);
    expect(profile.sites[0]!.reset!.method).toBe("POST");
  });

  it("refuses a cloud metadata address in any of a profile's URLs", () => {
    const meta = deploymentProfileInputSchema.parse({
      name: "meta",
      sites: [{ placeholder: "__REDDIT__", url: "http://10.0.0.5:9999/", reset: { url: "http://169.254.169.254/latest/api/token" } }],
    });
    expect(deploymentProfileProblems(meta)).toEqual([
      "sites[0] (__REDDIT__).reset.url: 169.254.169.254 is a cloud metadata service (AWS, GCP, Azure, OpenStack, Oracle, DigitalOcean, Hetzner instance metadata), which runs never reach",
    ]);
  });

  it("names the field of a bad entry", () => {
    const bad = deploymentProfileInputSchema.safeParse({ name: "x", sites: [{ placeholder: "__REDDIT__", url: "ftp://a" }] });
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error!.issues)).toContain("url must be an http(s) URL");
    expect(deploymentProfileInputSchema.safeParse({ name: "x", sites: [{ placeholder: "__BLOG__", url: "http://a" }] }).success).toBe(false);
    const twice = deploymentProfileInputSchema.parse({
      name: "x",
      sites: [
        { placeholder: "__MAP__", url: "http://a" },
        { placeholder: "__MAP__", url: "http://b" },
      ],
    });
    expect(deploymentProfileProblems(twice)).toEqual(["sites[1].placeholder: __MAP__ is listed twice"]);
    const state = deploymentProfileInputSchema.parse({
      name: "x",
      sites: [{ placeholder: "__MAP__", url: "http://a", login: { kind: "storageState", state: "{}" } }],
    });
    expect(deploymentProfileProblems(state)).toEqual(['sites[0] (__MAP__).login.state: the "cookies" array is missing']);
  });

  it("checks and merges Playwright storage-state files", () => {
    expect(storageStateProblem("nope")).toMatch(/^not JSON/);
    expect(storageStateProblem('{"cookies":[{"name":"a"}]}')).toBe("cookies[0] needs a name, a value and a domain");
    const a = '{"cookies":[{"name":"s","value":"1","domain":"10.0.0.5","path":"/"}],"origins":[]}';
    const b = '{"cookies":[{"name":"t","value":"2","domain":"10.0.0.6","path":"/"}]}';
    expect(storageStateProblem(a)).toBeNull();
    expect(mergeStorageStates([parseStorageState(a), parseStorageState(b)]).cookies.map((c) => c.name)).toEqual(["s", "t"]);
  });
});

describe("a task's config against a profile", () => {
  const urls = { __REDDIT__: "http://10.0.0.5:9999", __HOMEPAGE__: "http://10.0.0.5:4399" };

  it("substitutes placeholders in start URLs and eval configs, and names the ones the profile lacks", () => {
    expect(substituteSites("__REDDIT__/f/food", urls)).toEqual({ text: "http://10.0.0.5:9999/f/food", unresolved: [] });
    expect(substituteSites("__SHOPPING__/cart", urls)).toEqual({ text: "__SHOPPING__/cart", unresolved: ["__SHOPPING__"] });
    const ev = {
      eval_types: ["url_match"],
      reference_url: "__REDDIT__/f/food/1 |OR| __REDDIT__/f/food/2",
      program_html: [{ url: "__REDDIT__/u/x", locator: "" }],
    };
    expect(substituteSitesDeep(ev, urls)).toEqual({
      eval_types: ["url_match"],
      reference_url: "http://10.0.0.5:9999/f/food/1 |OR| http://10.0.0.5:9999/f/food/2",
      program_html: [{ url: "http://10.0.0.5:9999/u/x", locator: "" }],
    });
  });

  it("reads the login sites of storage_state and the sites a task touches", () => {
    expect(loginSitesOfStorageState("./.auth/reddit_state.json")).toEqual(["__REDDIT__"]);
    expect(loginSitesOfStorageState("./.auth/shopping_admin_state.json")).toEqual(["__SHOPPING_ADMIN__"]);
    expect(loginSitesOfStorageState("./.auth/gitlab.reddit_state.json")).toEqual(["__GITLAB__", "__REDDIT__"]);
    expect(loginSitesOfStorageState(null)).toEqual([]);
    expect(
      sitesOfTask({
        startUrl: "__CLASSIFIEDS__/",
        evaluatorConfig: { reference_url: "__WIKIPEDIA__/x" },
        extra: { storage_state: "./.auth/reddit_state.json" },
      }).sort(),
    ).toEqual(["__CLASSIFIEDS__", "__REDDIT__", "__WIKIPEDIA__"]);
  });

  it("finds input images: URLs, placeholder URLs and VWA's homepage static paths", () => {
    expect(inputImageUrl("https://img.example/a.png", urls)).toEqual({ url: "https://img.example/a.png" });
    expect(inputImageUrl("__REDDIT__/static/a.png", urls)).toEqual({ url: "http://10.0.0.5:9999/static/a.png" });
    expect(inputImageUrl("environment_docker/webarena-homepage/static/input_images/reddit/task_0/input_0.png", urls)).toEqual({
      url: "http://10.0.0.5:4399/static/input_images/reddit/task_0/input_0.png",
    });
    expect(inputImageUrl("/home/me/input_0.png", urls)).toEqual({
      error: "input image /home/me/input_0.png: not an http(s) URL nor a path under webarena-homepage/static/",
    });
  });
});
