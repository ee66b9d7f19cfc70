/**
 * The application's tRPC router: one sub-router per domain, registered here by hand.
 */
import { analyticsRouter } from "./routers/analytics";
import { runsRouter, taskSetsRouter, tasksRouter } from "./routers/catalog";
import { trajectoriesRouter } from "./routers/trajectories";
import { liveRunsRouter } from "./routers/live-runs";
import { judgeRouter } from "./routers/evaluation";
import { scannersRouter } from "./routers/scanners";
import { accountsRouter } from "./routers/accounts";
import { campaignsRouter, labellingRouter, qaRouter } from "./routers/annotation";
import { importsRouter } from "./routers/imports";
import { commentsRouter } from "./routers/comments";
import { qualityRouter } from "./routers/quality";
import { deploymentProfilesRouter } from "./routers/deployment-profiles";
import { reportsRouter } from "./routers/reports";
import { automationRouter } from "./routers/automation";
import { pairwiseRouter } from "./routers/pairwise";
import { createCallerFactory, createTRPCRouter } from "./trpc";

export const appRouter = createTRPCRouter({
  trajectories: trajectoriesRouter,
  taskSets: taskSetsRouter,
  tasks: tasksRouter,
  runs: runsRouter,
  analytics: analyticsRouter,
  liveRuns: liveRunsRouter,
  judge: judgeRouter,
  scanners: scannersRouter,
  accounts: accountsRouter,
  campaigns: campaignsRouter,
  labelling: labellingRouter,
  qa: qaRouter,
  comments: commentsRouter,
  imports: importsRouter,
  quality: qualityRouter,
  deploymentProfiles: deploymentProfilesRouter,
  reports: reportsRouter,
  automation: automationRouter,
  pairwise: pairwiseRouter,
});

export type AppRouter = typeof appRouter;

/** Server-side caller (RSC pages, tests, scripts) without HTTP. */
export const createCaller = createCallerFactory(appRouter);
