/**
 * Automation rules' pure part: the filter text read with readable errors, a rule checked field by field, and the
 * seeded share that decides per trajectory, whatever arrived with it.
 */
import { describe, expect, it } from "vitest";
import { checkRuleDraft, inShare, parseRuleFilter, planRuleRun, type RuleDraft } from "../../server/domain/automation/rules";

const draft: RuleDraft = {
  name: " Shop failures ",
  filterText: "site=Shop&rule=failure",
  triggers: ["import", "push"],
  sharePercent: 20,
  seed: 7,
  action: { kind: "campaign", campaignId: 3 },
  enabled: true,
};

describe("a rule's filter", () => {
  it("reads the trajectory list's query, from a pasted address too, leaving order and paging out", () => {
    expect(parseRuleFilter("site=Shop&rule=failure")).toEqual({ filter: { site: "Shop", rule: "failure" }, search: "?site=Shop&rule=failure" });
    expect(parseRuleFilter("http://verdict.test/trajectories?model=gpt-4o&sort=steps&dir=asc&page=3&size=100").filter).toEqual({ model: "gpt-4o" });
    expect(parseRuleFilter("ev=judge%3A2%7C1%7Cv1&verdict=failure").filter).toEqual({ evaluator: "judge:2|1|v1", verdict: "failure" });
    expect(parseRuleFilter("search=add+to+cart").filter).toEqual({ search: "add to cart" });
  });

  it("matches every arrival when empty", () => {
    expect(parseRuleFilter("  ")).toEqual({ filter: {}, search: "" });
  });

  it("names a key the list does not know, a value it would drop, and keys that make no sense for arrivals", () => {
    expect(() => parseRuleFilter("site=Shop&colour=red")).toThrow(/“colour” is not a filter of the trajectory list \(it knows .*site.*\)/);
    expect(() => parseRuleFilter("rule=maybe")).toThrow('filter: rule="maybe" is not a value the trajectory list accepts for rule');
    expect(() => parseRuleFilter("verdict=failure")).toThrow(
      "filter: verdict=failure needs the evaluator it is about (ev=<evaluator key>|<k>|<prompt version>)",
    );
    expect(() => parseRuleFilter("ids=1-5")).toThrow(/ids names trajectories that are already here/);
    expect(() => parseRuleFilter("site=Shop&sample=20&seed=3")).toThrow(/a rule takes its own share.*; a rule draws its share with its own seed/);
    expect(() => parseRuleFilter("minSteps=lots")).toThrow('minSteps="lots" is not a value');
  });
});

describe("a rule as written", () => {
  it("comes back trimmed, with its triggers in order", () => {
    expect(checkRuleDraft({ ...draft, triggers: ["push", "import"] })).toMatchObject({ name: "Shop failures", triggers: ["import", "push"] });
    expect(checkRuleDraft({ ...draft, action: { kind: "judge", judgeConfigId: 2, k: " Full " } }).action).toEqual({
      kind: "judge",
      judgeConfigId: 2,
      k: "full",
    });
  });

  it("is refused with the field named", () => {
    expect(() => checkRuleDraft({ ...draft, name: "  " })).toThrow("name: give the rule a name");
    expect(() => checkRuleDraft({ ...draft, triggers: [] })).toThrow(/^triggers: choose when the rule runs/);
    expect(() => checkRuleDraft({ ...draft, triggers: ["import", "cron"] })).toThrow('triggers: "cron" unknown');
    expect(() => checkRuleDraft({ ...draft, sharePercent: 0 })).toThrow("share: a percentage more than 0 and at most 100, got 0");
    expect(() => checkRuleDraft({ ...draft, sharePercent: 120 })).toThrow("share: a percentage more than 0 and at most 100, got 120");
    expect(() => checkRuleDraft({ ...draft, seed: -1 })).toThrow(/^seed: a whole number from 0/);
    expect(() => checkRuleDraft({ ...draft, action: { kind: "judge", judgeConfigId: 2, k: "zero" } })).toThrow(
      'k: a positive whole number of screenshots or "full", got "zero"',
    );
    expect(() => checkRuleDraft({ ...draft, filterText: "colour=red" })).toThrow(/^filter: “colour”/);
  });
});

describe("the seeded share", () => {
  const ids = Array.from({ length: 10_000 }, (_, i) => i + 1);

  it("takes about the share asked, the same trajectories every time, and others under another seed", () => {
    const taken = ids.filter((id) => inShare(id, 20, 7));
    expect(taken.length).toBeGreaterThan(1_850);
    expect(taken.length).toBeLessThan(2_150);
    expect(ids.filter((id) => inShare(id, 20, 7))).toEqual(taken);
    const other = ids.filter((id) => inShare(id, 20, 8));
    const overlap = other.filter((id) => taken.includes(id)).length;
    // Independent draws share about a fifth of a fifth.
    expect(overlap).toBeGreaterThan(300);
    expect(overlap).toBeLessThan(500);
    expect(ids.every((id) => inShare(id, 100, 7))).toBe(true);
  });

  it("neighbouring ids draw independently: no long runs in or out", () => {
    const flags = ids.map((id) => inShare(id, 50, 1));
    let longest = 0;
    for (let i = 0, run = 0; i < flags.length; i++) longest = Math.max(longest, (run = i > 0 && flags[i] === flags[i - 1] ? run + 1 : 1));
    expect(longest).toBeLessThan(25);
  });

  it("decides per trajectory: arrivals split in two take what they take together", () => {
    const matched = ids.filter((id) => id % 3 === 0);
    const whole = planRuleRun({ arrived: ids, matched, done: new Set(), sharePercent: 30, seed: 11 });
    const first = planRuleRun({ arrived: ids.slice(0, 4_000), matched, done: new Set(), sharePercent: 30, seed: 11 });
    const second = planRuleRun({ arrived: ids.slice(4_000), matched, done: new Set(), sharePercent: 30, seed: 11 });
    expect([...first.sampled, ...second.sampled]).toEqual(whole.sampled);
  });
});

describe("a rule run's plan", () => {
  it("counts only arrivals, and leaves out what the rule already acted on", () => {
    const plan = planRuleRun({ arrived: [5, 3, 9, 12], matched: [12, 3, 3, 40, 9], done: new Set([9]), sharePercent: 100, seed: 0 });
    expect(plan).toEqual({ matched: [3, 9, 12], sampled: [3, 9, 12], fresh: [3, 12], alreadyDone: [9] });
  });
});
