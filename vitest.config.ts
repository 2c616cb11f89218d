import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Widget component tests are .tsx and choose jsdom with a `@vitest-environment` comment.
    include: [
      "packages/*/src/**/*.test.ts",
      "packages/*/src/**/*.test.tsx",
      "packages/*/test/**/*.test.ts",
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
