/** Types of graph.mjs for the TypeScript tests that read the import graph. */
export interface ImportEdge {
  target: string;
  typeOnly: boolean;
  specifier: string;
}
export function productFiles(root: string): string[];
export function importsOf(code: string, fileName: string): { specifier: string; typeOnly: boolean }[];
export function resolveSpecifier(root: string, fromRel: string, specifier: string, exists?: (rel: string) => boolean): string | null;
export function buildGraph(root: string, overrides?: Record<string, string>): { files: string[]; edges: Map<string, ImportEdge[]> };
export function circles(nodes: string[], next: (n: string) => string[]): string[][];
