/**
 * Drill-down: the trajectories behind a figure, from its selection. Resolved over the same in-memory arrays the
 * views count with, so the list always has exactly the n the figure showed.
 */
import type { Db } from "../../../db/database";
import { listCampaignHeads, listTaskSetNames, NULL_INT, trajectoryRows, userNames } from "../../../db/repositories/analytics";
import { combinedLabel, evaluatorLabel, positionDecile } from "../../domain/analytics/measures";
import { describeSelection, type Selection } from "../../domain/analytics/selection";
import { formatIdList, MAX_IDS } from "../../domain/trajectory-list-query";
import { evaluatorNameLookup, runNames } from "./common";
import { getReferenceFor } from "./references";
import { getCampaignLabels, getFacts, getVerdictSets, REF_FAILURE, REF_SUCCESS, REF_UNSURE, sameIdentity, scopeMask, scopeOf, VERDICT_CODES } from "./dataset";

/** Facts rows matching a selection, ascending by trajectory id. */
export async function selectionRows(db: Db, sel: Selection): Promise<Int32Array> {
  const facts = await getFacts(db);
  const mask = scopeMask(facts, scopeOf(sel));

  if (sel.difficulty) {
    const values = facts.difficultyValues[sel.difficulty.dim];
    const want = sel.difficulty.value === null ? -1 : values.indexOf(sel.difficulty.value);
    const col = facts.difficulty[sel.difficulty.dim];
    for (let r = 0; r < facts.n; r++) if (mask[r] && (col[r] !== want || (want < 0 && sel.difficulty.value !== null))) mask[r] = 0;
  }
  if (sel.attribute) {
    const a = facts.attributes.get(sel.attribute.name);
    const want = !a ? -2 : sel.attribute.value === null ? -1 : a.values.indexOf(sel.attribute.value);
    // An unknown attribute or value matches nothing (tasks without the attribute match `value: null`).
    for (let r = 0; r < facts.n; r++) {
      if (!mask[r]) continue;
      const code = a ? a.code[r]! : -1;
      if (sel.attribute.value === null ? code !== -1 : want < 0 || code !== want) mask[r] = 0;
    }
  }
  if (sel.steps) {
    const min = sel.steps.min ?? 0;
    const max = sel.steps.max ?? Infinity;
    for (let r = 0; r < facts.n; r++) if (mask[r] && (facts.stepCount[r]! < min || facts.stepCount[r]! > max)) mask[r] = 0;
  }
  if (sel.evaluator) {
    const e = sel.evaluator;
    const set = (await getVerdictSets(db, e.key)).find((s) => sameIdentity(s.identity, e));
    const wanted = new Set(e.verdicts.map((v) => VERDICT_CODES.indexOf(v)));
    const keep = new Uint8Array(facts.n);
    if (set) for (let i = 0; i < set.rows.length; i++) if (wanted.has(set.verdict[i]!)) keep[set.rows[i]!] = 1;
    for (let r = 0; r < facts.n; r++) if (!keep[r]) mask[r] = 0;
  }
  if (sel.reference) {
    const c = sel.reference;
    const ref = await getReferenceFor(db, c.campaignId, c.source);
    const codes = new Set<number>(
      (c.verdicts ?? ["success", "failure", "unsure"]).map((v) => (v === "success" ? REF_SUCCESS : v === "failure" ? REF_FAILURE : REF_UNSURE)),
    );
    const category = c.category === undefined ? undefined : c.category === null ? -1 : ref.categories.indexOf(c.category);
    for (let r = 0; r < facts.n; r++) {
      if (!mask[r]) continue;
      let ok = codes.has(ref.verdict[r]!);
      if (ok && category !== undefined) ok = category === -1 && c.category !== null ? false : ref.category[r] === category;
      const step = ref.firstFailingStep[r]!;
      if (ok && c.step) ok = step !== NULL_INT && step >= (c.step.min ?? 0) && step <= (c.step.max ?? Infinity);
      if (ok && c.position !== undefined) ok = step !== NULL_INT && positionDecile(step, facts.stepCount[r]!) === c.position;
      if (!ok) mask[r] = 0;
    }
  }
  if (sel.campaign) await campaignMask(db, sel.campaign, mask);

  let count = 0;
  for (let r = 0; r < facts.n; r++) if (mask[r]) count++;
  const rows = new Int32Array(count);
  let t = 0;
  for (let r = 0; r < facts.n; r++) if (mask[r]) rows[t++] = r;
  return rows.sort((a, b) => facts.id[a]! - facts.id[b]!);
}

async function campaignMask(db: Db, c: NonNullable<Selection["campaign"]>, mask: Uint8Array): Promise<void> {
  const facts = await getFacts(db);
  const l = await getCampaignLabels(db, c.campaignId);
  const annotatorCodes = (c.annotators ?? []).map((a) => l.dict.annotatorKey.indexOf(a));
  const verdicts = l.dict.verdict;
  const decided = verdicts.map((v) => v === "success" || v === "failure");
  const combined = (i: number) => {
    const v = verdicts[l.col.verdict[i]!]!;
    const cat = l.col.category[i]!;
    return combinedLabel(v, cat < 0 ? null : l.dict.category[cat]!);
  };
  // Labels per trajectory row (a trajectory appears once per campaign).
  const byRow = new Map<number, number[]>();
  for (let i = 0; i < l.length; i++) {
    const r = facts.rowOf(l.col.trajectoryId[i]!);
    if (r < 0) continue;
    let list = byRow.get(r);
    if (!list) byRow.set(r, (list = []));
    list.push(i);
  }
  const level = c.level ?? "label";
  for (let r = 0; r < facts.n; r++) {
    if (!mask[r]) continue;
    const all = byRow.get(r);
    let ok = all !== undefined;
    if (ok && annotatorCodes.length) ok = annotatorCodes.every((a) => a >= 0 && all!.some((i) => l.col.annotatorKey[i] === a && decided[l.col.verdict[i]!]));
    const considered = ok ? (annotatorCodes.length ? all!.filter((i) => annotatorCodes.includes(l.col.annotatorKey[i]!)) : all!) : [];
    if (ok && c.minLabels !== undefined) ok = all!.filter((i) => decided[l.col.verdict[i]!]).length >= c.minLabels;
    if (ok && c.label !== undefined) ok = considered.some((i) => decided[l.col.verdict[i]!] && combined(i) === c.label);
    if (ok && c.disagree) {
      const values =
        level === "verdict"
          ? considered.filter((i) => decided[l.col.verdict[i]!]).map((i) => verdicts[l.col.verdict[i]!])
          : considered.map((i) => (decided[l.col.verdict[i]!] ? combined(i) : verdicts[l.col.verdict[i]!]));
      ok = new Set(values).size > 1;
    }
    if (!ok) mask[r] = 0;
  }
}

export interface DrillInput {
  sel: Selection;
  page: number;
  pageSize: number;
}

/** The trajectories of a selection: total, one page of rows, a description, and a trajectory-list link when it fits. */
export async function drillDown(db: Db, input: DrillInput) {
  const facts = await getFacts(db);
  const rows = await selectionRows(db, input.sel);
  const total = rows.length;
  const ids = Array.from(rows, (r) => facts.id[r]!);
  const pageIds = ids.slice((input.page - 1) * input.pageSize, input.page * input.pageSize);

  const runs = new Map((await runNames(db)).map((r) => [r.id, r.name]));
  const sets = new Map((await listTaskSetNames(db)).map((s) => [s.id, s.name]));
  const campaigns = new Map((await listCampaignHeads(db)).map((c) => [c.id, c.name]));
  const nameOf = await evaluatorNameLookup(db);
  const users = await userNames(
    db,
    (input.sel.campaign?.annotators ?? []).filter((k) => k.startsWith("user:")).map((k) => k.slice(5)),
  );
  const description = describeSelection(input.sel, {
    run: (id) => runs.get(id),
    taskSet: (id) => sets.get(id),
    campaign: (id) => campaigns.get(id),
    evaluator: (e) => evaluatorLabel(nameOf(e.key), e, !!e.pv),
    annotator: (key) => (key.startsWith("import:") ? key.slice(7) : key.startsWith("user:") ? (users.get(key.slice(5)) ?? key) : key),
  });
  return {
    total,
    page: input.page,
    pageSize: input.pageSize,
    pageCount: Math.max(1, Math.ceil(total / input.pageSize)),
    description,
    /** `ids` value for /trajectories, when the whole selection fits in a URL. */
    idList: total > 0 && total <= MAX_IDS ? formatIdList(ids) : null,
    rows: await trajectoryRows(db, pageIds),
  };
}
