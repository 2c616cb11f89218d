/** The Embedder interface lives with the providers in llm/; search reads it from here. */
export { type Embedder, isDenseEnabled, noneEmbedder } from "../llm/embedder.ts";
