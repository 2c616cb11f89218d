import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Widget component tests are .tsx and choose jsdom with a `@vitest-environment` comment.
    include: [
      "packages/*/src/**/*.test.ts",
      "packages/*/src/**/*.test.tsx",
      "packages/*/test/**/*.test.ts",
    ],
    // Generous: the slowest tests start real servers and databases on a 2-core machine.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: "forks",
  },
});
