/**
 * The operator's tools: upkeep of an installation's stored data, such as removing screenshots no trajectory refers to
 * any more. The CLI imports them from here.
 */
export { collectUnreferencedObjects, DEFAULT_GC_MIN_AGE_MS } from "./garbage";
