/**
 * Human annotation: campaigns, the annotator's queue and labels, consolidation and adjudication, the blind rule,
 * and label files. Routers and the CLI import from here.
 */
export * from "./campaigns";
export { requireCampaign } from "./campaign-lookup";
export * from "./labelling";
export type { ItemPlayerReads } from "./item-player";
export * from "./consolidation";
export * from "./io";
export * from "./gold";
export { assertQualificationAllows, campaignQualification, myQualification, qualificationOf, qualificationStandings, setQualification } from "./qualification";
export * from "./label-formats";
export * from "./qa";
export * from "./reveal";
export * from "./reveal-export";
export * from "./label-imports";
export * from "./comments";
export * from "./pairwise";
