/**
 * The dependency rule (docs/architecture.md): cli → http → pipeline → (search, llm, store, answer);
 * ingest → (search, store, llm); nothing imports the CLI or the HTTP layer; the widget speaks to
 * the server only through the shared protocol package. The engine package (search, answers
 * and the pipeline over one book) is pure: no Node built-in, no database driver, nothing of the
 * server's. Checked by `npm run lint:deps` in `npm test`.
 */
const server = "^packages/server/src";
const engine = "^packages/engine/src";
/** Database and cache drivers: the server's store, never the engine. */
const drivers =
  "(^|/)node_modules/(pg|pg-[\\w-]+|@electric-sql/[\\w-]+|ioredis|redis|@qdrant/[\\w-]+|" +
  "better-sqlite3|sqlite3|mysql2?|mongodb)/";
module.exports = {
  forbidden: [
    {
      name: "engine-has-no-node-built-ins",
      comment: "The engine runs unchanged in Node, a browser and a Web Worker: no Node built-in.",
      severity: "error",
      from: { path: [engine] },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "engine-stands-apart-from-the-server",
      comment: "The server uses the engine, not the other way round; nor does it reach the widget.",
      severity: "error",
      from: { path: [engine] },
      to: { path: ["^packages/(server|widget|docusaurus-plugin)/"] },
    },
    {
      name: "engine-has-no-database",
      comment: "The engine reads one immutable book: no database or cache driver.",
      severity: "error",
      from: { path: [engine] },
      to: { path: [drivers] },
    },
    {
      name: "nothing-imports-cli",
      comment: "The CLI is an entry point: nothing else may depend on it.",
      severity: "error",
      from: { pathNot: [`${server}/cli/`] },
      to: { path: [`${server}/cli/`] },
    },
    {
      name: "nothing-below-http-imports-http",
      comment: "Only the CLI (and the HTTP layer itself) may import the HTTP layer.",
      severity: "error",
      from: { pathNot: [`${server}/(cli|http)/`, `${server}/index\\.ts$`] },
      to: { path: [`${server}/http/`] },
    },
    {
      name: "pipeline-stays-below-http",
      comment: "The pipeline runs a chat turn; it knows nothing of ingestion, HTTP or the CLI.",
      severity: "error",
      from: { path: [`${server}/(pipeline|answer|eval)/`, `${engine}/(pipeline|answer)/`] },
      to: { path: [`${server}/(ingest|http|cli)/`] },
    },
    {
      name: "mcp-stays-below-http",
      comment:
        "The MCP server is served by the CLI (stdio) and the HTTP layer (POST /mcp); it imports neither.",
      severity: "error",
      from: { path: [`${server}/mcp/`] },
      to: { path: [`${server}/(http|cli|ingest)/`] },
    },
    {
      name: "search-and-store-are-lower-layers",
      comment: "Search and the store (the engine's book records too) never reach up the layers.",
      severity: "error",
      from: { path: [`${server}/(search|store)/`, `${engine}/(search|book|util)/`] },
      to: {
        path: [
          `${server}/(pipeline|answer|eval|ingest|http|cli)/`,
          `${engine}/(pipeline|answer|engine|static)/`,
        ],
      },
    },
    {
      name: "store-does-not-rank",
      comment: "The store neither ranks nor calls models.",
      severity: "error",
      from: { path: [`${server}/store/`, `${engine}/book/`] },
      to: { path: [`${server}/(search|llm)/`, `${engine}/search/`] },
    },
    {
      name: "providers-are-adapters",
      comment:
        "Model providers are adapters: they never reach the pipeline, the answers, HTTP or the CLI.",
      severity: "error",
      from: { path: [`${server}/llm/`] },
      to: {
        path: [
          `${server}/(pipeline|answer|eval|http|cli)/`,
          `${engine}/(pipeline|answer|engine|static)/`,
        ],
      },
    },
    {
      name: "widget-speaks-protocol-only",
      comment: "The widget imports nothing of the server but the shared wire schemas.",
      severity: "error",
      from: { path: ["^packages/widget/src"] },
      to: { path: ["^packages/(server|engine|docusaurus-plugin)/"] },
    },
    {
      name: "protocol-stands-alone",
      comment: "The wire format depends on nothing of Lectern's.",
      severity: "error",
      from: { path: ["^packages/protocol/"] },
      to: { path: ["^packages/(server|engine|widget|docusaurus-plugin)/"] },
    },
    {
      name: "markdown-parser-for-ingest-only",
      comment:
        "markdown.ts loads the remark stack: only ingestion (reached by dynamic import) may import its values, so that answering from an existing index never loads it (markdown-text.ts has what others need).",
      severity: "error",
      from: { pathNot: [`${server}/ingest/(page|ingest|source-cache)\\.ts$`] },
      to: { path: [`${server}/ingest/markdown\\.ts$`], dependencyTypesNot: ["type-only"] },
    },
    {
      name: "no-circular",
      severity: "error",
      from: { path: [`${server}/`, `${engine}/`] },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["\\.test\\.tsx?$", "/test/"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    enhancedResolveOptions: {
      extensions: [".ts", ".tsx", ".js", ".mjs"],
      // Workspace packages resolve to their TypeScript sources, as in the tests.
      conditionNames: ["lectern-source", "import", "require", "node", "default"],
      exportsFields: ["exports"],
    },
  },
};
