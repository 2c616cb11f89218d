/**
 * Lectern's compiled modules (dist/, `npm run build`) that the benches' own processes open a book
 * and answer with, as an installed `lectern serve` runs them rather than the TypeScript sources.
 */
const from = (module: string) => new URL(`../dist/${module}.js`, import.meta.url).href;

export const { loadConfig } = (await import(
  from("config/config")
)) as typeof import("../src/config/config.ts");
export const { composeApp } = (await import(
  from("http/compose")
)) as typeof import("../src/http/compose.ts");
export const { createLogger } = (await import(
  from("http/server")
)) as typeof import("../src/http/server.ts");
export const { openLectern } = (await import(
  from("lectern")
)) as typeof import("../src/lectern.ts");
export const { createChatPipeline } = (await import(
  from("pipeline/answering")
)) as typeof import("../src/pipeline/answering.ts");
