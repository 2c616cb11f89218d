import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { onRollupWarning, SOURCE_CONDITIONS } from "./vite.shared.ts";

/**
 * The standalone build: one script (`dist/lectern.js`, an IIFE) that defines `<lectern-chat>` and
 * mounts itself from its own `<script data-api="…">` tag. React is swapped for preact/compat to
 * keep it small; nothing is external.
 */
export default defineConfig({
  plugins: [react()],
  resolve: {
    conditions: SOURCE_CONDITIONS,
    alias: [
      { find: /^react-dom\/client$/, replacement: "preact/compat/client" },
      { find: /^react\/jsx-runtime$/, replacement: "preact/jsx-runtime" },
      { find: /^react\/jsx-dev-runtime$/, replacement: "preact/jsx-runtime" },
      { find: /^react-dom$/, replacement: "preact/compat" },
      { find: /^react$/, replacement: "preact/compat" },
    ],
  },
  // Only this build needs it: the library build leaves NODE_ENV to the host's bundler.
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
  build: {
    outDir: "dist",
    emptyOutDir: false,
    sourcemap: true,
    lib: {
      entry: "src/standalone.ts",
      formats: ["iife"],
      name: "Lectern",
      fileName: () => "lectern.js",
    },
    rollupOptions: { onwarn: onRollupWarning },
  },
});
