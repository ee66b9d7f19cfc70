"use client";
import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "../../../_trpc/client";
import { authClient, authErrorMessage, enterApp } from "../../../_lib/auth-client";

function Field({ label, ...props }: { label: string } & React.InputHTMLAttributes<HTMLInputElement>) {
  return (
    <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
      {label}
      <input className="field h-8 text-[13px]" {...props} />
    </label>
  );
}

export function SignInForm({ next }: { next: string }) {
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError("");
    const { error } = await authClient.signIn.email({ email: String(form.get("email")), password: String(form.get("password")) });
    if (error) {
      setBusy(false);
      setError(authErrorMessage(error));
      return;
    }
    enterApp(next);
  }
  return (
    <form onSubmit={onSubmit} className="mt-4 flex flex-col gap-3">
      <Field label="Email" name="email" type="email" autoComplete="username" required autoFocus />
      <Field label="Password" name="password" type="password" autoComplete="current-password" required />
      {error && (
        <p role="alert" className="text-[12px] text-rose-700">
          {error}
        </p>
      )}
      <button type="submit" className="btn btn-on h-8 justify-center" disabled={busy}>
        {busy ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}

export function SetupForm({ next }: { next: string }) {
  const trpc = useTRPC();
  const [error, setError] = useState("");
  const setup = useMutation(trpc.accounts.setup.mutationOptions());
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const email = String(form.get("email"));
    const password = String(form.get("password"));
    if (password !== String(form.get("confirm"))) {
      setError("The passwords differ.");
      return;
    }
    setError("");
    try {
      await setup.mutateAsync({ email, name: String(form.get("name")), password });
    } catch (err) {
      setError((err as Error).message);
      return;
    }
    const { error } = await authClient.signIn.email({ email, password });
    if (error) {
      setError(authErrorMessage(error));
      return;
    }
    enterApp(next === "/" ? "/users" : next);
  }
  return (
    <form onSubmit={onSubmit} className="mt-4 flex flex-col gap-3">
      <Field label="Your name" name="name" required autoFocus />
      <Field label="Email" name="email" type="email" autoComplete="username" required />
      <Field label="Password (at least 8 characters)" name="password" type="password" autoComplete="new-password" minLength={8} required />
      <Field label="Password again" name="confirm" type="password" autoComplete="new-password" minLength={8} required />
      {error && (
        <p role="alert" className="text-[12px] text-rose-700">
          {error}
        </p>
      )}
      <button type="submit" className="btn btn-on h-8 justify-center" disabled={setup.isPending}>
        Create the admin account
      </button>
    </form>
  );
}
