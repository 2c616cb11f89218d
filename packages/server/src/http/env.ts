/** The Hono environment of the app: every request carries its id. */
export type AppEnv = { Variables: { requestId: string } };
