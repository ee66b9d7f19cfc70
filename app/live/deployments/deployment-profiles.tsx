"use client";
/**
 * Admins' editor of deployment profiles: the list (sites, logins without their secrets, reset hooks, the destinations
 * a run may reach) and a JSON editor for one profile, the same format as `npm run cli -- deployment-profile create`.
 * A Playwright storage-state file can be attached to a site instead of pasting it. Passwords and storage states are
 * sealed on the server and never come back; leaving them out of an update keeps the stored ones.
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useState } from "react";
import type { AppRouter } from "@/server/api/root";
import { SITE_PLACEHOLDERS } from "@/server/domain/live/deployment";
import { useTRPC } from "../../_trpc/client";
import { DenseTable } from "../../_components/table";

type Profile = inferRouterOutputs<AppRouter>["deploymentProfiles"]["list"][number];

const EXAMPLE = JSON.stringify(
  {
    name: "lab deployment",
    sites: [
      {
        placeholder: "__REDDIT__",
        url: "http://10.0.0.5:9999",
        login: {
          kind: "recipe",
          url: "http://10.0.0.5:9999/login",
          usernameSelector: "#login_username",
          passwordSelector: "#login_password",
          submitSelector: "button[type=submit]",
          username: "MarvelsGrantMan136",
          password: "…",
        },
        reset: { method: "POST", url: "http://10.0.0.5:7000/reset/reddit" },
      },
      { placeholder: "__HOMEPAGE__", url: "http://10.0.0.5:4399" },
    ],
  },
  null,
  2,
);

/** The profile as editable JSON: secrets left out (the server keeps them when they stay out). */
function editable(p: Profile): string {
  return JSON.stringify(
    {
      name: p.name,
      ...(p.description ? { description: p.description } : {}),
      sites: p.sites.map((s) => ({
        placeholder: s.placeholder,
        url: s.url,
        ...(s.login?.kind === "recipe"
          ? {
              login: {
                kind: "recipe",
                url: s.login.url,
                usernameSelector: s.login.usernameSelector,
                passwordSelector: s.login.passwordSelector,
                submitSelector: s.login.submitSelector,
                username: s.login.username,
              },
            }
          : s.login
            ? { login: { kind: "storageState" } }
            : {}),
        ...(s.reset ? { reset: s.reset } : {}),
      })),
    },
    null,
    2,
  );
}

export function DeploymentProfiles({ initial }: { initial: Profile[] }) {
  const trpc = useTRPC();
  const list = useQuery({ ...trpc.deploymentProfiles.list.queryOptions(), initialData: initial });
  const [editing, setEditing] = useState<number | null>(null);
  const [text, setText] = useState(EXAMPLE);
  const [stateFor, setStateFor] = useState<string>("__REDDIT__");
  const [problem, setProblem] = useState<string | null>(null);
  const done = () => {
    setProblem(null);
    setEditing(null);
    setText(EXAMPLE);
    void list.refetch();
  };
  const create = useMutation(trpc.deploymentProfiles.create.mutationOptions({ onSuccess: done, onError: (e) => setProblem(e.message) }));
  const update = useMutation(trpc.deploymentProfiles.update.mutationOptions({ onSuccess: done, onError: (e) => setProblem(e.message) }));
  const remove = useMutation(trpc.deploymentProfiles.delete.mutationOptions({ onSuccess: done, onError: (e) => setProblem(e.message) }));

  const parsed = (): unknown => {
    try {
      return JSON.parse(text);
    } catch (e) {
      setProblem(`The profile is not JSON: ${(e as Error).message}`);
      return null;
    }
  };
  const attachState = async (file: File) => {
    const body = parsed() as { sites?: { placeholder: string; login?: unknown }[] } | null;
    if (!body) return;
    const site = body.sites?.find((s) => s.placeholder === stateFor);
    if (!site) return setProblem(`${stateFor} is not among the profile's sites: add it first`);
    site.login = { kind: "storageState", state: await file.text() };
    setText(JSON.stringify(body, null, 2));
    setProblem(null);
  };

  return (
    <div className="mx-auto flex w-full max-w-5xl flex-col gap-4 px-6 py-5">
      <section className="panel overflow-x-auto" aria-label="Profiles">
        <DenseTable columns={["Profile", "Sites", "Runs may reach", ""]} testId="deployment-profiles">
          {list.data.length === 0 && (
            <tr>
              <td colSpan={4} className="text-zinc-500">
                No profiles yet. Describe your deployment below.
              </td>
            </tr>
          )}
          {list.data.map((p) => (
            <tr key={p.id} data-testid={`profile-${p.name}`}>
              <td className="font-medium">{p.name}</td>
              <td>
                {p.sites.map((s) => (
                  <div key={s.placeholder} className="text-[12px]">
                    <span className="font-mono">{s.placeholder}</span> → {s.url}
                    <span className="text-zinc-500">
                      {" "}
                      · {s.login?.kind === "recipe" ? `login as ${s.login.username}` : s.login ? `storage state (${s.login.cookies} cookies)` : "no login"}
                      {s.reset ? ` · reset ${s.reset.method}` : ""}
                    </span>
                  </div>
                ))}
              </td>
              <td className="font-mono text-2xs">{p.destinations.join(", ")}</td>
              <td className="whitespace-nowrap">
                <button type="button" className="btn" onClick={() => (setEditing(p.id), setText(editable(p)), setProblem(null))}>
                  Edit
                </button>{" "}
                <button
                  type="button"
                  className="btn border-rose-300 text-rose-700"
                  onClick={() =>
                    window.confirm(`Delete the profile ${p.name}? Runs already started keep its URLs but cannot sign in again.`) && remove.mutate({ id: p.id })
                  }
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </DenseTable>
      </section>

      <section className="panel flex flex-col gap-3 px-4 py-3" aria-label="Profile editor">
        <h2 className="section-title">{editing ? "Edit profile" : "New profile"}</h2>
        <p className="text-[12px] text-zinc-600">
          Placeholders: {SITE_PLACEHOLDERS.join(", ")}. A login is a recipe (the login page, the two field selectors, an optional submit button, the account) or
          a Playwright storage-state file; a reset hook is called (POST or GET) before every task that uses the site. Passwords and storage states are stored
          encrypted and never shown again: leave them out to keep the stored ones.
        </p>
        <textarea
          className="field h-80 py-1.5 font-mono text-[12px]"
          value={text}
          onChange={(e) => setText(e.target.value)}
          aria-label="Profile JSON"
          data-testid="profile-json"
        />
        <div className="flex flex-wrap items-center gap-2 text-[12px]">
          <span>Attach a storage-state file to</span>
          <select className="field w-48" value={stateFor} onChange={(e) => setStateFor(e.target.value)} aria-label="Site for the storage-state file">
            {SITE_PLACEHOLDERS.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
          <input
            type="file"
            accept="application/json,.json"
            onChange={(e) => e.target.files?.[0] && void attachState(e.target.files[0])}
            aria-label="Storage-state file"
          />
        </div>
        {problem && (
          <p role="alert" className="text-[12px] text-rose-700">
            {problem}
          </p>
        )}
        <div className="flex gap-2">
          <button
            type="button"
            className="btn btn-on"
            data-testid="save-profile"
            onClick={() => {
              const body = parsed();
              if (!body) return;
              if (editing) update.mutate({ id: editing, profile: body as never });
              else create.mutate(body as never);
            }}
          >
            {editing ? "Save profile" : "Create profile"}
          </button>
          {editing && (
            <button type="button" className="btn" onClick={done}>
              Cancel
            </button>
          )}
        </div>
      </section>
    </div>
  );
}
