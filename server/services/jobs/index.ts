/**
 * The job runtime's door for the areas: enqueue work and follow it (queues, job groups, jobs a user requested), take
 * uploads within their quota, run a CPU-bound step in a thread, and the worker loop the areas' handlers run in.
 * The runtime that registers every area's handlers (./runtime.ts) and the tasks run in threads (./thread-tasks.ts)
 * import the areas themselves, and the supervisor that restarts a worker (./supervisor.ts) is loaded by launchers that
 * need nothing else: they stay outside this door (DOOR_PASSES in eslint.config.mjs gives each reason).
 */
export { createJobQueue } from "./create-queue";
export { closeQueueFor } from "./installation-queue";
export { jobsOfGroup, cancelGroup, enqueueJobs, groupProgress, isJobHeld, resumeGroup, type GroupProgress, cancelJob } from "./queue";
export { enqueueRequestedJob, enqueueUploadedTextJob, requestedJob, type RequestedJobPayload, type RequestedJobView } from "./requested-jobs";
export { receiveUpload, type UploadReceipt, checkUploadRoom } from "./upload-quota";
export { runWorker, RetryableJobError, type JobOutcome, type WorkerSummary, JobRefusedError, JobInterrupted, type JobContext, type JobHandler } from "./worker";
