/**
 * The dependency rule (docs/architecture.md): cli → http → pipeline → (search, llm, store, answer);
 * ingest → (search, store, llm); nothing imports the CLI or the HTTP layer; the widget speaks to
 * the server only through the shared protocol package. Checked by `npm run lint:deps` in `npm test`.
 */
const server = "^packages/server/src";
module.exports = {
  forbidden: [
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
      from: { path: [`${server}/(pipeline|answer|eval)/`] },
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
      comment: "Search and the store never reach up into the pipeline, ingestion, HTTP or the CLI.",
      severity: "error",
      from: { path: [`${server}/(search|store)/`] },
      to: { path: [`${server}/(pipeline|answer|eval|ingest|http|cli)/`] },
    },
    {
      name: "store-does-not-rank",
      comment: "The store neither ranks nor calls models.",
      severity: "error",
      from: { path: [`${server}/store/`] },
      to: { path: [`${server}/(search|llm)/`] },
    },
    {
      name: "providers-are-adapters",
      comment: "Model providers are adapters: they never reach the pipeline, HTTP or the CLI.",
      severity: "error",
      from: { path: [`${server}/llm/`] },
      to: { path: [`${server}/(pipeline|answer|eval|http|cli)/`] },
    },
    {
      name: "widget-speaks-protocol-only",
      comment: "The widget imports nothing of the server but the shared wire schemas.",
      severity: "error",
      from: { path: ["^packages/widget/src"] },
      to: { path: ["^packages/(server|docusaurus-plugin)/"] },
    },
    {
      name: "protocol-stands-alone",
      comment: "The wire format depends on nothing of Lectern's.",
      severity: "error",
      from: { path: ["^packages/protocol/"] },
      to: { path: ["^packages/(server|widget|docusaurus-plugin)/"] },
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
      from: { path: [`${server}/`] },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["\\.test\\.tsx?$", "/test/", "node_modules"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs"] },
  },
};
