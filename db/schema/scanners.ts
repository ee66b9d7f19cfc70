/**
 * Scanners (server/domain/evaluation/scanners): detectors of environment faults over steps. Built-in scanners live
 * in code; `scanners` holds the ones researchers wrote. A scan of one trajectory by one scanner is a row of
 * `scanner_scans` (replaced when scanned again), and each step it matched a row of `scanner_matches`, so "scanned,
 * nothing found" and "never scanned" stay apart. `definition_hash` is the hash of the definition the scan ran with:
 * results of an edited scanner are told apart from current ones.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { ScannerRule } from "../../server/domain/evaluation/scanners/definitions";
import { users } from "./auth";
import { trajectories } from "./core";
import { cascadeId } from "./columns";

const nowMs = sql`(unixepoch('subsec') * 1000)`;

export const scanners = sqliteTable("scanners", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  key: text("key").notNull().unique(),
  name: text("name").notNull(),
  description: text("description").notNull().default(""),
  category: text("category").notNull(),
  rules: text("rules", { mode: "json" }).$type<ScannerRule[]>().notNull(),
  minConsecutive: integer("min_consecutive").notNull().default(1),
  createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
});

export const scannerScans = sqliteTable(
  "scanner_scans",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    scannerKey: text("scanner_key").notNull(),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    definitionHash: text("definition_hash").notNull(),
    /** Steps matched (0: scanned, nothing found). */
    matchCount: integer("match_count").notNull(),
    /** Why the scan could not finish (time budget spent, screenshot unreadable); null when it did. */
    problem: text("problem"),
    scannedAt: integer("scanned_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  },
  (t) => [uniqueIndex("scanner_scans_scanner_trajectory_uq").on(t.scannerKey, t.trajectoryId), index("scanner_scans_trajectory_idx").on(t.trajectoryId)],
);

export const scannerMatches = sqliteTable(
  "scanner_matches",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    scannerKey: text("scanner_key").notNull(),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    stepIndex: integer("step_index").notNull(),
    ruleIndex: integer("rule_index").notNull(),
    /** The field the rule read (SCANNER_FIELDS), or `screenshot`. */
    field: text("field").notNull(),
    matchedText: text("matched_text").notNull(),
  },
  (t) => [
    index("scanner_matches_scanner_trajectory_idx").on(t.scannerKey, t.trajectoryId),
    index("scanner_matches_trajectory_idx").on(t.trajectoryId, t.stepIndex),
  ],
);

export type ScannerRow = typeof scanners.$inferSelect;
export type ScannerScanRow = typeof scannerScans.$inferSelect;
export type ScannerMatchRow = typeof scannerMatches.$inferSelect;
