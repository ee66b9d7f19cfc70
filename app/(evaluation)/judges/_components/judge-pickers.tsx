/**
 * The pickers the judge forms share: a judge configuration (the batch, stress-test and alignment forms) and a
 * labelled campaign (the stress-test and alignment forms), each a labelled select.
 */
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";
import { formatCount } from "../../../_components/ui";
import { Field } from "../../../live/_components/bits";

type Outputs = inferRouterOutputs<AppRouter>;
type Config = Outputs["judge"]["configs"]["list"][number];
type Campaign = Outputs["campaigns"]["list"][number];

interface PickerProps<T> {
  id: string;
  options: T[];
  value: number | null;
  onChange: (id: number | null) => void;
  testId: string;
  label?: string;
  hint?: string;
}

export function ConfigPicker({ id, options, value, onChange, testId, label = "Judge configuration", hint }: PickerProps<Config>) {
  return (
    <Field label={label} htmlFor={id} hint={hint}>
      <select id={id} className="field" value={value ?? ""} onChange={(ev) => onChange(Number(ev.target.value) || null)} data-testid={testId}>
        {options.map((c) => (
          <option key={c.id} value={c.id}>
            {c.name}
          </option>
        ))}
      </select>
    </Field>
  );
}

export function CampaignPicker({ id, options, value, onChange, testId, label = "Labelled campaign", hint }: PickerProps<Campaign>) {
  return (
    <Field label={label} htmlFor={id} hint={hint}>
      <select id={id} className="field" value={value ?? ""} onChange={(ev) => onChange(Number(ev.target.value) || null)} data-testid={testId}>
        {options.map((c) => (
          <option key={c.id} value={c.id}>
            {c.name} ({formatCount(c.items)} items)
          </option>
        ))}
      </select>
    </Field>
  );
}
