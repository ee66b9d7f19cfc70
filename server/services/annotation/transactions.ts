import type { TransactionOptions } from "../../../db/database";

/**
 * Labelling writes (next, submit, undo, skip, QA decisions, reveals) take turns within a web server: on PostgreSQL
 * they touch the same campaign rows and change counters, and side by side under SERIALIZABLE they would abort one
 * another (see TransactionOptions.lane). One at a time, each takes a few milliseconds.
 */
export const LABELLING_TRANSACTION: TransactionOptions = { lane: "labelling" };
