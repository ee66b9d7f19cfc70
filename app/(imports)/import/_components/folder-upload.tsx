"use client";
/**
 * The Import page's folder upload: a results folder dropped on the page or chosen with the folder picker. Each file
 * is hashed here, the server answers which contents it still needs (a reload or a cut connection resumes where it
 * stopped), each is sent once with its own progress, then the folder is imported by the same job as a zip. Files
 * the server refuses are listed with their reasons; a folder whose content was imported before asks first.
 */
import { useRef, useState, type DragEvent } from "react";

type FileState = "waiting" | "sending" | "sent" | "already there" | "failed";

interface Picked {
  path: string;
  file: File;
}

interface Plan {
  sessionId: string;
  missing: string[];
  refused: { path: string; reason: string }[];
  /** Someone else's earlier import is told only as a fact and a date. */
  earlier: { byYou: true; jobId: number; name: string; at: string } | { byYou: false; at: string } | null;
}

interface Row {
  path: string;
  size: number;
  sha256: string;
  state: FileState;
}

async function sha256Of(file: File): Promise<string> {
  if (!globalThis.crypto?.subtle) throw new Error("Folder uploads need the page served over https (or on localhost): the browser hashes files only there");
  const digest = await crypto.subtle.digest("SHA-256", await file.arrayBuffer());
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function request<T>(url: string, init: RequestInit): Promise<T> {
  const res = await fetch(url, init);
  const body = (await res.json().catch(() => ({}))) as T & { error?: string };
  if (!res.ok) throw Object.assign(new Error(body.error ?? `The server answered ${res.status}`), { status: res.status });
  return body;
}

/** Every file below a dropped folder, with its path from the folder's parent (as the picker gives them). */
async function filesOfEntry(entry: FileSystemEntry, prefix: string, out: Picked[]): Promise<void> {
  const here = prefix ? `${prefix}/${entry.name}` : entry.name;
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push({ path: here, file });
    return;
  }
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  // A directory reader hands its entries out in batches until it returns an empty one.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) break;
    for (const child of batch) await filesOfEntry(child, here, out);
  }
}

/** Splits "results/a/b.json" paths into the folder's name and the paths below it. */
function folderOf(picked: Picked[]): { name: string; files: Picked[] } {
  const tops = new Set(picked.map((p) => p.path.split("/")[0]));
  if (tops.size === 1 && picked.every((p) => p.path.includes("/"))) {
    const name = [...tops][0]!;
    return { name, files: picked.map((p) => ({ ...p, path: p.path.slice(name.length + 1) })) };
  }
  return { name: "folder", files: picked };
}

export function FolderUpload({ format, onStarted }: { format: string; onStarted: (jobId: number) => void }) {
  const [rows, setRows] = useState<Row[]>([]);
  const [refused, setRefused] = useState<Plan["refused"]>([]);
  const [phase, setPhase] = useState<"idle" | "hashing" | "sending" | "confirm" | "starting">("idle");
  const [message, setMessage] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const pending = useRef<{ sessionId: string; name: string; earlier: NonNullable<Plan["earlier"]> } | null>(null);
  const busy = phase === "hashing" || phase === "sending" || phase === "starting";

  const mark = (sha: string, state: FileState) => setRows((rs) => rs.map((r) => (r.sha256 === sha && r.state !== "sent" ? { ...r, state } : r)));

  async function upload(picked: Picked[]) {
    if (picked.length === 0) return setMessage("The folder is empty");
    const { name, files } = folderOf(picked);
    setMessage(null);
    setRefused([]);
    setPhase("hashing");
    try {
      const declared: Row[] = [];
      for (const f of files) declared.push({ path: f.path, size: f.file.size, sha256: await sha256Of(f.file), state: "waiting" });
      setRows(declared);
      const plan = await request<Plan>("/api/imports/folders", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ name, format, files: declared.map(({ path, size, sha256 }) => ({ path, size, sha256 })) }),
      });
      setRefused(plan.refused);
      const refusedPaths = new Set(plan.refused.map((r) => r.path));
      const needed = new Set(plan.missing);
      setRows(declared.filter((r) => !refusedPaths.has(r.path)).map((r) => ({ ...r, state: needed.has(r.sha256) ? "waiting" : "already there" })));
      setPhase("sending");
      await sendMissing(plan, files, declared);
      if (plan.earlier) {
        pending.current = { sessionId: plan.sessionId, name, earlier: plan.earlier };
        return setPhase("confirm");
      }
      await finish(plan.sessionId, false);
    } catch (e) {
      setMessage((e as Error).message);
      setPhase("idle");
    }
  }

  async function sendMissing(plan: Plan, files: Picked[], declared: Row[]) {
    for (const sha of plan.missing) {
      const index = declared.findIndex((r) => r.sha256 === sha);
      mark(sha, "sending");
      try {
        await request(`/api/imports/folders/${plan.sessionId}/files/${sha}`, { method: "PUT", body: files[index]!.file });
        mark(sha, "sent");
      } catch (e) {
        mark(sha, "failed");
        throw new Error(`${declared[index]!.path}: ${(e as Error).message}. Choose the folder again to send what is missing.`);
      }
    }
  }

  async function finish(sessionId: string, again: boolean) {
    setPhase("starting");
    try {
      const r = await request<{ jobId: number }>(`/api/imports/folders/${sessionId}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ again }),
      });
      pending.current = null;
      setPhase("idle");
      setRows([]);
      onStarted(r.jobId);
    } catch (e) {
      setMessage((e as Error).message);
      setPhase("idle");
    }
  }

  async function onDrop(e: DragEvent) {
    e.preventDefault();
    setDragging(false);
    if (busy) return;
    const entries = [...e.dataTransfer.items].map((i) => i.webkitGetAsEntry()).filter((x): x is FileSystemEntry => x !== null);
    const picked: Picked[] = [];
    try {
      for (const entry of entries) await filesOfEntry(entry, "", picked);
    } catch (err) {
      return setMessage(`The dropped folder could not be read: ${(err as Error).message}`);
    }
    await upload(picked);
  }

  return (
    <section className="panel px-4 py-3" aria-labelledby="folder-title">
      <h2 id="folder-title" className="section-title">
        Upload a folder
      </h2>
      <div
        data-testid="folder-drop"
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => void onDrop(e)}
        className={`mt-2 flex flex-wrap items-center gap-3 rounded-lg border-2 border-dashed px-4 py-4 text-[13px] ${dragging ? "border-sky-500 bg-sky-50" : "border-zinc-300"}`}
      >
        <span className="text-zinc-600">Drop a results folder here, or</span>
        <label className={`btn ${busy ? "pointer-events-none opacity-50" : ""}`}>
          Choose a folder…
          <input
            type="file"
            className="sr-only"
            aria-label="Choose a folder to import"
            disabled={busy}
            ref={(el) => el?.setAttribute("webkitdirectory", "")}
            onChange={(e) => {
              const list = [...(e.target.files ?? [])].map((file) => ({ path: file.webkitRelativePath || file.name, file }));
              e.target.value = "";
              void upload(list);
            }}
          />
        </label>
        <span className="text-[12px] text-zinc-500">Files the server already has are not sent again: choose the same folder to resume.</span>
      </div>
      {phase === "hashing" && <p className="mt-2 text-[12px] text-zinc-600">Reading the folder…</p>}
      {phase === "confirm" && pending.current && (
        <EarlierImportPrompt
          earlier={pending.current.earlier}
          onAgain={() => void finish(pending.current!.sessionId, true)}
          onCancel={() => {
            pending.current = null;
            setRows([]);
            setPhase("idle");
          }}
        />
      )}
      {message && (
        <div role="alert" className="mt-3 rounded-lg border border-rose-200 bg-rose-50 px-4 py-3 text-[13px] text-rose-800">
          {message}
        </div>
      )}
      <FolderFiles rows={rows} refused={refused} />
    </section>
  );
}

/** What became of each file: refused with its reason, or its progress to the server. */
function FolderFiles({ rows, refused }: { rows: Row[]; refused: Plan["refused"] }) {
  const sent = rows.filter((r) => r.state === "sent" || r.state === "already there").length;
  return (
    <>
      {refused.length > 0 && (
        <div className="mt-3 text-[12px]">
          <div className="font-medium text-rose-800">Not uploaded ({refused.length})</div>
          <ul className="mt-1 max-h-32 overflow-auto font-mono">
            {refused.map((r) => (
              <li key={r.path}>
                {r.path} <span className="font-sans text-zinc-600">{r.reason}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {rows.length > 0 && (
        <div className="mt-3">
          <div className="text-[12px] text-zinc-600" aria-live="polite">
            {sent} of {rows.length} files on the server
          </div>
          <ul className="mt-1 max-h-64 overflow-auto text-[12px]" aria-label="Files of the folder">
            {rows.map((r) => (
              <li key={r.path} className="flex justify-between gap-3 border-b border-zinc-100 py-0.5">
                <span className="truncate font-mono">{r.path}</span>
                <span className={r.state === "failed" ? "text-rose-700" : "text-zinc-500"}>{r.state}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </>
  );
}

/** The folder's content was imported before: import it again only when the person says so. */
function EarlierImportPrompt({ earlier, onAgain, onCancel }: { earlier: NonNullable<Plan["earlier"]>; onAgain: () => void; onCancel: () => void }) {
  return (
    <div role="alert" className="mt-3 rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-[13px] text-amber-900">
      {earlier.byYou
        ? `You imported a folder with the same files as “${earlier.name}” (import #${earlier.jobId}).`
        : `Someone else imported a folder with the same files on ${new Date(earlier.at).toLocaleDateString()}.`}{" "}
      Import it again?
      <span className="ml-3 inline-flex gap-2">
        <button type="button" className="btn" onClick={onAgain}>
          Import again
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </span>
    </div>
  );
}
