// @ts-check
import tseslint from "typescript-eslint";

/**
 * Client components ("use client" files) run in the browser: they must never import the database, server
 * services, importers or the browser runner. Type-only imports (e.g. `import type { AppRouter }`) are fine.
 */
const SERVER_ONLY = /(^|\/)(db|server\/(services|importers|browser|cli|context|config))(\/|$|\.)/;

const noServerImportsInClient = {
  meta: {
    type: "problem",
    messages: {
      serverImport: "Client component imports server-only module '{{source}}'. Go through tRPC instead (type-only imports are allowed).",
    },
    schema: [],
  },
  create(context) {
    const body = context.sourceCode.ast.body;
    const isClient = body.some(
      (n) => n.type === "ExpressionStatement" && n.directive === "use client",
    );
    if (!isClient) return {};
    return {
      ImportDeclaration(node) {
        if (node.importKind === "type") return;
        if (node.specifiers.length && node.specifiers.every((s) => s.type === "ImportSpecifier" && s.importKind === "type")) return;
        const source = String(node.source.value);
        if (SERVER_ONLY.test(source.replace(/^@\//, ""))) {
          context.report({ node, messageId: "serverImport", data: { source } });
        }
      },
    };
  },
};

export default tseslint.config(
  {
    ignores: ["node_modules/**", "tmp/**", ".next/**", "data/**", "test-results/**", "playwright-report/**", "next-env.d.ts", "db/migrations/**"],
  },
  ...tseslint.configs.recommended,
  {
    plugins: { verdict: { rules: { "no-server-imports-in-client": noServerImportsInClient } } },
    rules: {
      "verdict/no-server-imports-in-client": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports", disallowTypeAnnotations: false }],
      "@typescript-eslint/no-explicit-any": "error",
    },
  },
);
