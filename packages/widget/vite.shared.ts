import { defaultClientConditions, type Rollup } from "vite";

/** Workspace packages are bundled from their TypeScript sources (see tsconfig.base.json). */
export const SOURCE_CONDITIONS = ["lectern-source", ...defaultClientConditions];

/**
 * zod's sources carry `@__PURE__` comments in places Rollup cannot use; Rollup drops them and
 * says so for every build. That notice is about a dependency and changes nothing in the output,
 * so it is left out; every other warning fails the build (scripts/build.mjs).
 */
export function onRollupWarning(
  warning: Rollup.RollupLog,
  warn: (warning: Rollup.RollupLog) => void,
): void {
  if (warning.code === "INVALID_ANNOTATION" && warning.id?.includes("/node_modules/")) return;
  warn(warning);
}
