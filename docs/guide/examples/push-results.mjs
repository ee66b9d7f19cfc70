#!/usr/bin/env node
// Push a results folder (as a .zip) to Verdict, wait for its import, and print each imported trajectory with its
// verdicts and labels as JSON. Node 20 or later, no packages needed.
//
//   VERDICT_TOKEN=vdt_… node push-results.mjs https://verdict.lab.example results.zip
//
// The token needs the read-write scope and a researcher's or admin's account (docs/guide/api.md).
import { readFile } from "node:fs/promises";
import { basename } from "node:path";

const [base, zipPath] = process.argv.slice(2);
const token = process.env.VERDICT_TOKEN;
if (!base || !zipPath || !token) {
  console.error("usage: VERDICT_TOKEN=… node push-results.mjs <verdict url> <results.zip>");
  process.exit(2);
}
const headers = { Authorization: `Bearer ${token}` };

async function call(path, init = {}) {
  const res = await fetch(new URL(path, base), { ...init, headers: { ...headers, ...init.headers } });
  const body = await res.json();
  if (!res.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${res.status} ${body.error}`);
  return body;
}

const name = encodeURIComponent(basename(zipPath));
const { jobId } = await call(`/api/v1/imports?name=${name}`, {
  method: "POST",
  headers: { "Content-Type": "application/zip" },
  body: await readFile(zipPath),
});
console.error(`import ${jobId} queued`);

// Poll until the job is over; the Import page shows the same job.
let job;
for (let wait = 500; ; wait = Math.min(wait * 2, 5000)) {
  job = await call(`/api/v1/imports/${jobId}`);
  if (!["queued", "running"].includes(job.status)) break;
  if (job.progress) console.error(`${job.progress.phase}: ${job.progress.done ?? 0} of ${job.progress.total ?? "?"}`);
  await new Promise((r) => setTimeout(r, wait));
}
if (job.status !== "succeeded") throw new Error(`import ${jobId} ${job.status}: ${job.error}`);

const trajectories = [];
for (const t of job.report.trajectories) {
  const { task, steps, evaluations } = await call(`/api/v1/trajectories/${t.id}`);
  trajectories.push({ id: t.id, task: task.externalId, steps: steps.length, evaluations });
}
console.log(JSON.stringify({ jobId, created: job.report.created, trajectories }, null, 2));
