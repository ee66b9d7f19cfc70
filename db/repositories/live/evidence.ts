/**
 * Deployment profiles (an admin's description of a benchmark deployment) and the evidence live runs leave beyond
 * their steps: per-step tabs, start times and prompts, and each trajectory's HAR.
 */
import { asc, eq } from "drizzle-orm";
import { insertReturningId, deleteBy, first, rowBy, tablesOf, updateBy, withTransaction, type Db } from "../../database";
import type { StoredDeploymentSite } from "../../schema/index";

export async function listDeploymentProfileRows(db: Db) {
  const { deploymentProfiles } = tablesOf(db);
  return db.select().from(deploymentProfiles).orderBy(asc(deploymentProfiles.name), asc(deploymentProfiles.id));
}

export async function getDeploymentProfileRow(db: Db, id: number) {
  return (await rowBy(db, tablesOf(db).deploymentProfiles, { id })) ?? null;
}

export async function findDeploymentProfileRowByName(db: Db, name: string) {
  return (await rowBy(db, tablesOf(db).deploymentProfiles, { name })) ?? null;
}

/** A stored deployment profile row. */
export type DeploymentProfileRow = NonNullable<Awaited<ReturnType<typeof getDeploymentProfileRow>>>;

export async function insertDeploymentProfile(db: Db, v: { name: string; description: string | null; sites: StoredDeploymentSite[] }): Promise<number> {
  return insertReturningId(db, tablesOf(db).deploymentProfiles, v);
}

export async function updateDeploymentProfile(db: Db, id: number, v: { description: string | null; sites: StoredDeploymentSite[] }): Promise<void> {
  await updateBy(db, tablesOf(db).deploymentProfiles, { id }, { ...v, updatedAt: new Date() });
}

export async function deleteDeploymentProfile(db: Db, id: number): Promise<boolean> {
  return (await deleteBy(db, tablesOf(db).deploymentProfiles, { id })) > 0;
}

export interface StepEvidenceValues {
  index: number;
  startedAt: number;
  tabs: { index: number; url: string; active: boolean }[] | null;
  prompt: { version: string; messages: unknown[] } | null;
}

export async function saveStepEvidence(db: Db, trajectoryId: number, v: StepEvidenceValues): Promise<void> {
  const { liveStepEvidence } = tablesOf(db);
  await db
    .insert(liveStepEvidence)
    .values({ trajectoryId, ...v })
    .onConflictDoUpdate({ target: [liveStepEvidence.trajectoryId, liveStepEvidence.index], set: { startedAt: v.startedAt, tabs: v.tabs, prompt: v.prompt } });
}

export async function stepEvidenceOf(db: Db, trajectoryId: number) {
  const { liveStepEvidence } = tablesOf(db);
  return db.select().from(liveStepEvidence).where(eq(liveStepEvidence.trajectoryId, trajectoryId)).orderBy(asc(liveStepEvidence.index));
}

export async function stepEvidenceAt(db: Db, trajectoryId: number, index: number) {
  return (await rowBy(db, tablesOf(db).liveStepEvidence, { trajectoryId, index })) ?? null;
}

/** Drops what an interrupted earlier attempt of a trajectory left (it starts over). */
export async function clearTrajectoryEvidence(db: Db, trajectoryId: number): Promise<void> {
  const { liveStepEvidence, liveTrajectoryHar } = tablesOf(db);
  await withTransaction(db, async () => {
    await db.delete(liveStepEvidence).where(eq(liveStepEvidence.trajectoryId, trajectoryId));
    await db.delete(liveTrajectoryHar).where(eq(liveTrajectoryHar.trajectoryId, trajectoryId));
  });
}

export async function saveTrajectoryHar(db: Db, trajectoryId: number, v: { harHash: string; bytes: number; entries: number }): Promise<void> {
  const { liveTrajectoryHar } = tablesOf(db);
  await db
    .insert(liveTrajectoryHar)
    .values({ trajectoryId, ...v })
    .onConflictDoUpdate({ target: liveTrajectoryHar.trajectoryId, set: v });
}

export async function trajectoryHarOf(db: Db, trajectoryId: number) {
  return (await rowBy(db, tablesOf(db).liveTrajectoryHar, { trajectoryId })) ?? null;
}

/** The stored copy of a task's input image fetched from `source`, if a run fetched it before. */
export async function storedInputImage(db: Db, taskId: number, source: string) {
  return (await rowBy(db, tablesOf(db).taskInputImages, { taskId, source })) ?? null;
}

/** Links a task's input image (from `source`) to its stored copy; the first run's copy is kept. */
export async function saveInputImage(db: Db, v: { taskId: number; source: string; imageHash: string; mime: string; bytes: number }): Promise<void> {
  const { taskInputImages } = tablesOf(db);
  await db.insert(taskInputImages).values(v).onConflictDoNothing();
}

/**
 * Whether a stored object is a live run's HAR or a task's input image: objects the screenshot rows do not name but
 * that must outlive garbage collection.
 */
export async function runnerObjectReferenced(db: Db, hash: string): Promise<boolean> {
  const { liveTrajectoryHar, taskInputImages } = tablesOf(db);
  const har = await first(db.select({ id: liveTrajectoryHar.trajectoryId }).from(liveTrajectoryHar).where(eq(liveTrajectoryHar.harHash, hash)).limit(1));
  if (har) return true;
  return !!(await first(db.select({ id: taskInputImages.taskId }).from(taskInputImages).where(eq(taskInputImages.imageHash, hash)).limit(1)));
}
