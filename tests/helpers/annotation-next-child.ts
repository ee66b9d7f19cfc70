/**
 * Child process for the cross-process "next" test: opens the database file in argv[2], waits at the parent's
 * barrier (tests/helpers/barrier.ts) so every child starts together, then asks for the next assignment of each
 * user id in argv[4..] of campaign argv[3] and prints the results as JSON, each with when its call started and
 * ended (milliseconds since the epoch, sub-millisecond), so the parent can see the calls overlapped.
 */
import { openDatabase } from "../../db/client";
import { closeDatabase } from "../../db/database";
import { nextAssignment } from "../../server/services/annotation";
import { barrierReady } from "./barrier";

const [file, campaignId, ...userIds] = process.argv.slice(2);
const db = openDatabase(file!);
await barrierReady();
const clock = () => performance.timeOrigin + performance.now();
const results = [];
for (const userId of userIds) {
  const startedAt = clock();
  const a = await nextAssignment(db, { userId, name: userId, role: "annotator" }, Number(campaignId));
  results.push({ userId, itemId: a?.itemId ?? null, startedAt, endedAt: clock() });
}
process.stdout.write(JSON.stringify(results));
await closeDatabase(db);
