/** Saved failure-cluster runs on PostgreSQL; see db/schema/clusters.ts for their meaning. */
import { clusterTables } from "../schema/clusters";
import { users } from "./auth";
import { pgKit } from "./columns";

export const { failureClusterRuns } = clusterTables(pgKit, { users });
