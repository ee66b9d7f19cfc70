/**
 * Verdict's demo data: a small task set over the bundled demo sites and the scripted runs recorded on it.
 *
 * The three "agents" are scripted policies, not models; their names are invented so that analytics have runs to
 * compare, and their configs say plainly that they are scripted. Together they cover what a reviewer needs to see:
 * clean successes, wrong answers, loops (repeated actions, revisited URLs), an action on a label that is not on the
 * page, and a run that hits its step limit. Each entry states the outcome it must produce, so a change to a demo
 * site that breaks a script fails loudly instead of producing misleading demo data.
 */
import type { ScriptEntry } from "../browser/scripted-policy";
import type { RecorderRunInput, RecorderTaskInput } from "../browser/recorder";
import type { Outcome } from "../domain/types";

export const DEMO_TASK_SET = {
  name: "Verdict demo",
  benchmark: "demo",
  description: "Tasks on the demo sites bundled with Verdict (recipes, outdoor shop, encyclopedia).",
};

interface DemoTaskDef {
  externalId: string;
  site: "recipes" | "shop" | "wiki";
  intent: string;
  /** Path under the demo server, e.g. "/recipes/". */
  startPath: string;
  golden: string;
  /**
   * What a correct answer must contain, as a VisualWebArena string_match check: the demo tasks carry a real
   * rule evaluator config, so `evaluate-rules` (run by the demo command) grades the recorded answers.
   */
  mustInclude: string[];
  tags: string[];
}

export const DEMO_TASKS: DemoTaskDef[] = [
  {
    externalId: "demo.recipes--1",
    site: "recipes",
    intent: "On Saffron & Thyme, find the Red Lentil Soup recipe and tell me its total time.",
    startPath: "/recipes/",
    golden: "45 minutes",
    mustInclude: ["45 minutes"],
    tags: ["search", "lookup"],
  },
  {
    externalId: "demo.recipes--2",
    site: "recipes",
    intent: "Which vegetarian recipe on Saffron & Thyme has the highest rating? Give its name and its number of reviews.",
    startPath: "/recipes/",
    golden: "Brown Butter Banana Bread, 733 reviews",
    mustInclude: ["Brown Butter Banana Bread", "733"],
    tags: ["filter", "sort"],
  },
  {
    externalId: "demo.recipes--3",
    site: "recipes",
    intent: "How many eggs does the Shakshuka recipe on Saffron & Thyme need to serve 4 people?",
    startPath: "/recipes/",
    golden: "8 eggs",
    mustInclude: ["8 eggs"],
    tags: ["interaction", "arithmetic"],
  },
  {
    externalId: "demo.shop--1",
    site: "shop",
    intent: "On Trailhead Supply, add the cheapest tent to the cart and report the cart subtotal.",
    startPath: "/shop/",
    golden: "$179.00 (Sparrow Ultralight 1P Tent)",
    mustInclude: ["179.00"],
    tags: ["filter", "sort", "cart"],
  },
  {
    externalId: "demo.shop--2",
    site: "shop",
    intent: "Which rain jacket sold by Trailhead Supply has the highest rating, and what does it cost?",
    startPath: "/shop/",
    golden: "Stormline Rain Jacket, $189.00",
    mustInclude: ["Stormline", "189.00"],
    tags: ["search", "sort"],
  },
  {
    externalId: "demo.shop--3",
    site: "shop",
    intent: "Put two Titanium Pot 750 ml in the Trailhead Supply cart and report the order total including shipping.",
    startPath: "/shop/",
    golden: "$74.95",
    mustInclude: ["74.95"],
    tags: ["cart", "quantity"],
  },
  {
    externalId: "demo.wiki--1",
    site: "wiki",
    intent: "According to Tidewater, in what year was the Harrow Point Lighthouse automated?",
    startPath: "/wiki/",
    golden: "1984",
    mustInclude: ["1984"],
    tags: ["navigation", "long page"],
  },
  {
    externalId: "demo.wiki--2",
    site: "wiki",
    intent: "What was the population of Brackwater Bay at the 2021 census, according to Tidewater?",
    startPath: "/wiki/",
    golden: "4,318",
    mustInclude: ["4,318"],
    tags: ["search", "scrolling"],
  },
  {
    externalId: "demo.wiki--3",
    site: "wiki",
    intent: "What order of Fresnel lens was originally installed in the Harrow Point Lighthouse?",
    startPath: "/wiki/",
    golden: "A second-order Fresnel lens",
    mustInclude: ["second-order"],
    tags: ["navigation", "distractor"],
  },
];

const SCRIPTED_NOTE = "Demo data: actions replayed by a scripted policy; no model was called.";

export const DEMO_RUNS = {
  atlas: {
    runKey: "verdict-demo:atlas-vl",
    name: "Atlas-VL · demo",
    agentName: "som-agent",
    model: "atlas-vl-72b",
    sourceSystem: "verdict-runner",
    config: { policy: "scripted", note: SCRIPTED_NOTE, viewport: "1024x768", maxSteps: 15 },
  },
  orion: {
    runKey: "verdict-demo:orion-mini",
    name: "Orion-mini · demo",
    agentName: "som-agent",
    model: "orion-mini-8b",
    sourceSystem: "verdict-runner",
    config: { policy: "scripted", note: SCRIPTED_NOTE, viewport: "1024x768", maxSteps: 8 },
  },
  lumen: {
    runKey: "verdict-demo:lumen-text",
    name: "Lumen (element list only) · demo",
    agentName: "text-agent",
    model: "lumen-3b",
    sourceSystem: "verdict-runner",
    config: { policy: "scripted", note: SCRIPTED_NOTE, viewport: "1024x768", maxSteps: 6 },
  },
} satisfies Record<string, RecorderRunInput>;

export interface DemoTrajectoryDef {
  run: keyof typeof DEMO_RUNS;
  task: string;
  maxSteps: number;
  script: ScriptEntry[];
  /** What the recording must produce; generation fails otherwise. */
  expect: {
    outcome: Outcome;
    finalAnswer?: string;
    /** Failed steps (action errors) the run must contain; 0 when absent. */
    stepErrors?: number;
    /** A fragment the URL of the last observation must contain: the script really got where it claims. */
    lastUrl: string;
  };
}

const t = (thought: string, action: string): ScriptEntry => ({ thought, action });

export const DEMO_TRAJECTORIES: DemoTrajectoryDef[] = [
  // Atlas: the strong agent. Clean, short successes.
  {
    run: "atlas",
    task: "demo.recipes--1",
    maxSteps: 15,
    script: [
      t("The home page has a search box. I will search for the soup by name.", "Type [{{input:e.g. lentil}}]; red lentil soup"),
      t("The first result is Red Lentil Soup with Cumin. I will open it to read the times.", "Click [{{Red Lentil Soup with Cumin}}]"),
      t("The facts row shows Prep 10 min, Cook 35 min and Total 45 min.", "ANSWER; 45 minutes"),
    ],
    expect: { outcome: "answered", finalAnswer: "45 minutes", lastUrl: "recipe.html?id=red-lentil-soup" },
  },
  {
    run: "atlas",
    task: "demo.recipes--3",
    maxSteps: 15,
    script: [
      t("Shakshuka is in the Popular this week grid. I will open it.", "Click [{{Shakshuka}}]"),
      t("The recipe serves 2. I need 4 servings, so I will press + twice.", "Click [{{button:+}}]"),
      t("Servings now shows 3. One more.", "Click [{{button:+}}]"),
      t("Servings is 4. The egg line is below the fold; I will scroll down to read the ingredients.", "Scroll [WINDOW]; down"),
      t("The scaled ingredient list now says 8 eggs.", "ANSWER; 8 eggs"),
    ],
    expect: { outcome: "answered", finalAnswer: "8 eggs", lastUrl: "recipe.html?id=shakshuka" },
  },
  {
    run: "atlas",
    task: "demo.shop--1",
    maxSteps: 15,
    script: [
      t("I will open the Tents category from the navigation bar.", "Click [{{Tents}}]"),
      t("Three tents. Sorting by price from low to high puts the cheapest first.", "Click [{{Price: low to high}}]"),
      t("The Sparrow Ultralight 1P Tent at $179.00 is first. I will add it to the cart.", "Click [{{button:Add to cart}}]"),
      t("The badge shows 1 item. I will open the cart to read the subtotal.", "Click [{{Cart}}]"),
      t("The order summary shows a subtotal of $179.00.", "ANSWER; $179.00"),
    ],
    expect: { outcome: "answered", finalAnswer: "$179.00", lastUrl: "/shop/cart.html" },
  },
  {
    run: "atlas",
    task: "demo.shop--2",
    maxSteps: 15,
    script: [
      t("I will search the shop for rain jackets.", "Type [{{input:Search gear}}]; rain jacket"),
      t("Three rain jackets match. Sorting by rating shows the best first.", "Click [{{Top rated}}]"),
      t("Stormline Rain Jacket is first with 4.8 stars at $189.00.", "ANSWER; Stormline Rain Jacket, $189.00"),
    ],
    expect: { outcome: "answered", finalAnswer: "Stormline Rain Jacket, $189.00", lastUrl: "q=rain+jacket&sort=rating" },
  },
  {
    run: "atlas",
    task: "demo.wiki--1",
    maxSteps: 15,
    script: [
      t("The featured article is about Harrow Point Lighthouse. I will open it.", "Click [{{Read the full article}}]"),
      t("The contents box lists an Automation section. I will jump to it.", "Click [{{Automation}}]"),
      t("The Automation section says the lighthouse was automated in 1984.", "ANSWER; 1984"),
    ],
    expect: { outcome: "answered", finalAnswer: "1984", lastUrl: "harrow-point-lighthouse#automation" },
  },
  {
    run: "atlas",
    task: "demo.wiki--2",
    maxSteps: 15,
    script: [
      t("I will search the encyclopedia for the town.", "Type [{{input:Search Tidewater}}]; Brackwater Bay"),
      t("The Brackwater Bay article is the top result.", "Click [{{a:Brackwater Bay}}]"),
      t("The infobox has no population. The Demographics section should; I will scroll down.", "Scroll [WINDOW]; down"),
      t("Still in History. Scrolling further.", "Scroll [WINDOW]; down"),
      t("Geography and Economy. Demographics comes next.", "Scroll [WINDOW]; down"),
      t("Demographics: at the 2021 census Brackwater Bay had a population of 4,318.", "ANSWER; 4,318"),
    ],
    expect: { outcome: "answered", finalAnswer: "4,318", lastUrl: "slug=brackwater-bay" },
  },

  // Orion-mini: a weaker agent. A wrong answer, a loop, a bad label, a step limit.
  {
    run: "orion",
    task: "demo.recipes--1",
    maxSteps: 8,
    script: [
      t("I will search for lentil.", "Type [{{input:e.g. lentil}}]; lentil"),
      t("Red Lentil Soup with Cumin is the first result.", "Click [{{Red Lentil Soup with Cumin}}]"),
      t("The recipe takes 10 min.", "ANSWER; 10 minutes"),
    ],
    expect: { outcome: "answered", finalAnswer: "10 minutes", lastUrl: "recipe.html?id=red-lentil-soup" },
  },
  {
    run: "orion",
    task: "demo.recipes--2",
    maxSteps: 8,
    script: [
      t("I will show only vegetarian recipes.", "Click [{{Vegetarian}}]"),
      t("I need to compare ratings. Let me scroll through the list.", "Scroll [WINDOW]; down"),
      t("I lost track of the top. Scrolling back up.", "Scroll [WINDOW]; up"),
      t("Scrolling down again to compare ratings.", "Scroll [WINDOW]; down"),
      t("Back to the top of the list.", "Scroll [WINDOW]; up"),
      t("I will click the Vegetarian filter again to refresh the list.", "Click [{{a:Vegetarian#2}}]"),
      t("That removed the filter. Turning it back on.", "Click [{{a:Vegetarian#2}}]"),
      t("Shakshuka has 4.8 stars and 541 reviews; it looks like the best.", "ANSWER; Shakshuka, 541 reviews"),
    ],
    expect: { outcome: "answered", finalAnswer: "Shakshuka, 541 reviews", lastUrl: "search.html?tag=vegetarian" },
  },
  {
    run: "orion",
    task: "demo.shop--1",
    maxSteps: 8,
    script: [
      t("I will open the Tents category.", "Click [{{Tents}}]"),
      t("I will sort by price using the sort control.", "Click [42]"),
      t("That element does not exist. The sort links are in the toolbar: Price: low to high.", "Click [{{Price: low to high}}]"),
      t("The cheapest tent is first. Adding it to the cart.", "Click [{{button:Add to cart}}]"),
      t("Opening the cart.", "Click [{{Cart}}]"),
      t("The subtotal is $179.00.", "ANSWER; $179.00"),
    ],
    expect: { outcome: "answered", finalAnswer: "$179.00", stepErrors: 1, lastUrl: "/shop/cart.html" },
  },
  {
    run: "orion",
    task: "demo.wiki--1",
    maxSteps: 8,
    script: [
      t("I will open the Harrow Point Lighthouse article.", "Click [{{Harrow Point Lighthouse}}]"),
      t("The answer may be in the history. Scrolling.", "Scroll [WINDOW]; down"),
      t("Construction details, no automation date yet.", "Scroll [WINDOW]; down"),
      t("Maybe the main page says it. Going back.", "GoBack"),
      t("Opening the article again.", "Click [{{Harrow Point Lighthouse}}]"),
      t("Scrolling through the article again.", "Scroll [WINDOW]; down"),
      t("Still reading about construction.", "Scroll [WINDOW]; down"),
      t("Design and optics. Continuing.", "Scroll [WINDOW]; down"),
      t("Keepers.", "Scroll [WINDOW]; down"),
    ],
    expect: { outcome: "step_limit", lastUrl: "slug=harrow-point-lighthouse" },
  },

  // Lumen: reads the element list more than the page. One success, one repeated-action loop, one distractor.
  {
    run: "lumen",
    task: "demo.shop--3",
    maxSteps: 6,
    script: [
      t("Searching for the pot.", "Type [{{input:Search gear}}]; titanium pot"),
      t("Opening the product page.", "Click [{{a:Titanium Pot 750 ml}}]"),
      t("Quantity 1; pressing + to make it 2.", "Click [{{button:+}}]"),
      t("Adding 2 to the cart.", "Click [{{button:Add to cart}}]"),
      t("Opening the cart.", "Click [{{Cart}}]"),
      t("Subtotal $68.00 plus $6.95 shipping: the total is $74.95.", "ANSWER; $74.95"),
    ],
    expect: { outcome: "answered", finalAnswer: "$74.95", lastUrl: "/shop/cart.html" },
  },
  {
    run: "lumen",
    task: "demo.shop--2",
    maxSteps: 6,
    script: [
      t("Searching for rain jackets.", "Type [{{input:Search gear}}]; rain jacket"),
      t("Sorting by rating.", "Click [{{Top rated}}]"),
      t("Sorting by rating.", "Click [{{Top rated}}]"),
      t("Sorting by rating.", "Click [{{Top rated}}]"),
      t("The list shows Cascade Rain Jacket at $149.00.", "ANSWER; Cascade Rain Jacket, $149.00"),
    ],
    expect: { outcome: "answered", finalAnswer: "Cascade Rain Jacket, $149.00", lastUrl: "sort=rating" },
  },
  {
    run: "lumen",
    task: "demo.wiki--3",
    maxSteps: 6,
    script: [
      t("The question is about Fresnel lenses; the element list has a Fresnel lens article.", "Click [{{Fresnel lens}}]"),
      t("The Orders section describes lighthouse lenses. Scrolling to it.", "Scroll [WINDOW]; down"),
      t("The first-order lens is used for major coastal lights, which Harrow Point is.", "ANSWER; first-order"),
    ],
    expect: { outcome: "answered", finalAnswer: "first-order", lastUrl: "slug=fresnel-lens" },
  },
];

/** Task definitions in the bundle's shape for a server at `baseUrl`. */
export function demoTask(def: DemoTaskDef, baseUrl: string): RecorderTaskInput {
  return {
    taskSet: DEMO_TASK_SET,
    externalId: def.externalId,
    site: def.site,
    intent: def.intent,
    startUrl: baseUrl + def.startPath,
    referenceAnswers: [{ kind: "golden", text: def.golden }],
    evaluatorConfig: { eval_types: ["string_match"], reference_answers: { must_include: def.mustInclude }, reference_url: "", program_html: [] },
    tags: def.tags,
  };
}
