/** The catalog area's services: the task validity ledger. */
export { exportTaskValidityLedger, flagTask, taskValidity, taskValidityLedger } from "./task-validity";
