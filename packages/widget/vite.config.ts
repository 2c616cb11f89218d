import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/**
 * The library build for React hosts: an ES module exporting `mount` and `<LecternChat />`, with
 * React left to the host so the page runs one copy of it.
 */
export default defineConfig({
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: true,
    lib: {
      entry: "src/index.ts",
      formats: ["es"],
      fileName: () => "lectern-widget.js",
    },
    rollupOptions: {
      external: [/^react($|\/)/, /^react-dom($|\/)/],
    },
  },
});
