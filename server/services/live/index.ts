/**
 * Live runs: starting, following and cancelling runs of an agent, the deployment profiles they run with, the evidence
 * they leave, the demo tasks and the runner's egress proxy. Routers, the CLI, benchmarks and demo data import from here.
 * The runner itself (./worker.ts, which drives Chromium) is not behind this door: the web process loads the door and
 * never runs a browser, so only the job runtime, the CLI's `run` and the runner benchmark import the runner directly.
 */
export { ensureDemoTaskSet } from "./demo-tasks";
export {
  createDeploymentProfile,
  deleteDeploymentProfile,
  getDeploymentProfile,
  listDeploymentProfiles,
  updateDeploymentProfile,
  findDeploymentProfile,
  type DeploymentProfileView,
} from "./deployment-profiles";
export { EgressProxy } from "./egress-proxy";
export { liveStepEvidence } from "./evidence";
export {
  liveRunDetail,
  startLiveRun,
  cancelLiveRun,
  listLiveRuns,
  liveRunFormOptions,
  liveTrajectoryPulse,
  previewLiveRun,
  type LiveRunDeps,
  liveGroupKey,
  storedTask,
  taskSetNamed,
} from "./live-runs";
