/**
 * Deployment profiles (an admin's description of a benchmark deployment) and the evidence live runs leave beyond
 * their steps: per-step tabs, start times and prompts, and each trajectory's HAR.
 */
import { and, asc, eq } from "drizzle-orm";
import type { Db } from "../client";
import { deploymentProfiles, liveStepEvidence, liveTrajectoryHar, type StoredDeploymentSite } from "../schema/index";

export function listDeploymentProfileRows(db: Db) {
  return db.select().from(deploymentProfiles).orderBy(asc(deploymentProfiles.name)).all();
}

export function getDeploymentProfileRow(db: Db, id: number) {
  return db.select().from(deploymentProfiles).where(eq(deploymentProfiles.id, id)).get() ?? null;
}

export function findDeploymentProfileRowByName(db: Db, name: string) {
  return db.select().from(deploymentProfiles).where(eq(deploymentProfiles.name, name)).get() ?? null;
}

export function insertDeploymentProfile(db: Db, v: { name: string; description: string | null; sites: StoredDeploymentSite[] }): number {
  return db.insert(deploymentProfiles).values(v).returning({ id: deploymentProfiles.id }).get().id;
}

export function updateDeploymentProfile(db: Db, id: number, v: { description: string | null; sites: StoredDeploymentSite[] }): void {
  db.update(deploymentProfiles).set({ ...v, updatedAt: new Date() }).where(eq(deploymentProfiles.id, id)).run();
}

export function deleteDeploymentProfile(db: Db, id: number): boolean {
  return db.delete(deploymentProfiles).where(eq(deploymentProfiles.id, id)).run().changes > 0;
}

export interface StepEvidenceValues {
  index: number;
  startedAt: number;
  tabs: { index: number; url: string; active: boolean }[] | null;
  prompt: { version: string; messages: unknown[] } | null;
}

export function saveStepEvidence(db: Db, trajectoryId: number, v: StepEvidenceValues): void {
  db.insert(liveStepEvidence)
    .values({ trajectoryId, ...v })
    .onConflictDoUpdate({ target: [liveStepEvidence.trajectoryId, liveStepEvidence.index], set: { startedAt: v.startedAt, tabs: v.tabs, prompt: v.prompt } })
    .run();
}

export function stepEvidenceOf(db: Db, trajectoryId: number) {
  return db.select().from(liveStepEvidence).where(eq(liveStepEvidence.trajectoryId, trajectoryId)).orderBy(asc(liveStepEvidence.index)).all();
}

export function stepEvidenceAt(db: Db, trajectoryId: number, index: number) {
  return db.select().from(liveStepEvidence).where(and(eq(liveStepEvidence.trajectoryId, trajectoryId), eq(liveStepEvidence.index, index))).get() ?? null;
}

/** Drops what an interrupted earlier attempt of a trajectory left (it starts over). */
export function clearTrajectoryEvidence(db: Db, trajectoryId: number): void {
  db.delete(liveStepEvidence).where(eq(liveStepEvidence.trajectoryId, trajectoryId)).run();
  db.delete(liveTrajectoryHar).where(eq(liveTrajectoryHar.trajectoryId, trajectoryId)).run();
}

export function saveTrajectoryHar(db: Db, trajectoryId: number, v: { harHash: string; bytes: number; entries: number }): void {
  db.insert(liveTrajectoryHar)
    .values({ trajectoryId, ...v })
    .onConflictDoUpdate({ target: liveTrajectoryHar.trajectoryId, set: v })
    .run();
}

export function trajectoryHarOf(db: Db, trajectoryId: number) {
  return db.select().from(liveTrajectoryHar).where(eq(liveTrajectoryHar.trajectoryId, trajectoryId)).get() ?? null;
}
