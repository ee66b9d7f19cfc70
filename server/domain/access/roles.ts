/** Roles, most privileged first. Admins manage users and settings; researchers run campaigns; annotators label. */
export const ROLES = ["admin", "researcher", "annotator"] as const;
export type Role = (typeof ROLES)[number];
