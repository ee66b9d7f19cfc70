/** An active campaign hands out work; a closed one keeps its labels and figures but assigns nothing. */
export const CAMPAIGN_STATUSES = ["active", "closed"] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
