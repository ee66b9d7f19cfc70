/**
 * The job runtime's door for the areas: enqueue work and follow it (queues, job groups, jobs a user requested), take
 * uploads within their quota, run a CPU-bound step in a thread, and the worker loop the areas' handlers run in.
 * The runtime that registers every area's handlers (./runtime.ts), the supervisor that keeps workers running
 * (./supervisor.ts) and the tasks run in threads (./thread-tasks.ts) import the areas themselves, so they stay outside
 * this door: only the processes' entry points (scripts/worker.ts, scripts/serve.ts, scripts/run-worker.ts) import them.
 */
export { createJobQueue } from "./create-queue";
export { closeQueueFor } from "./installation-queue";
export { jobsOfGroup, cancelGroup, enqueueJobs, groupProgress, isJobHeld, resumeGroup, type GroupProgress, cancelJob } from "./queue";
export { enqueueRequestedJob, requestedJob, type RequestedJobPayload, type RequestedJobView } from "./requested-jobs";
export { runInThread } from "./threads";
export { receiveUpload, type UploadReceipt, checkUploadRoom } from "./upload-quota";
export { runWorker, RetryableJobError, type JobOutcome, type WorkerSummary, JobRefusedError, JobInterrupted, type JobContext } from "./worker";
