/** Scanners on PostgreSQL; see db/schema/scanners.ts for their meaning. */
import { index, integer, json, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { ScannerRule } from "../../server/domain/evaluation/scanners/definitions";
import { users } from "./auth";
import { trajectories } from "./core";
import { cascadeId, epochMs, nowMs } from "./columns";

export const scanners = pgTable("scanners", {
  id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
  key: text("key").notNull().unique(),
  name: text("name").notNull(),
  description: text("description").notNull().default(""),
  category: text("category").notNull(),
  rules: json("rules").$type<ScannerRule[]>().notNull(),
  minConsecutive: integer("min_consecutive").notNull().default(1),
  createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
  createdAt: epochMs("created_at").notNull().default(nowMs),
  updatedAt: epochMs("updated_at").notNull().default(nowMs),
});

export const scannerScans = pgTable(
  "scanner_scans",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    scannerKey: text("scanner_key").notNull(),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    definitionHash: text("definition_hash").notNull(),
    matchCount: integer("match_count").notNull(),
    problem: text("problem"),
    scannedAt: epochMs("scanned_at").notNull().default(nowMs),
  },
  (t) => [uniqueIndex("scanner_scans_scanner_trajectory_uq").on(t.scannerKey, t.trajectoryId), index("scanner_scans_trajectory_idx").on(t.trajectoryId)],
);

export const scannerMatches = pgTable(
  "scanner_matches",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    scannerKey: text("scanner_key").notNull(),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    stepIndex: integer("step_index").notNull(),
    ruleIndex: integer("rule_index").notNull(),
    field: text("field").notNull(),
    matchedText: text("matched_text").notNull(),
  },
  (t) => [
    index("scanner_matches_scanner_trajectory_idx").on(t.scannerKey, t.trajectoryId),
    index("scanner_matches_trajectory_idx").on(t.trajectoryId, t.stepIndex),
  ],
);
