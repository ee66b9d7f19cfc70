/**
 * Browser Use `AgentHistoryList` files as two generations of its releases write them (../shared/docs/
 * trajectory-formats.md §8.2): older ones with `current_state`, `click_element`/`input_text`/`go_to_url`, base64
 * screenshots inside the file and interacted elements with viewport coordinates; newer ones with a flat brain and
 * `thinking`, `click`/`input`/`navigate`/`scroll`, screenshots named by another machine's paths, click points in the
 * results' metadata and elements with bounds.
 */
import fs from "node:fs";
import path from "node:path";
import { tinyPng } from "./webvoyager-fixture";

/** Older release: screenshots inline at device pixel ratio 2 (2560×1600 for a 1280×800 viewport). */
export async function oldHistory(opts: { done?: boolean; success?: boolean } = {}) {
  const shot = async (seed: number) => (await tinyPng(seed, 2560, 1600)).toString("base64");
  const viewport_info = { scroll_x: 0, scroll_y: 0, width: 1280, height: 800 };
  const element = (index: number, tag: string, x: number, y: number, w: number, h: number, label: string) => ({
    tag_name: tag,
    xpath: `html/body/div[1]/${tag}[${index}]`,
    highlight_index: index,
    entire_parent_branch_path: ["div", tag],
    attributes: { "aria-label": label },
    shadow_root: false,
    css_selector: null,
    page_coordinates: null,
    viewport_coordinates: {
      top_left: { x, y },
      top_right: { x: x + w, y },
      bottom_left: { x, y: y + h },
      bottom_right: { x: x + w, y: y + h },
      center: { x: x + w / 2, y: y + h / 2 },
      width: w,
      height: h,
    },
    viewport_info,
  });
  const history = [
    {
      model_output: {
        current_state: { evaluation_previous_goal: "Unknown - just started", memory: "", next_goal: "Open the shop" },
        action: [{ go_to_url: { url: "https://shop.example.test/" } }],
      },
      result: [{ is_done: false, extracted_content: "🔗  Navigated to https://shop.example.test/", include_in_memory: true }],
      state: { url: "about:blank", title: "", tabs: [{ page_id: 0, url: "about:blank", title: "" }], interacted_element: [null], screenshot: await shot(1) },
      metadata: { step_start_time: 1700000000.0, step_end_time: 1700000002.5, step_number: 1, input_tokens: 1200 },
    },
    {
      model_output: {
        current_state: { evaluation_previous_goal: "Success - the shop is open", memory: "On the home page", next_goal: "Search for the controller" },
        action: [{ input_text: { index: 5, text: "green controller" } }, { click_element: { index: 6 } }],
      },
      result: [
        { is_done: false, extracted_content: '⌨️  Input "green controller" into index 5', include_in_memory: true },
        { is_done: false, extracted_content: "🖱️  Clicked button with index 6: Search", include_in_memory: true },
      ],
      state: {
        url: "https://shop.example.test/",
        title: "ShopSite",
        tabs: [],
        interacted_element: [element(5, "input", 200, 17, 420, 36, "Search ShopSite"), element(6, "button", 628, 17, 64, 36, "Search")],
        screenshot: await shot(2),
      },
      metadata: { step_start_time: 1700000003.0, step_end_time: 1700000006.0, step_number: 2, input_tokens: 1500 },
    },
    {
      model_output: {
        current_state: { evaluation_previous_goal: "Success", memory: "Results shown", next_goal: "Read the price" },
        action: [{ scroll_down: { amount: 400 } }],
      },
      result: [{ is_done: false, extracted_content: "🔍  Scrolled down the page by 400 pixels" }],
      state: { url: "https://shop.example.test/s?k=green", title: "Results", tabs: [], interacted_element: [null], screenshot: await shot(3) },
      metadata: { step_start_time: 1700000007.0, step_end_time: 1700000008.0, step_number: 3 },
    },
  ];
  if (opts.done !== false) {
    history.push({
      model_output: {
        current_state: { evaluation_previous_goal: "Success", memory: "Price found", next_goal: "Report it" },
        action: [{ done: { text: "The controller costs $59.99", success: opts.success ?? true } }] as never,
      },
      result: [{ is_done: true, success: opts.success ?? true, extracted_content: "The controller costs $59.99", include_in_memory: false } as never],
      state: { url: "https://shop.example.test/p/1", title: "Product", tabs: [], interacted_element: [null], screenshot: await shot(4) },
      metadata: { step_start_time: 1700000009.0, step_end_time: 1700000010.0, step_number: 4 },
    });
  }
  return { history };
}

/** Newer release: screenshots named by the paths of the machine that ran it; points in the results' metadata. */
export function newHistory(task: string, machineDir = "/tmp/browser_use_agent_0a1b2c/screenshots") {
  return {
    history: [
      {
        model_output: {
          thinking: "The task asks for the price.",
          evaluation_previous_goal: "Start",
          memory: "",
          next_goal: "Open the shop",
          action: [{ navigate: { url: "https://shop.example.test/", new_tab: false } }],
        },
        result: [{ is_done: false, long_term_memory: "Navigated" }],
        state: { tabs: [], screenshot_path: `${machineDir}/step_1.png`, interacted_element: [null], url: "about:blank", title: "" },
        metadata: { step_start_time: 1760000000.0, step_end_time: 1760000001.2, step_number: 1, step_interval: null },
        state_message: `<agent_history>…</agent_history>\n<user_request>\n${task}\n</user_request>\n<browser_state>…</browser_state>`,
      },
      {
        model_output: {
          thinking: null,
          evaluation_previous_goal: "Shop open",
          memory: "Home",
          next_goal: "Click the search button",
          action: [{ click: { index: 12 } }],
        },
        result: [{ is_done: false, metadata: { click_x: 660, click_y: 35 } }],
        state: {
          tabs: [],
          screenshot_path: `${machineDir}/step_2.png`,
          interacted_element: [
            {
              node_id: 1,
              backend_node_id: 2,
              frame_id: null,
              node_type: 1,
              node_value: "",
              node_name: "BUTTON",
              attributes: { "aria-label": "Search" },
              x_path: "html/body/header/form/button",
              element_hash: 9,
              bounds: { x: 628, y: 17, width: 64, height: 36 },
            },
          ],
          url: "https://shop.example.test/",
          title: "ShopSite",
        },
        metadata: { step_start_time: 1760000002.0, step_end_time: 1760000003.0, step_number: 2 },
      },
      {
        model_output: {
          evaluation_previous_goal: "Clicked",
          memory: "",
          next_goal: "Scroll",
          action: [{ scroll: { down: true, num_pages: 0.5 } }, { teleport: { to: "the moon" } }],
        },
        result: [{ is_done: false }, { is_done: false, error: "Action teleport is not registered" }],
        state: {
          tabs: [],
          screenshot_path: `${machineDir}/step_3.png`,
          interacted_element: [null, null],
          url: "https://shop.example.test/s",
          title: "Results",
        },
        metadata: { step_start_time: 1760000004.0, step_end_time: 1760000005.0, step_number: 3 },
      },
      {
        model_output: {
          evaluation_previous_goal: "Found",
          memory: "",
          next_goal: "Done",
          action: [{ done: { text: "It is not sold here.", success: false, files_to_display: [] } }],
        },
        result: [
          {
            is_done: true,
            success: false,
            extracted_content: "It is not sold here.",
            judgement: {
              reasoning: "The shop does sell it; the agent gave up.",
              verdict: false,
              failure_reason: "Stopped early",
              impossible_task: false,
              reached_captcha: false,
            },
          },
        ],
        state: { tabs: [], screenshot_path: null, interacted_element: [null], url: "https://shop.example.test/s", title: "Results" },
        metadata: { step_start_time: 1760000006.0, step_end_time: 1760000006.5, step_number: 4 },
      },
    ],
  };
}

export async function writeScreens(dir: string, numbers: number[], size: [number, number] = [1280, 800]) {
  fs.mkdirSync(dir, { recursive: true });
  for (const n of numbers) fs.writeFileSync(path.join(dir, `step_${n}.png`), await tinyPng(100 + n, size[0], size[1]));
}
