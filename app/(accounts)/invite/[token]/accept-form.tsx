"use client";
import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { authClient, authErrorMessage, enterApp } from "../../../_lib/auth-client";
import { useTRPC } from "../../../_trpc/client";

export function AcceptInvitationForm({ token, email, defaultName }: { token: string; email: string; defaultName: string }) {
  const trpc = useTRPC();
  const accept = useMutation(trpc.accounts.acceptInvitation.mutationOptions());
  const [error, setError] = useState("");
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const password = String(f.get("password"));
    if (password !== String(f.get("confirm"))) return setError("The passwords differ.");
    setError("");
    try {
      await accept.mutateAsync({ token, name: String(f.get("name")), password });
    } catch (err) {
      return setError((err as Error).message);
    }
    const { error } = await authClient.signIn.email({ email, password });
    if (error) return setError(authErrorMessage(error));
    enterApp("/");
  }
  return (
    <form onSubmit={onSubmit} className="mt-4 flex flex-col gap-3 text-[12px]">
      <label className="flex flex-col gap-1 font-medium text-zinc-700">
        Your name
        <input name="name" required defaultValue={defaultName} className="field h-8 text-[13px]" />
      </label>
      <label className="flex flex-col gap-1 font-medium text-zinc-700">
        Password (at least 8 characters)
        <input name="password" type="password" minLength={8} required autoComplete="new-password" className="field h-8 text-[13px]" />
      </label>
      <label className="flex flex-col gap-1 font-medium text-zinc-700">
        Password again
        <input name="confirm" type="password" minLength={8} required autoComplete="new-password" className="field h-8 text-[13px]" />
      </label>
      {error && (
        <p role="alert" className="text-rose-700">
          {error}
        </p>
      )}
      <button type="submit" className="btn btn-on h-8 justify-center" disabled={accept.isPending}>
        Create my account
      </button>
    </form>
  );
}
