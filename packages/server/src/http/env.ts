/**
 * The Hono environment of the app: every request carries its id, and the route-table path it
 * matched (for metrics; absent for unknown paths).
 */
export type AppEnv = { Variables: { requestId: string; route?: string } };
