/**
 * Accounts: users and their roles (./users.ts), API tokens, and the demo installation's accounts. Routers, route
 * handlers, the CLI and other areas import accounts from here.
 */
export * from "./users";
export { authenticateBearer, type BearerIdentity, apiTokensOf, createApiToken, revokeToken } from "./api-tokens";
export { DEMO_ACCOUNTS, seedDemoAccounts } from "./demo-accounts";
