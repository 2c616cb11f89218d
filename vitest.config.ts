import { defaultClientConditions, defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

// Tests run the workspace packages from their TypeScript sources (tsconfig.base.json).
const SOURCE = "lectern-source";

export default defineConfig({
  resolve: { conditions: [SOURCE, ...defaultClientConditions] },
  ssr: { resolve: { conditions: [SOURCE, ...defaultServerConditions] } },
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
