import type { TransactionOptions } from "../../../db/database";

/**
 * Writes that stay rare next to labelling (QA decisions, reveals) take turns within a web server: on PostgreSQL they
 * touch the same items and change counters as labelling, and side by side under SERIALIZABLE they would abort one
 * another (see TransactionOptions.lane). One at a time, each takes a few milliseconds.
 */
export const LABELLING_TRANSACTION: TransactionOptions = { lane: "labelling" };

/**
 * An annotator's next, submit, undo, skip and release: dozens of annotators per campaign do these all day, so on
 * PostgreSQL they run side by side, READ COMMITTED, and guard what they read and then write with row locks instead:
 * - "next" (and undo, which can give a reservation back) locks the campaign row first, so two annotators cannot
 *   both take an item's last slot; reads that follow see everything committed before the lock was granted;
 * - submit and undo lock the item row first, so a double click or a retried request finds the first one's
 *   revision, and the item's label count and state are recomputed over every label committed before it.
 * The change counters their triggers bump are row updates, which wait for each other rather than abort.
 * SQLite runs one transaction at a time, and these locks are plain reads there.
 */
export const LABEL_WRITE_TRANSACTION: TransactionOptions = { isolation: "read committed" };
