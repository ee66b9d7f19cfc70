"use client";
/**
 * What a live run kept about the step on screen, under the step details: the Network panel (the requests the browser
 * made during the step, from the trajectory's HAR: method, URL, status, size), the tabs that were open, and the
 * Prompt panel (the exact messages the VLM policy sent, images as their sha256). Researchers only: the server refuses
 * anyone else (annotators, researchers labelling blind), and the panel then shows nothing.
 */
import { useQuery } from "@tanstack/react-query";
import { useState, useEffect, type ReactNode } from "react";
import { useTRPC } from "../../../_trpc/client";

function formatBytes(n: number | null): string {
  if (n === null) return "–";
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} kB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

function shortUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}

interface PromptPart {
  type: string;
  text?: string;
  image_url?: { url: string };
}

/** `recording`: the task is still running, so its network log (written when the task ends) is not there yet. */
type EvidenceName = "network" | "prompt";

/** A tab of the evidence: pressing the open one closes it. */
function EvidenceTab({
  name,
  open,
  setOpen,
  children,
}: {
  name: EvidenceName;
  open: EvidenceName | null;
  setOpen: (n: EvidenceName | null) => void;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      role="tab"
      aria-selected={open === name}
      className={`btn ${open === name ? "btn-on" : ""}`}
      onClick={() => setOpen(open === name ? null : name)}
      data-testid={`tab-${name}`}
    >
      {children}
    </button>
  );
}

export function LiveEvidencePanel({ trajectoryId, step, recording = false }: { trajectoryId: number; step: number; recording?: boolean }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState<EvidenceName | null>("network");
  const query = useQuery({ ...trpc.liveRuns.stepEvidence.queryOptions({ trajectoryId, step }), retry: false, staleTime: recording ? 0 : 60_000 });
  // The log is saved as the task ends: ask again then, rather than keep saying there is none until a reload.
  const { refetch } = query;
  useEffect(() => {
    if (!recording) void refetch();
  }, [recording, refetch]);
  // Refused (not a researcher, or labelling blind) or not a recorded live step: nothing to show.
  if (query.isError || !query.data?.recorded) return null;
  const { network, prompt, tabs } = query.data;
  const messages = (prompt?.messages ?? []) as { role: string; content: string | PromptPart[] }[];
  return (
    <div className="flex flex-col gap-2 border-t border-zinc-200 p-4 text-[12px]" data-testid="live-evidence">
      <div className="flex gap-1.5" role="tablist" aria-label="Live run evidence">
        <EvidenceTab name="network" open={open} setOpen={setOpen}>
          Network{network ? ` (${network.total})` : ""}
        </EvidenceTab>
        <EvidenceTab name="prompt" open={open} setOpen={setOpen}>
          Prompt
        </EvidenceTab>
      </div>
      {tabs && tabs.length > 1 && (
        <div className="text-2xs text-zinc-500" data-testid="step-tabs">
          Tabs:{" "}
          {tabs.map((t) => (
            <span key={t.index} className={t.active ? "font-semibold text-zinc-800" : ""}>
              [{t.index}] {shortUrl(t.url)}{" "}
            </span>
          ))}
        </div>
      )}
      {open === "network" && (
        <div role="tabpanel" aria-label="Network" data-testid="network-panel">
          {!network ? (
            <p className="text-zinc-500" data-testid="network-none">
              {recording ? "The network log is saved when the task ends; it shows here then." : "No network log was kept for this run."}
            </p>
          ) : network.requests.length === 0 ? (
            <p className="text-zinc-500">No requests during this step.</p>
          ) : (
            <table className="w-full table-fixed text-2xs">
              <thead>
                <tr className="text-left text-zinc-500">
                  <th className="w-14">Method</th>
                  <th>URL</th>
                  <th className="w-10 text-right">Status</th>
                  <th className="w-14 text-right">Size</th>
                </tr>
              </thead>
              <tbody>
                {network.requests.map((r, i) => (
                  <tr key={i} className={r.status === 0 || r.status >= 400 ? "text-rose-700" : "text-zinc-700"}>
                    <td className="font-mono">{r.method}</td>
                    <td className="truncate font-mono" title={r.url}>
                      {shortUrl(r.url)}
                    </td>
                    <td className="text-right tabular-nums">{r.status || "–"}</td>
                    <td className="text-right tabular-nums">{formatBytes(r.size)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {network && network.total > network.requests.length && <p className="mt-1 text-zinc-500">… {network.total - network.requests.length} more</p>}
          {network && (
            <p className="mt-1 truncate font-mono text-2xs text-zinc-400" title={network.harHash}>
              HAR sha256 {network.harHash.slice(0, 16)}… · {network.harEntries} requests in all
            </p>
          )}
        </div>
      )}
      {open === "prompt" && (
        <div role="tabpanel" aria-label="Prompt" data-testid="prompt-panel" className="flex flex-col gap-2">
          {!prompt ? (
            <p className="text-zinc-500">No prompt: this step was not decided by a model (scripted policy, or a blocked page).</p>
          ) : (
            <>
              <p className="text-zinc-500">
                Prompt <span className="font-mono">{prompt.version}</span> · {messages.length} messages
              </p>
              {messages.map((m, i) => (
                <div key={i} className="rounded border border-zinc-200 px-2 py-1">
                  <div className="text-2xs font-semibold tracking-wide text-zinc-500 uppercase">{m.role}</div>
                  {typeof m.content === "string" ? (
                    <pre className="font-mono text-2xs whitespace-pre-wrap text-zinc-800">{m.content}</pre>
                  ) : (
                    m.content.map((p, j) =>
                      p.type === "text" ? (
                        <pre key={j} className="font-mono text-2xs whitespace-pre-wrap text-zinc-800">
                          {p.text}
                        </pre>
                      ) : (
                        <div key={j} className="font-mono text-2xs text-indigo-700" title={p.image_url?.url}>
                          [image {p.image_url?.url.slice(0, 23)}…]
                        </div>
                      ),
                    )
                  )}
                </div>
              ))}
            </>
          )}
        </div>
      )}
    </div>
  );
}
