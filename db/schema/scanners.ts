/**
 * Scanners (server/domain/evaluation/scanners): detectors of environment faults over steps. Built-in scanners live
 * in code; `scanners` holds the ones researchers wrote. A scan of one trajectory by one scanner is a row of
 * `scanner_scans` (replaced when scanned again), and each step it matched a row of `scanner_matches`, so "scanned,
 * nothing found" and "never scanned" stay apart. `definition_hash` is the hash of the definition the scan ran with:
 * results of an edited scanner are told apart from current ones.
 */
import type { ScannerRule } from "../../server/domain/evaluation/scanners/definitions";
import { users } from "./auth";
import { trajectories } from "./core";
import { sqliteKit, timestamps, type SchemaKit, type TableRefs } from "./columns";

/** The tables this module's tables reference, of the dialect being declared. */
export type ScannerRefs = TableRefs<"users" | "trajectories">;

/** The tables of this module, declared once for both dialects (db/schema/columns.ts). */
export function scannerTables(k: SchemaKit, { users, trajectories }: ScannerRefs) {
  const scanners = k.table("scanners", {
    id: k.id(),
    key: k.text("key").notNull().unique(),
    name: k.text("name").notNull(),
    description: k.text("description").notNull().default(""),
    category: k.text("category").notNull(),
    rules: k.json("rules").$type<ScannerRule[]>().notNull(),
    minConsecutive: k.integer("min_consecutive").notNull().default(1),
    createdBy: k.text("created_by").references(() => users.id, { onDelete: "set null" }),
    ...timestamps(k),
  });

  const scannerScans = k.table(
    "scanner_scans",
    {
      id: k.id(),
      scannerKey: k.text("scanner_key").notNull(),
      trajectoryId: k.cascadeId("trajectory_id", () => trajectories.id),
      definitionHash: k.text("definition_hash").notNull(),
      /** Steps matched (0: scanned, nothing found). */
      matchCount: k.integer("match_count").notNull(),
      /** Why the scan could not finish (time budget spent, screenshot unreadable); null when it did. */
      problem: k.text("problem"),
      scannedAt: k.stamp("scanned_at"),
    },
    (t) => [k.uniqueIndex("scanner_scans_scanner_trajectory_uq").on(t.scannerKey, t.trajectoryId), k.index("scanner_scans_trajectory_idx").on(t.trajectoryId)],
  );

  const scannerMatches = k.table(
    "scanner_matches",
    {
      id: k.id(),
      scannerKey: k.text("scanner_key").notNull(),
      trajectoryId: k.cascadeId("trajectory_id", () => trajectories.id),
      stepIndex: k.integer("step_index").notNull(),
      ruleIndex: k.integer("rule_index").notNull(),
      /** The field the rule read (SCANNER_FIELDS), or `screenshot`. */
      field: k.text("field").notNull(),
      matchedText: k.text("matched_text").notNull(),
    },
    (t) => [
      k.index("scanner_matches_scanner_trajectory_idx").on(t.scannerKey, t.trajectoryId),
      k.index("scanner_matches_trajectory_idx").on(t.trajectoryId, t.stepIndex),
    ],
  );
  return { scanners, scannerScans, scannerMatches };
}

export const { scanners, scannerScans, scannerMatches } = scannerTables(sqliteKit, { users, trajectories });

export type ScannerRow = typeof scanners.$inferSelect;
export type ScannerScanRow = typeof scannerScans.$inferSelect;
export type ScannerMatchRow = typeof scannerMatches.$inferSelect;
