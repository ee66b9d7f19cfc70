/**
 * The catalogue on PostgreSQL: task sets → tasks; agent runs; trajectories → steps; screenshots.
 * Declared once in db/schema/core.ts, where the meaning of each column is documented
 * (tests/integration/schema-parity.test.ts checks that the two engines' databases agree).
 */
import { coreTables } from "../schema/core";
import { pgKit } from "./columns";

export const { taskSets, tasks, agentRuns, trajectories, steps, screenshots } = coreTables(pgKit);
