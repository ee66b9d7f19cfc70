"use client";
import { useMutation } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useRouter } from "next/navigation";
import { useState, type ReactNode } from "react";
import type { AppRouter } from "@/server/api/root";
import { formatDate } from "../../_components/ui";
import { useTRPC } from "../../_trpc/client";
import { DenseTable } from "../../_components/table";
import { PageForm } from "../../_components/field";

type List = inferRouterOutputs<AppRouter>["accounts"]["list"];
const ROLES = ["admin", "researcher", "annotator"] as const;

/**
 * The administrator's users page: every account with its role, status and actions, then creating an account and
 * inviting by link. Each action says what it did (or why it was refused) in one message above the table.
 */
export function UserAdmin({ me, users, invitations }: { me: string; users: List["users"]; invitations: List["invitations"] }) {
  const router = useRouter();
  const [message, setMessage] = useState<Message | null>(null);
  const run: Run = async (f) => {
    setMessage(null);
    try {
      const r = await f();
      if (r) setMessage({ tone: "ok", ...r });
      router.refresh();
    } catch (e) {
      setMessage({ tone: "error", text: (e as Error).message });
    }
  };

  return (
    <div className="flex flex-col gap-4 px-6 py-4">
      {message && <MessageBanner message={message} />}
      <UsersTable users={users} me={me} run={run} />
      <div className="grid gap-4 lg:grid-cols-2">
        <CreateAccount run={run} />
        <section className="panel px-4 py-3">
          <InviteByLink run={run} />
          <PendingInvitations invitations={invitations} run={run} />
        </section>
      </div>
    </div>
  );
}

interface Message {
  tone: "ok" | "error";
  text: string;
  /** A password or link shown once, with a button that copies it. */
  copy?: string;
}

function MessageBanner({ message }: { message: Message }) {
  return (
    <div
      role="status"
      className={`rounded-md border px-3 py-2 text-[12.5px] ${message.tone === "ok" ? "border-emerald-200 bg-emerald-50 text-emerald-900" : "border-rose-200 bg-rose-50 text-rose-800"}`}
    >
      {message.text}
      {message.copy && <CopyValue value={message.copy} />}
    </div>
  );
}

function UsersTable({ users, me, run }: { users: List["users"]; me: string; run: Run }) {
  return (
    <section className="panel overflow-x-auto">
      <DenseTable columns={["Name", "Email", "Role", "Status", "Since", ""]}>
        {users.map((u) => (
          <tr key={u.id}>
            <td className="font-medium">{u.name}</td>
            <td className="font-mono text-[12px]">{u.email}</td>
            <td>
              <RolePicker user={u} run={run} />
            </td>
            <td>{u.banned ? <span className="text-rose-700">deactivated</span> : "active"}</td>
            <td className="whitespace-nowrap text-zinc-500">{formatDate(u.createdAt)}</td>
            <AccountActions user={u} self={u.id === me} run={run} />
          </tr>
        ))}
      </DenseTable>
    </section>
  );
}

type Role = (typeof ROLES)[number];

/** A row's role: a role picked in the select waits for Apply (arrowing through a focused select used to change roles at once). */
function RolePicker({ user: u, run }: { user: List["users"][number]; run: Run }) {
  const trpc = useTRPC();
  const setRole = useMutation(trpc.accounts.setRole.mutationOptions());
  const [pending, setPending] = useState<Role | null>(null);
  const apply = (role: Role) =>
    run(async () => {
      try {
        await setRole.mutateAsync({ userId: u.id, role });
      } finally {
        // Refused too: the select goes back to the role the account has (no Apply left on offer).
        setPending(null);
      }
      return { text: `${u.name} (${u.email}) is now ${role === "admin" ? "an" : "a"} ${role}.` };
    });
  return (
    <div className="flex items-center gap-1.5">
      <select
        className="field"
        aria-label={`Role of ${u.email}`}
        value={pending ?? u.role}
        disabled={setRole.isPending}
        onChange={(e) => {
          const role = e.target.value as Role;
          setPending(role === u.role ? null : role);
        }}
      >
        {ROLES.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
      {pending && (
        <>
          <button type="button" className="btn btn-on" disabled={setRole.isPending} data-testid={`apply-role-${u.email}`} onClick={() => void apply(pending)}>
            Apply
          </button>
          <button type="button" className="btn" onClick={() => setPending(null)}>
            Cancel
          </button>
        </>
      )}
    </div>
  );
}

/** An account made here: its password typed, or generated and shown once. */
function CreateAccount({ run }: { run: Run }) {
  const trpc = useTRPC();
  const create = useMutation(trpc.accounts.create.mutationOptions());
  const onCreate = submitThrough(run, async (f) => {
    const password = String(f.get("password") ?? "");
    const r = await create.mutateAsync({
      email: String(f.get("email")),
      name: String(f.get("name")),
      role: f.get("role") as Role,
      password: password || undefined,
    });
    return r.generatedPassword
      ? { text: `Created ${r.user.email}. Their password (shown once):`, copy: r.generatedPassword }
      : { text: `Created ${r.user.email}.` };
  });
  return (
    <section className="panel px-4 py-3">
      <h2 className="section-title">Create an account</h2>
      <PageForm onSubmit={onCreate} className="mt-2 flex flex-col gap-2 text-[12px]" data-testid="create-user">
        <div className="grid grid-cols-2 gap-2">
          <Labelled text="Name">
            <input name="name" required className="field" />
          </Labelled>
          <Labelled text="Email">
            <input name="email" type="email" required className="field" />
          </Labelled>
          <RoleField />
          <Labelled text="Password (blank: generate one)">
            <input name="password" type="text" minLength={8} className="field" />
          </Labelled>
        </div>
        <button type="submit" className="btn btn-on self-start" disabled={create.isPending}>
          Create
        </button>
      </PageForm>
    </section>
  );
}

/** An invitation link for an email and a role, shown once. */
function InviteByLink({ run }: { run: Run }) {
  const trpc = useTRPC();
  const invite = useMutation(trpc.accounts.invite.mutationOptions());
  const onInvite = submitThrough(run, async (f) => {
    const r = await invite.mutateAsync({ email: String(f.get("email")), role: f.get("role") as Role });
    return {
      text: `Invitation for ${r.email} (${r.role}), valid until ${formatDate(r.expiresAt)}. Send them this link:`,
      copy: `${window.location.origin}${r.path}`,
    };
  });
  return (
    <>
      <h2 className="section-title">Invite by link</h2>
      <PageForm onSubmit={onInvite} className="mt-2 flex flex-col gap-2 text-[12px]">
        <div className="grid grid-cols-2 gap-2">
          <Labelled text="Email">
            <input name="email" type="email" required className="field" />
          </Labelled>
          <RoleField />
        </div>
        <button type="submit" className="btn self-start" disabled={invite.isPending}>
          Make invitation link
        </button>
      </PageForm>
    </>
  );
}

type Done = { text: string; copy?: string } | void;
type Run = (f: () => Promise<Done>) => Promise<void>;

/** A form's submit (for `PageForm`): `action` gets the form's fields and runs through `run`; once it succeeded, the form is cleared. */
function submitThrough(run: Run, action: (fields: FormData) => Promise<Done>) {
  return (form: HTMLFormElement) =>
    void run(async () => {
      const done = await action(new FormData(form));
      form.reset();
      return done;
    });
}

/**
 * Open invitations, each with a new link and Revoke. Only a fingerprint of a link is kept (a stolen database holds no
 * working link), so a link is shown once, when it is made; "New link" makes another and the old one stops working.
 */
function PendingInvitations({ invitations, run }: { invitations: List["invitations"]; run: Run }) {
  const trpc = useTRPC();
  const cancelInvitation = useMutation(trpc.accounts.cancelInvitation.mutationOptions());
  const renew = useMutation(trpc.accounts.renewInvitation.mutationOptions());
  if (invitations.length === 0) return null;
  return (
    <div className="mt-3 flex flex-col gap-1 text-[12px]" data-testid="pending-invitations">
      <p className="text-2xs text-zinc-500">
        Waiting to be accepted. A link is shown only once, when it is made (only its fingerprint is kept): if it was lost, make a new one; the old link then
        stops working.
      </p>
      <ul className="flex flex-col gap-1">
        {invitations.map((i) => (
          <li key={i.id} className="flex items-center justify-between gap-2">
            <span className="min-w-0 truncate">
              {i.email}{" "}
              <span className="text-zinc-500">
                ({i.role}, until {formatDate(i.expiresAt)})
              </span>
            </span>
            <span className="flex shrink-0 gap-1.5">
              <button
                type="button"
                className="btn"
                disabled={renew.isPending}
                aria-label={`New link for ${i.email}`}
                onClick={() =>
                  run(async () => {
                    const r = await renew.mutateAsync({ id: i.id });
                    return {
                      text: `New invitation link for ${r.email} (${r.role}), valid until ${formatDate(r.expiresAt)}; the previous link no longer works. Send them this link:`,
                      copy: `${window.location.origin}${r.path}`,
                    };
                  })
                }
              >
                New link
              </button>
              <button
                type="button"
                className="btn"
                aria-label={`Revoke the invitation of ${i.email}`}
                onClick={() => run(async () => void (await cancelInvitation.mutateAsync({ id: i.id })))}
              >
                Revoke
              </button>
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A form field with its visible label (screen readers name the control by it). */
function Labelled({ text, children }: { text: string; children: ReactNode }) {
  return (
    <label className="flex flex-col gap-0.5 font-medium text-zinc-700">
      {text}
      {children}
    </label>
  );
}

function RoleField() {
  return (
    <Labelled text="Role">
      <select name="role" className="field" defaultValue="annotator">
        {ROLES.map((r) => (
          <option key={r}>{r}</option>
        ))}
      </select>
    </Labelled>
  );
}

/** A password or invitation link shown once, with a button that copies it. */
function CopyValue({ value }: { value: string }) {
  const [copied, setCopied] = useState<boolean | null>(null);
  return (
    <div className="mt-1 flex items-start gap-2">
      <code className="block min-w-0 flex-1 font-mono text-[12.5px] break-all select-all" data-testid="copy-value">
        {value}
      </code>
      <button
        type="button"
        className="btn shrink-0"
        onClick={() =>
          navigator.clipboard.writeText(value).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied === null ? "Copy" : copied ? "Copied" : "Select it and copy by hand"}
      </button>
    </div>
  );
}

/**
 * A row's password and deactivation: the new password typed in the row (not a browser prompt, which shows it in plain
 * text), and deactivation asked twice, then said done.
 */
function AccountActions({ user: u, self, run }: { user: List["users"][number]; self: boolean; run: Run }) {
  const trpc = useTRPC();
  const setPassword = useMutation(trpc.accounts.setPassword.mutationOptions());
  const setDeactivated = useMutation(trpc.accounts.setDeactivated.mutationOptions());
  const [mode, setMode] = useState<"idle" | "password" | "deactivate">("idle");
  const [password, setPasswordText] = useState("");
  if (mode === "password") {
    return (
      <td>
        <form
          className="flex items-center gap-1.5"
          onSubmit={(e) => {
            e.preventDefault();
            void run(async () => {
              await setPassword.mutateAsync({ userId: u.id, password });
              setMode("idle");
              setPasswordText("");
              return { text: `Password of ${u.email} changed.` };
            });
          }}
        >
          <input
            type="password"
            className="field w-40"
            minLength={8}
            required
            autoFocus
            aria-label={`New password for ${u.email} (at least 8 characters)`}
            value={password}
            onChange={(e) => setPasswordText(e.target.value)}
          />
          <button type="submit" className="btn btn-on" disabled={setPassword.isPending}>
            Save
          </button>
          <button type="button" className="btn" onClick={() => setMode("idle")}>
            Cancel
          </button>
        </form>
      </td>
    );
  }
  const toggle = () =>
    run(async () => {
      await setDeactivated.mutateAsync({ userId: u.id, deactivated: !u.banned });
      setMode("idle");
      return { text: u.banned ? `${u.name} (${u.email}) is active again.` : `${u.name} (${u.email}) is deactivated: they can no longer sign in.` };
    });
  return (
    <td className="flex gap-1.5">
      <button type="button" className="btn" onClick={() => setMode("password")}>
        Set password
      </button>
      {!self &&
        (mode === "deactivate" ? (
          <>
            <button type="button" className="btn border-rose-300 text-rose-700" onClick={() => void toggle()} disabled={setDeactivated.isPending}>
              Deactivate {u.email}?
            </button>
            <button type="button" className="btn" onClick={() => setMode("idle")}>
              Cancel
            </button>
          </>
        ) : (
          <button type="button" className="btn" onClick={() => (u.banned ? void toggle() : setMode("deactivate"))}>
            {u.banned ? "Reactivate" : "Deactivate"}
          </button>
        ))}
    </td>
  );
}
