/**
 * All tables, one module per domain. drizzle-kit reads this file; db/client.ts passes it to drizzle.
 */
export * from "./core";
export * from "./jobs";
export * from "./evaluation";
export * from "./auth";
export * from "./annotation";
export * from "./reveal";
export * from "./changes";
export * from "./instance";
export * from "./runner";
export * from "./search";
export * from "./validity";
export * from "./clusters";
export * from "./scanners";
export * from "./comments";
export * from "./automation";
export * from "./pairwise";
