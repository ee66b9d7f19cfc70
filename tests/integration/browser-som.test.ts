/**
 * The browser module against real Chromium: Set-of-Marks extraction, marked screenshots, action execution and the
 * recorder, on the bundled demo sites and on small hand-made pages that isolate one selection rule each.
 */
import sharp from "sharp";
import type { Browser } from "playwright";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { executeAction } from "../../server/browser/actions";
import { launchChromium } from "../../server/browser/launch";
import { loadConfig } from "../../server/config";
import { recordTrajectory } from "../../server/browser/recorder";
import { createScriptedPolicy } from "../../server/browser/scripted-policy";
import { BrowserSession, DEFAULT_VIEWPORT } from "../../server/browser/session";
import { settlePage } from "../../server/browser/settle";
import { observePage, type SomObservation } from "../../server/browser/som";
import { parseWebVoyagerAction } from "../../server/domain/actions/webvoyager";
import type { SomElement } from "../../server/domain/types";
import { startDemoSites, type DemoSitesServer } from "../../server/demo-sites/server";
import { chromiumSkipReason, titled } from "../helpers/requirements";
import { EgressProxy } from "../../server/services/live/egress-proxy";

const browserConfig = loadConfig();
const chromiumPath = browserConfig.chromiumPath;
const noChromium = chromiumSkipReason();
const haveChromium = noChromium === null;
if (!haveChromium) {
  console.warn(`Skipping browser tests: no Chromium at ${chromiumPath} (apt-get install -y chromium, or set CHROMIUM_PATH).`);
}

let browser: Browser;
let sites: DemoSitesServer;
let egress: EgressProxy;
let session: BrowserSession;

async function open(path: string): Promise<SomObservation> {
  await session.page.goto(sites.baseUrl + path);
  await settlePage(session.page);
  return observePage(session.page);
}

/**
 * The page as the recorder observes it: settled, and observed again when a navigation an action started replaced
 * the document meanwhile (through the egress proxy a navigation can start after the network first fell quiet).
 */
async function look(): Promise<SomObservation> {
  for (let attempt = 1; ; attempt++) {
    await settlePage(session.page);
    try {
      return await observePage(session.page);
    } catch (e) {
      if (attempt >= 3 || !/Execution context was destroyed|navigat/i.test(String(e))) throw e;
    }
  }
}

async function act(obs: SomObservation, text: string) {
  return executeAction({ session, elements: obs.elements, scale: obs.scale }, parseWebVoyagerAction(text));
}

function byText(obs: SomObservation, text: string, tag?: string): SomElement {
  const found = obs.elements.find((e) => e.text === text && (!tag || e.tag === tag));
  if (!found) throw new Error(`no element "${text}" among ${obs.elements.map((e) => `${e.tag}:${e.text}`).join(", ")}`);
  return found;
}

async function rgba(png: Buffer) {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

describe.skipIf(!haveChromium)(titled("browser module on real Chromium", noChromium), () => {
  beforeAll(async () => {
    sites = await startDemoSites();
    // Through an egress proxy, as the runner's browser: as the browser user it may connect to the proxies only.
    egress = await EgressProxy.start({ rules: { allowedDestinations: [`127.0.0.1:${sites.port}`] } });
    browser = await launchChromium({ config: browserConfig, egressProxy: egress.url });
  });
  afterAll(async () => {
    await browser?.close();
    await egress?.close();
    await sites?.close();
  });
  beforeEach(async () => {
    session = await BrowserSession.open(browser);
  });
  afterEach(async () => {
    await session.close();
  });

  describe("Set-of-Marks", () => {
    it("finds the interactive elements of a demo page with sane, unique, in-viewport boxes in reading order", async () => {
      const obs = await open("/recipes/");
      const { width: vw, height: vh } = DEFAULT_VIEWPORT;
      expect(obs.elements.length).toBeGreaterThan(10);
      expect(obs.elements.map((e) => e.label)).toEqual(obs.elements.map((_, i) => String(i)));
      for (const e of obs.elements) {
        const [x, y, w, h] = e.bbox!;
        expect(x).toBeGreaterThanOrEqual(0);
        expect(y).toBeGreaterThanOrEqual(0);
        expect(x + w).toBeLessThanOrEqual(vw);
        expect(y + h).toBeLessThanOrEqual(vh);
        expect(w * h).toBeGreaterThanOrEqual(20);
      }
      // Reading order: no element lies entirely above one that was numbered before it.
      for (let i = 0; i < obs.elements.length; i++) {
        for (let j = i + 1; j < obs.elements.length; j++) {
          const [, yi] = obs.elements[i]!.bbox!;
          const [, yj, , hj] = obs.elements[j]!.bbox!;
          expect(yj + hj, `element ${j} is above element ${i}`).toBeGreaterThan(yi);
        }
      }
      // What a person sees on this page is there, with its text.
      const search = byText(obs, "Search recipes, e.g. lentil", "input");
      expect(byText(obs, "Search", "button")).toBeTruthy();
      expect(obs.elements.some((e) => e.tag === "a" && e.text?.includes("Shakshuka"))).toBe(true);
      // The hero search box is wide and short, where the layout puts it.
      const [, , w, h] = search.bbox!;
      expect(w).toBeGreaterThan(300);
      expect(h).toBeGreaterThan(30);
      expect(h).toBeLessThan(80);
      // Below-the-fold content is not marked: the page is longer than the viewport.
      const pageHeight = (await session.page.evaluate("document.documentElement.scrollHeight")) as number;
      expect(pageHeight).toBeGreaterThan(vh);
    });

    it("draws the marks only into the marked screenshot, on the element boxes, and removes them from the page", async () => {
      const obs = await open("/shop/");
      expect(obs.raw.width).toBe(DEFAULT_VIEWPORT.width);
      expect(obs.raw.height).toBe(DEFAULT_VIEWPORT.height);
      expect(obs.marked.width).toBe(obs.raw.width);
      expect(obs.marked.bytes.equals(obs.raw.bytes)).toBe(false);

      const raw = await rgba(obs.raw.bytes);
      const marked = await rgba(obs.marked.bytes);
      // Every differing pixel belongs to a box outline or its label (drawn up to 16 px above the box).
      const near = (x: number, y: number) =>
        obs.elements.some((e) => {
          const [bx, by, bw, bh] = e.bbox!;
          return x >= bx - 4 && x <= bx + bw + 40 && y >= by - 18 && y <= by + bh + 2;
        });
      let differing = 0;
      let stray = 0;
      for (let y = 0; y < raw.height; y++) {
        for (let x = 0; x < raw.width; x++) {
          const i = (y * raw.width + x) * 4;
          if (raw.data[i] !== marked.data[i] || raw.data[i + 1] !== marked.data[i + 1] || raw.data[i + 2] !== marked.data[i + 2]) {
            differing++;
            if (!near(x, y)) stray++;
          }
        }
      }
      expect(differing).toBeGreaterThan(1000);
      expect(stray).toBe(0);
      // Each box's top-left corner pixel changed: the outline is drawn where the element is.
      for (const e of obs.elements) {
        const [bx, by] = e.bbox!;
        const i = ((by + 1) * raw.width + (bx + 1)) * 4;
        const same = raw.data[i] === marked.data[i] && raw.data[i + 1] === marked.data[i + 1] && raw.data[i + 2] === marked.data[i + 2];
        expect(same, `box ${e.label} has no outline`).toBe(false);
      }
      // Nothing is left behind: no overlay or caret style in the page, and a new raw capture shows no marks
      // (text anti-aliasing may shift a few pixels once the overlay layer has existed; the marks changed thousands).
      expect(await session.page.evaluate("document.getElementById('__verdict_som_overlay')")).toBeNull();
      expect(await session.page.evaluate("document.getElementById('__verdict_som_caret')")).toBeNull();
      const again = await rgba((await observePage(session.page)).raw.bytes);
      let changed = 0;
      for (let i = 0; i < raw.data.length; i += 4) {
        if (raw.data[i] !== again.data[i] || raw.data[i + 1] !== again.data[i + 1] || raw.data[i + 2] !== again.data[i + 2]) changed++;
      }
      expect(changed).toBeLessThan(differing / 10);
    });

    it("applies the selection rules: hidden, covered, tiny, off-screen and nested duplicates are left out", async () => {
      await session.page.setContent(`<!doctype html><body style="margin:0;font:16px sans-serif">
        <button id="plain" style="position:absolute;left:10px;top:10px;width:120px;height:30px">Plain</button>
        <button style="display:none">Hidden</button>
        <button style="position:absolute;left:10px;top:60px;visibility:hidden">Invisible</button>
        <button style="position:absolute;left:150px;top:10px;opacity:0">Transparent</button>
        <button style="position:absolute;left:10px;top:110px;width:120px;height:30px">Covered</button>
        <div style="position:absolute;left:0;top:100px;width:200px;height:60px;background:#eee"></div>
        <a href="#tiny" style="position:absolute;left:300px;top:10px;width:3px;height:3px;display:block;overflow:hidden"></a>
        <button style="position:absolute;left:10px;top:2000px">Below the fold</button>
        <a href="#card" style="position:absolute;left:10px;top:200px;width:200px;height:40px;display:block">Card link <span onclick="1" style="cursor:pointer">inner</span></a>
        <div onclick="1" style="position:absolute;left:300px;top:200px;width:150px;height:40px"><button style="width:150px;height:40px">Wrapped</button></div>
        <div style="position:absolute;left:10px;top:300px;cursor:pointer;width:200px;height:40px">Pointer div <span>child</span></div>
        <div role="button" style="position:absolute;left:300px;top:300px;width:100px;height:30px">Role button</div>
        <label style="position:absolute;left:10px;top:400px">Name <input id="name" placeholder="Your name"></label>
      </body>`);
      const obs = await look();
      const texts = obs.elements.map((e) => e.text);
      expect(texts).toContain("Plain");
      expect(texts).toContain("Wrapped");
      expect(texts).toContain("Role button");
      expect(texts).toContain("Your name");
      expect(texts.filter((t) => t?.startsWith("Card link"))).toHaveLength(1);
      expect(texts.filter((t) => t?.startsWith("Pointer div"))).toHaveLength(1);
      for (const gone of ["Hidden", "Invisible", "Transparent", "Covered", "Below the fold", "inner", "child"]) {
        expect(texts, gone).not.toContain(gone);
      }
      expect(obs.elements.filter((e) => e.tag === "a")).toHaveLength(1); // the 3×3 link is too small
      expect(obs.elements.find((e) => e.text === "Wrapped")!.tag).toBe("button"); // the button, not its onclick wrapper
      expect(obs.elements).toHaveLength(6);
    });
  });

  describe("actions", () => {
    it("types with Enter into a search box, then clicks a result, changing the page as expected", async () => {
      let obs = await open("/recipes/");
      const box = byText(obs, "Search recipes, e.g. lentil", "input");
      expect(await act(obs, `Type [${box.label}]; lentil`)).toEqual({ error: null, ended: false });
      obs = await look();
      expect(new URL(obs.url).pathname).toBe("/recipes/search.html");
      expect(new URL(obs.url).searchParams.get("q")).toBe("lentil");
      const soup = obs.elements.find((e) => e.text?.startsWith("Red Lentil Soup with Cumin"))!;
      expect(soup).toBeTruthy();
      expect(await act(obs, `Click [${soup.label}]`)).toEqual({ error: null, ended: false });
      obs = await look();
      expect(obs.url).toContain("recipe.html?id=red-lentil-soup");
      expect(obs.title).toContain("Red Lentil Soup");

      // Typing again clears what was there first.
      const mini = byText(obs, "Search recipes", "input");
      await executeAction({ session, elements: obs.elements }, { type: "type", target: mini.label, value: "first", submit: false });
      await executeAction({ session, elements: obs.elements }, { type: "type", target: mini.label, value: "second", submit: false });
      expect(await session.page.inputValue(".mini-search input")).toBe("second");
    });

    it("clicks buttons that change the page in place, and presses keys", async () => {
      let obs = await open("/recipes/recipe.html?id=shakshuka");
      expect(await session.page.textContent("#count")).toBe("2");
      await act(obs, `Click [${byText(obs, "+", "button").label}]`);
      await act(obs, `Click [${byText(obs, "+", "button").label}]`);
      expect(await session.page.textContent("#count")).toBe("4");
      expect(await session.page.textContent("#ingredients")).toContain("8eggs");
      obs = await look();
      const mini = byText(obs, "Search recipes", "input");
      await executeAction({ session, elements: obs.elements }, { type: "type", target: mini.label, value: "soup", submit: false });
      expect(session.page.url()).toContain("recipe.html");
      const r = await executeAction({ session, elements: obs.elements }, { type: "press", value: "enter" });
      expect(r.error).toBeNull();
      obs = await look();
      expect(obs.url).toBe(sites.baseUrl + "/recipes/search.html?q=soup");
    });

    it("scrolls the window and a scrollable element", async () => {
      let obs = await open("/wiki/article.html?slug=harrow-point-lighthouse");
      expect(await session.page.evaluate("window.scrollY")).toBe(0);
      expect((await act(obs, "Scroll [WINDOW]; down")).error).toBeNull();
      const y1 = (await session.page.evaluate("window.scrollY")) as number;
      expect(y1).toBeGreaterThan(DEFAULT_VIEWPORT.height / 2);
      obs = await look();
      expect(obs.elements.some((e) => e.text === "Background")).toBe(false); // the contents box scrolled away
      await act(obs, "Scroll [WINDOW]; up");
      expect(await session.page.evaluate("window.scrollY")).toBe(0);

      await session.page.setContent(`<body style="margin:0;height:3000px">
        <div id="box" style="width:300px;height:200px;overflow:auto;border:1px solid"><a href="#a">first link</a>
        <div style="height:1500px"></div><a href="#b">last link</a></div></body>`);
      obs = await look();
      const link = byText(obs, "first link", "a");
      expect((await act(obs, `Scroll [${link.label}]; down`)).error).toBeNull();
      expect(await session.page.evaluate("document.getElementById('box').scrollTop")).toBeGreaterThan(100);
      expect(await session.page.evaluate("window.scrollY")).toBe(0);
    });

    it("reports problems the agent caused as errors instead of throwing", async () => {
      const obs = await open("/shop/");
      const missing = await act(obs, "Click [999]");
      expect(missing.error).toBe(`element [999] is not on the page: the marks on this screenshot are 0–${obs.elements.length - 1}`);
      expect(missing.ended).toBe(false);
      expect(session.page.url()).toBe(sites.baseUrl + "/shop/");

      const notText = await act(obs, `Type [${byText(obs, "Add to cart", "button").label}]; hello`);
      expect(notText.error).toMatch(/is not a text field/);

      const unparsed = await act(obs, "Frobnicate the page");
      expect(unparsed.error).toMatch(/could not be parsed/);

      const back = await act(obs, "GoBack");
      expect(back.error).toBe("there is no previous page in this tab");

      const answer = await act(obs, "ANSWER; done");
      expect(answer).toEqual({ error: null, ended: true });
    });

    it("goes back and forward, opens, switches and closes tabs", async () => {
      let obs = await open("/shop/");
      await act(obs, `Click [${byText(obs, "Tents", "a").label}]`);
      // The click starts a navigation; it is observed once it has arrived (through the proxy it may start late).
      await session.page.waitForURL(/cat=tents/);
      obs = await look();
      expect(obs.url).toContain("cat=tents");
      expect((await act(obs, "GoBack")).error).toBeNull();
      await session.page.waitForURL(sites.baseUrl + "/shop/");
      await settlePage(session.page);
      expect((await executeAction({ session, elements: [] }, { type: "go_forward" })).error).toBeNull();
      await session.page.waitForURL(/cat=tents/);
      await settlePage(session.page);

      expect((await executeAction({ session, elements: [] }, { type: "new_tab", value: sites.baseUrl + "/wiki/" })).error).toBeNull();
      expect(session.tabs()).toHaveLength(2);
      await settlePage(session.page);
      expect(session.page.url()).toBe(sites.baseUrl + "/wiki/");
      expect((await executeAction({ session, elements: [] }, { type: "tab_focus", value: "0" })).error).toBeNull();
      expect(session.page.url()).toContain("cat=tents");
      expect((await executeAction({ session, elements: [] }, { type: "tab_focus", value: "5" })).error).toBe("there is no tab 5 (open tabs: 0–1)");
      expect((await executeAction({ session, elements: [] }, { type: "close_tab" })).error).toBeNull();
      expect(session.tabs()).toHaveLength(1);
      expect(session.page.url()).toBe(sites.baseUrl + "/wiki/");
      expect((await executeAction({ session, elements: [] }, { type: "close_tab" })).error).toBe("cannot close the only open tab");
      const bad = await executeAction({ session, elements: [] }, { type: "goto", value: "file:///etc/passwd" });
      expect(bad.error).toBe("cannot open file: URLs, only http and https");
    });
  });

  describe("recorder", () => {
    const run = { runKey: "test:recorder", name: "recorder test", agentName: "scripted", sourceSystem: "verdict-runner" };
    const task = (path: string) => ({
      taskSet: { name: "Recorder tests", benchmark: "demo" },
      externalId: "rec--1",
      intent: "Find the cheapest tent.",
      startUrl: sites.baseUrl + path,
    });

    it("records a multi-step scripted run with boxes, both screenshots, errors fed back and the answer", async () => {
      const seen: (string | null)[] = [];
      const policy = createScriptedPolicy([
        "Click [{{Tents}}]",
        "Click [77]",
        { thought: "Sort by price.", action: "Click [{{Price: low to high}}]" },
        "Scroll [WINDOW]; down",
        "ANSWER; Sparrow Ultralight 1P Tent",
      ]);
      const spy = {
        name: policy.name,
        async nextAction(obs: Parameters<typeof policy.nextAction>[0]) {
          seen.push(obs.lastError);
          return policy.nextAction(obs);
        },
      };
      const streamed: number[] = [];
      const rec = await recordTrajectory({ session, task: task("/shop/"), run, policy: spy, onStep: (s) => void streamed.push(s.index) });
      expect(rec.outcome).toBe("answered");
      expect(rec.finalAnswer).toBe("Sparrow Ultralight 1P Tent");
      expect(rec.steps.map((s) => s.action.type)).toEqual(["click", "click", "click", "scroll", "answer"]);
      expect(streamed).toEqual([0, 1, 2, 3, 4]);
      expect(rec.steps[1]!.error).toMatch(/^element \[77\] is not on the page/);
      expect(seen[2]).toBe(rec.steps[1]!.error); // the error is shown to the policy on the next turn
      expect(rec.steps[2]!.thought).toBe("Sort by price.");
      expect(rec.steps[3]!.url).toContain("sort=price-asc");
      for (const s of rec.steps) {
        expect(s.elements.length).toBeGreaterThan(0);
        expect(s.screenshot.bytes.equals(s.rawScreenshot.bytes)).toBe(false);
        expect(s.timings.settled).toBe(true);
      }
    });

    it("ends at the step limit, and with a reason when the policy fails", async () => {
      const limited = await recordTrajectory({
        session,
        task: task("/wiki/"),
        run,
        policy: createScriptedPolicy(Array(10).fill("Scroll [WINDOW]; down")),
        maxSteps: 3,
      });
      expect(limited.outcome).toBe("step_limit");
      expect(limited.steps).toHaveLength(3);
      expect(limited.outcomeDetail).toBe("reached the step limit (3) without an answer");

      const broken = await recordTrajectory({ session, task: task("/wiki/"), run, policy: createScriptedPolicy(["Click [{{No such link}}]"]) });
      expect(broken.outcome).toBe("error");
      expect(broken.steps).toHaveLength(0);
      expect(broken.outcomeDetail).toMatch(/no element matching "No such link"/);
    });

    it("stops a cancelled run", async () => {
      const controller = new AbortController();
      const slow = {
        name: "slow",
        nextAction: () => new Promise<never>(() => controller.abort()),
      };
      const rec = await recordTrajectory({ session, task: task("/wiki/"), run, policy: slow, signal: controller.signal });
      expect(rec.outcome).toBe("cancelled");
    });
  });
});
