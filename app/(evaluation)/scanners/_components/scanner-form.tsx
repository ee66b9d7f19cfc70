"use client";
/**
 * A researcher's own scanner: key, name, the error category it is measured against, its patterns (each over the
 * fields it reads, with flags) and, optionally, the blank-screenshot check and a run length. The server checks
 * every pattern (it must compile, be short, and not backtrack catastrophically) and names the field it refuses,
 * shown beside that field. Editing keeps the key and drops the results of the old definition.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import type { ScannerField, ScannerRule, ScannerValues } from "@/server/domain/evaluation/scanners/definitions";
import { useTRPC } from "../../../_trpc/client";

const FIELDS: [ScannerField, string][] = [
  ["thought", "Thought"],
  ["action", "Action"],
  ["element", "Page text"],
  ["url", "URL"],
  ["error", "Error"],
  ["answer", "Answer"],
];

type RegexDraft = { fields: ScannerField[]; pattern: string; flags: string };

export type ScannerDraft = ScannerValues;

function fieldOfError(e: unknown): string {
  return (e as { data?: { field?: string | null } } | null)?.data?.field ?? "form";
}

function FieldError({ errors, name }: { errors: Record<string, string>; name: string }) {
  return errors[name] ? (
    <span role="alert" className="text-[12px] text-rose-700" data-testid={`error-${name}`}>
      {errors[name]}
    </span>
  ) : null;
}

export function ScannerForm({ initial }: { initial?: ScannerDraft }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const f = useId();
  const editing = !!initial;
  const [key, setKey] = useState(initial?.key ?? "");
  const [name, setName] = useState(initial?.name ?? "");
  const [category, setCategory] = useState(initial?.category ?? "");
  const [description, setDescription] = useState(initial?.description ?? "");
  const [rules, setRules] = useState<RegexDraft[]>(
    initial
      ? initial.rules.flatMap((r) => (r.kind === "regex" ? [{ fields: r.fields, pattern: r.pattern, flags: r.flags }] : []))
      : [{ fields: ["element"], pattern: "", flags: "i" }],
  );
  const [blank, setBlank] = useState(initial?.rules.some((r) => r.kind === "blank_screenshot") ?? false);
  const [minConsecutive, setMinConsecutive] = useState(String(initial?.minConsecutive ?? 1));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const onError = (e: unknown) => {
    const field = fieldOfError(e);
    const text = (e as Error).message;
    setErrors({ [field]: text.startsWith(`${field}: `) ? text.slice(field.length + 2) : text });
  };
  const onSuccess = async (def: { key: string }) => {
    setErrors({});
    await queryClient.invalidateQueries({ queryKey: trpc.scanners.pathKey() });
    router.push(`/scanners/${def.key}`);
  };
  const create = useMutation(trpc.scanners.create.mutationOptions({ onError, onSuccess }));
  const update = useMutation(trpc.scanners.update.mutationOptions({ onError, onSuccess }));
  const setRule = (i: number, patch: Partial<RegexDraft>) => setRules(rules.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const all: ScannerRule[] = [
      ...rules.map((r) => ({ kind: "regex" as const, ...r })),
      ...(blank ? [{ kind: "blank_screenshot" as const, minShare: 0.985 }] : []),
    ];
    const input = { key, name, category, description, rules: all, minConsecutive: Number(minConsecutive) || 1 };
    if (editing) update.mutate(input);
    else create.mutate(input);
  };
  return (
    <form className="panel flex flex-col gap-3 px-4 py-3" onSubmit={submit} aria-label={editing ? "Edit scanner" : "New scanner"} data-testid="scanner-form">
      <h2 className="text-[14px] font-semibold">{editing ? "Edit this scanner" : "New scanner"}</h2>
      <div className="grid gap-3 sm:grid-cols-3">
        <label className="flex flex-col gap-1 text-[12px] text-zinc-600" htmlFor={`${f}-key`}>
          Key (used as scanner:key)
          <input
            id={`${f}-key`}
            className="field font-mono"
            value={key}
            disabled={editing}
            onChange={(e) => setKey(e.target.value)}
            data-testid="scanner-key"
          />
          <FieldError errors={errors} name="key" />
        </label>
        <label className="flex flex-col gap-1 text-[12px] text-zinc-600" htmlFor={`${f}-name`}>
          Name
          <input id={`${f}-name`} className="field" value={name} onChange={(e) => setName(e.target.value)} data-testid="scanner-name" />
          <FieldError errors={errors} name="name" />
        </label>
        <label className="flex flex-col gap-1 text-[12px] text-zinc-600" htmlFor={`${f}-category`}>
          Error category people give this fault
          <input id={`${f}-category`} className="field" value={category} onChange={(e) => setCategory(e.target.value)} data-testid="scanner-category" />
          <FieldError errors={errors} name="category" />
        </label>
      </div>
      <label className="flex flex-col gap-1 text-[12px] text-zinc-600" htmlFor={`${f}-description`}>
        What it looks for
        <input id={`${f}-description`} className="field" value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      {rules.map((r, i) => (
        <fieldset key={i} className="flex flex-col gap-1.5 rounded-md border border-zinc-200 px-3 py-2" data-testid="scanner-rule">
          <legend className="px-1 text-[12px] text-zinc-600">Pattern {i + 1}</legend>
          <div className="flex flex-wrap gap-x-3 gap-y-1 text-[12.5px]">
            {FIELDS.map(([field, label]) => (
              <label key={field} className="flex items-center gap-1">
                <input
                  type="checkbox"
                  checked={r.fields.includes(field)}
                  onChange={() => setRule(i, { fields: r.fields.includes(field) ? r.fields.filter((x) => x !== field) : [...r.fields, field] })}
                />
                {label}
              </label>
            ))}
          </div>
          <div className="flex gap-2">
            <input
              aria-label={`Pattern ${i + 1}`}
              className="field min-w-0 flex-1 font-mono"
              value={r.pattern}
              placeholder="a JavaScript regular expression, e.g. \bmembers only\b"
              onChange={(e) => setRule(i, { pattern: e.target.value })}
              data-testid="scanner-pattern"
            />
            <input
              aria-label={`Flags of pattern ${i + 1}`}
              className="field w-16 font-mono"
              value={r.flags}
              onChange={(e) => setRule(i, { flags: e.target.value })}
            />
            {rules.length > 1 && (
              <button type="button" className="btn" onClick={() => setRules(rules.filter((_, j) => j !== i))}>
                Remove
              </button>
            )}
          </div>
          <FieldError errors={errors} name={`rules[${i}].pattern`} />
          <FieldError errors={errors} name={`rules[${i}].fields`} />
        </fieldset>
      ))}
      <div className="flex flex-wrap items-center gap-4 text-[12.5px]">
        <button type="button" className="btn" onClick={() => setRules([...rules, { fields: ["element"], pattern: "", flags: "i" }])}>
          Add a pattern
        </button>
        <label className="flex items-center gap-1.5">
          <input type="checkbox" checked={blank} onChange={(e) => setBlank(e.target.checked)} />
          Also match blank screenshots
        </label>
        <label className="flex items-center gap-1.5">
          Steps in a row
          <input className="field w-14" inputMode="numeric" value={minConsecutive} onChange={(e) => setMinConsecutive(e.target.value)} />
        </label>
      </div>
      <FieldError errors={errors} name="rules" />
      <FieldError errors={errors} name="form" />
      <div>
        <button type="submit" className="btn btn-on" disabled={create.isPending || update.isPending} data-testid="save-scanner">
          {editing ? "Save changes" : "Create scanner"}
        </button>
      </div>
    </form>
  );
}
