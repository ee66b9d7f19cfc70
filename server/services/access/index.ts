/**
 * Access: who may see what. The blind (annotators do not see judges' verdicts, the agent's name or other annotators'
 * labels while they label) and the scope (what part of the catalogue a user may browse). Other areas, routers and
 * the CLI ask here before they show or change anything.
 */
export * from "./blind";
export * from "./scope";
export * from "./search-scope";
