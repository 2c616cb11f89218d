import { describe, expect, it } from "vitest";
import { loadConfig } from "../config/config.ts";
import {
  createChatModel,
  createRemoteEmbeddingModel,
  type ProviderClient,
  ProviderClients,
} from "./providers.ts";

/** A registry that records every client it hands out. */
function recordingClients(): { clients: ProviderClients; handedOut: ProviderClient[] } {
  const clients = new ProviderClients();
  const handedOut: ProviderClient[] = [];
  const get = clients.get.bind(clients);
  clients.get = (provider, connection) => {
    const client = get(provider, connection);
    handedOut.push(client);
    return client;
  };
  return { clients, handedOut };
}

describe("provider clients", () => {
  it("gives chat and embeddings on the same provider and connection one client", () => {
    const config = loadConfig({
      env: { LLM_PROVIDER: "openai", EMBEDDINGS_PROVIDER: "openai", OPENAI_API_KEY: "sk-test" },
    });
    const { clients, handedOut } = recordingClients();
    const chat = createChatModel(config.llm, clients);
    const embeddings = createRemoteEmbeddingModel(config.embeddings, config.llm, clients);
    expect(chat?.modelId).toBe("gpt-4o-mini");
    expect(embeddings.modelId).toBe("text-embedding-3-small");
    expect(embeddings.dimensions).toBe(1536);
    expect(handedOut).toHaveLength(2);
    expect(handedOut[0]).toBe(handedOut[1]);
  });

  it("shares Gemini's client between chat and embeddings through its default endpoint", () => {
    const config = loadConfig({
      env: { LLM_PROVIDER: "gemini", EMBEDDINGS_PROVIDER: "gemini", GEMINI_API_KEY: "g-test" },
    });
    const { clients, handedOut } = recordingClients();
    expect(createChatModel(config.llm, clients)?.unavailableCode).toBe("GEMINI_UNAVAILABLE");
    createRemoteEmbeddingModel(config.embeddings, config.llm, clients);
    expect(handedOut[0]).toBe(handedOut[1]);
  });

  it("keeps separate clients for separate endpoints of one provider", () => {
    const chatEndpoint = { LLM_BASE_URL: "http://127.0.0.1:1/v1", LLM_MODEL: "chat-model" };
    const embeddingEndpoint = {
      EMBEDDINGS_BASE_URL: "http://127.0.0.1:2/v1",
      EMBEDDINGS_MODEL: "embedding-model",
    };
    const config = loadConfig({
      env: {
        LLM_PROVIDER: "openai-compatible",
        EMBEDDINGS_PROVIDER: "openai-compatible",
        ...chatEndpoint,
        ...embeddingEndpoint,
      },
    });
    const { clients, handedOut } = recordingClients();
    expect(createChatModel(config.llm, clients)?.unavailableCode).toBe("LLM_UNAVAILABLE");
    createRemoteEmbeddingModel(config.embeddings, config.llm, clients);
    expect(handedOut).toHaveLength(2);
    expect(handedOut[0]).not.toBe(handedOut[1]);
  });
});
