/**
 * The imports area's door: what routers, route handlers, the CLI and other areas use to bring trajectories in, and
 * the formats they may name. Callers above services reach the importers (server/importers) only through here.
 */
export { detectImporter, getImporter, IMPORTERS } from "../../importers/registry";
export { ImportError } from "../../importers/types";
export { ImportRefusedError, runImport, type ImportReport } from "./ingest";
export { cliUnpackDir, isZipFile, openZipSource, zipPathNamer } from "./zip-source";
export { importJobStatus, newUploadPath, recentImports, resolveServerPath, startImport, uploadWhere } from "./jobs";
export { dedupeTrajectories, type DedupeReport } from "./dedupe";
export { dedupeJob, startDedupe, DEDUPE_JOB_TYPE } from "./dedupe-jobs";
export {
  beginFolderUpload,
  expireFolderUploads,
  finishFolderUpload,
  folderDeclarationLimit,
  receiveFolderFile,
  type FolderUploadPlan,
  type FolderUploadRequest,
} from "./folder-uploads";
export { taskValues } from "./ingest";
export { dedupeJobHandler } from "./dedupe-job";
export { runImportWorker } from "./jobs";
