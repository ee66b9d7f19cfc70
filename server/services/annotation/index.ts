/**
 * Human annotation: campaigns, the annotator's queue and labels, consolidation and adjudication, the blind rule,
 * and label files. Routers and the CLI import from here.
 */
export * from "./campaigns";
export * from "./labelling";
export * from "./consolidation";
export * from "../access/blind";
export * from "./io";
export * from "./gold";
export * from "./label-formats";
export * from "../access/scope";
export * from "./qa";
export * from "./reveal";
export * from "./reveal-export";
export * from "./label-imports";
