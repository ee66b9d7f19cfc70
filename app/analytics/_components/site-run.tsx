"use client";
/**
 * Success per site × agent run for one evaluator at a time (WebVoyager's Table 1 layout), with a picker.
 */
import { useState } from "react";
import type { SiteRunFigure as SiteRunModel } from "../_lib/overview";
import { RateChart } from "./charts";
import { Figure } from "./figure";

export function SiteRunFigure({ model }: { model: SiteRunModel }) {
  const [id, setId] = useState(model.evaluators[0]?.id ?? "");
  const current = model.evaluators.find((e) => e.id === id) ?? model.evaluators[0];
  if (!current) return null;
  return (
    <Figure
      id={model.id}
      title={model.title}
      description={model.description}
      chart={current.figure.chart ? <RateChart model={current.figure.chart} /> : null}
      table={current.figure.table}
      controls={
        <select aria-label="Evaluator" className="field max-w-64" value={current.id} onChange={(e) => setId(e.target.value)}>
          {model.evaluators.map((e) => (
            <option key={e.id} value={e.id}>
              {e.label}
            </option>
          ))}
        </select>
      }
      defaultView="table"
    />
  );
}
