/**
 * Choices the pages make for the user (UI review 2): which campaign Human agreement opens on (#6), and when Compare
 * says that no URLs were recorded for aligning by URL (#11); how runs sharing a long path are told apart (#9).
 */
import { describe, expect, it } from "vitest";
import { chooseHumansCampaign } from "@/app/analytics/_lib/humans";
import { missingUrls, type StepSignature } from "@/app/compare/_lib/alignment";
import { runLabels } from "@/server/domain/catalog/run-labels";

const campaign = (id: number, labels: number) => ({ id, name: `C${id}`, labels });

describe("the campaign Human agreement opens on", () => {
  it("is the newest with labels, not a newer empty one", () => {
    expect(chooseHumansCampaign([campaign(1, 39), campaign(2, 4), campaign(3, 0)], undefined)).toEqual({ campaign: campaign(2, 4), fallback: false });
  });
  it("is the one asked for, even empty", () => {
    expect(chooseHumansCampaign([campaign(1, 39), campaign(3, 0)], 3)).toEqual({ campaign: campaign(3, 0), fallback: false });
  });
  it("is the newest when none has labels (said as a fallback), and none without campaigns", () => {
    expect(chooseHumansCampaign([campaign(1, 0), campaign(2, 0)], 7)).toEqual({ campaign: campaign(2, 0), fallback: true });
    expect(chooseHumansCampaign([], undefined)).toBeNull();
  });
});

describe("Compare by URL without URLs", () => {
  const steps = (urls: (string | null)[]): StepSignature[] => urls.map((url, i) => ({ url, action: `click ${i}` }));
  it("is off when no attempt recorded a URL", () => {
    expect(missingUrls([steps([null, null]), steps([null])])).toEqual({
      text: "No URLs were recorded for these attempts: By URL has nothing to align by.",
      none: true,
    });
  });
  it("names the attempts without URLs when others have some", () => {
    expect(missingUrls([steps(["https://a.test/"]), steps([null]), steps([null, null])])).toEqual({
      text: "Attempts B, C recorded no URLs: By URL aligns only the pages of the others.",
      none: false,
    });
    expect(missingUrls([steps(["https://a.test/"]), steps([null, "https://a.test/x"])])).toBeNull();
  });
});

describe("run labels side by side (#9)", () => {
  it("leave out the path segments every name shares, so the differing timestamps show first", () => {
    const names = ["webvoyager-gndd1221/results/20250513_041207", "webvoyager-gndd1221/results/20250514_101500", "webvoyager-gndd1221/results/20250514_101500"];
    expect([...runLabels(names)]).toEqual([
      ["webvoyager-gndd1221/results/20250513_041207", "…/20250513_041207"],
      ["webvoyager-gndd1221/results/20250514_101500", "…/20250514_101500"],
    ]);
  });
  it("keep a differing middle segment and the whole of a name that is the shared prefix's last segment", () => {
    const labels = runLabels(["fork/a/run-1", "fork/b/run-1", "fork/run"]);
    expect(labels.get("fork/a/run-1")).toBe("…/a/run-1");
    expect(labels.get("fork/b/run-1")).toBe("…/b/run-1");
    expect(labels.get("fork/run")).toBe("…/run");
  });
  it("keep names as they are when one stands alone, none is a path, or nothing is shared", () => {
    expect(runLabels(["webvoyager-gndd1221/results/20250513_041207"]).get("webvoyager-gndd1221/results/20250513_041207")).toBe(
      "webvoyager-gndd1221/results/20250513_041207",
    );
    expect([...runLabels(["Scripted (demo scripts)", "GPT-4V run"]).values()]).toEqual(["Scripted (demo scripts)", "GPT-4V run"]);
    expect([...runLabels(["a/x", "b/x"]).values()]).toEqual(["a/x", "b/x"]);
  });
});
