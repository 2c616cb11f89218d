import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { onRollupWarning, SOURCE_CONDITIONS } from "./vite.shared.ts";

/**
 * The library build for React hosts: an ES module exporting `mount` and `<LecternChat />`, with
 * React and the package's dependencies left to the host's bundler so the page runs one copy of
 * each.
 */
export default defineConfig({
  plugins: [react()],
  resolve: { conditions: SOURCE_CONDITIONS },
  build: {
    outDir: "dist",
    // scripts/build.mjs runs both builds; dist/types (tsc) stays.
    emptyOutDir: false,
    sourcemap: true,
    lib: {
      entry: "src/index.ts",
      formats: ["es"],
      fileName: () => "lectern-widget.js",
    },
    rollupOptions: {
      external: [/^react($|\/)/, /^react-dom($|\/)/, /^@lectern\/protocol($|\/)/, /^zustand($|\/)/],
      onwarn: onRollupWarning,
    },
  },
});
