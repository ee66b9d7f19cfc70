/**
 * The pickers the judge forms share: a judge configuration (the batch, stress-test and alignment forms) and a
 * labelled campaign (the stress-test and alignment forms), each a labelled select.
 */
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";
import { formatCount } from "../../../_components/ui";
import { Field } from "../../../_components/field";

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

export function ConfigPicker(props: PickerProps<Config>) {
  return <IdPicker {...props} label={props.label ?? "Judge configuration"} optionText={(c) => c.name} />;
}

export function CampaignPicker(props: PickerProps<Campaign>) {
  return <IdPicker {...props} label={props.label ?? "Labelled campaign"} optionText={(c) => `${c.name} (${formatCount(c.items)} items)`} />;
}

/** A labelled select of records by id, each option written by `optionText`. */
function IdPicker<T extends { id: number }>({
  id,
  options,
  value,
  onChange,
  testId,
  label,
  hint,
  optionText,
}: PickerProps<T> & { label: string; optionText: (t: T) => string }) {
  return (
    <Field label={label} htmlFor={id} hint={hint}>
      <select id={id} className="field" value={value ?? ""} onChange={(ev) => onChange(Number(ev.target.value) || null)} data-testid={testId}>
        {options.map((o) => (
          <option key={o.id} value={o.id}>
            {optionText(o)}
          </option>
        ))}
      </select>
    </Field>
  );
}
