/**
 * Child process for the cross-process "next" test: opens the database file in argv[2], waits until the wall
 * clock reaches argv[3] (so every child starts together), then asks for the next assignment of each user id in
 * argv[4..] of campaign argv[4] and prints the results as JSON.
 */
import { openDatabase } from "../../db/client";
import { closeDatabase } from "../../db/database";
import { nextAssignment } from "../../server/services/annotation";

const [file, startAt, campaignId, ...userIds] = process.argv.slice(2);
const db = openDatabase(file!);
while (Date.now() < Number(startAt)) await new Promise((r) => setTimeout(r, 1));
const results = [];
for (const userId of userIds) {
  const a = await nextAssignment(db, { userId, name: userId, role: "annotator" }, Number(campaignId));
  results.push({ userId, itemId: a?.itemId ?? null });
}
process.stdout.write(JSON.stringify(results));
await closeDatabase(db);
