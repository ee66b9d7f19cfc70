// Types for what tests import from eslint.config.mjs (the lint itself reads the .mjs file).
import type { Linter } from "eslint";

/** The longest a product function may be. */
export const MAX_FUNCTION_LINES: number;
/** File → its longest function's length, for the files whose long functions are still to be split. */
export const LONG_FUNCTIONS_TO_SPLIT: Readonly<Record<string, number>>;

declare const config: Linter.Config[];
export default config;
