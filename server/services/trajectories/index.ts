/**
 * Trajectories leaving Verdict: ATIF exports, static reports (built on the page or as a job) and step links that
 * find a step by its content. Routers, route handlers, the CLI, benchmarks and the job runtime import from here. The
 * list and the player's read models are still in server/services/trajectory-views.ts.
 */
export { atifDownload, exportAtif } from "./atif-export";
export { reportJobHandler } from "./report-job";
export {
  deleteReport,
  enqueueReportsExpiry,
  expireReports,
  myReports,
  type MyReport,
  openReportDownload,
  REPORT_JOB_TYPE,
  reportJob,
  REPORTS_EXPIRE_EVERY_MS,
  REPORTS_EXPIRE_JOB_TYPE,
  reportsExpireJobHandler,
  startReport,
} from "./report-jobs";
export { buildReport, writeReport, type ReportOptions } from "./static-report";
export { resolveStepLink } from "./step-links";
