import { createRequire } from "node:module";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { createError, type ErrorCode } from "@lectern/engine/errors";
import type { EmbeddingModel } from "ai";
import type { Config } from "../config/config.ts";

/** Default models per provider. */
export const DEFAULT_CHAT_MODELS = {
  openai: "gpt-4o-mini",
  gemini: "gemini-2.5-flash",
} as const;
export const DEFAULT_EMBEDDING_MODELS = {
  openai: { model: "text-embedding-3-small", dimensions: 1536 },
  gemini: { model: "gemini-embedding-001", dimensions: 3072 },
} as const;

/** Google's OpenAI-compatible endpoint for Gemini. */
export const GEMINI_OPENAI_BASE_URL = "https://generativelanguage.googleapis.com/v1beta/openai";

export interface ChatModelHandle {
  model: LanguageModelV3;
  provider: "openai" | "gemini" | "openai-compatible";
  modelId: string;
  /** The error code a failure of this model is reported with. */
  unavailableCode: ErrorCode;
}

function missing(variable: string, provider: string): never {
  throw createError(
    "CONFIG_INVALID",
    `${variable} is required when the ${provider} provider is selected.`,
    {
      details: { variable },
    },
  );
}

type RemoteProvider = "openai" | "gemini" | "openai-compatible";
type ChatModel = ChatModelHandle["model"];

/** One provider's API client; chat and embedding models are both made from it. */
export interface ProviderClient {
  chatModel(modelId: string): ChatModel;
  embeddingModel(modelId: string): EmbeddingModel;
}

interface Connection {
  apiKey: string | undefined;
  baseURL: string | undefined;
}

/**
 * The provider clients of one process: one client per provider and connection (key and base URL),
 * so chat and embeddings on the same provider share it. The composition root creates one and hands
 * it to both; a caller that passes none gets clients of its own.
 */
export class ProviderClients {
  private readonly clients = new Map<string, ProviderClient>();

  get(provider: RemoteProvider, connection: Connection): ProviderClient {
    const key = JSON.stringify([provider, connection.apiKey ?? "", connection.baseURL ?? ""]);
    let client = this.clients.get(key);
    if (!client) {
      client = buildClient(provider, connection);
      this.clients.set(key, client);
    }
    return client;
  }
}

/**
 * The provider packages, loaded when a client is first made: a process without a model (`lectern
 * ask`, a server quoting the book) never pays for them. Their CommonJS builds, so that making a
 * model stays synchronous; their errors carry the same markers as the ES builds' (`isInstance`).
 */
const load = createRequire(import.meta.url);

function buildClient(provider: RemoteProvider, { apiKey, baseURL }: Connection): ProviderClient {
  if (provider === "openai") {
    const { createOpenAI } = load("@ai-sdk/openai") as typeof import("@ai-sdk/openai");
    const openai = createOpenAI({ ...(apiKey ? { apiKey } : {}), ...(baseURL ? { baseURL } : {}) });
    // .chat(): the Chat Completions API, which every OpenAI-compatible server also speaks.
    return {
      chatModel: (modelId) => openai.chat(modelId),
      embeddingModel: (modelId) => openai.embedding(modelId),
    };
  }
  // Callers resolve the base URL (Gemini's default, or the required LLM/EMBEDDINGS_BASE_URL).
  if (baseURL === undefined) throw new Error(`The ${provider} client needs a base URL.`);
  const { createOpenAICompatible } = load(
    "@ai-sdk/openai-compatible",
  ) as typeof import("@ai-sdk/openai-compatible");
  const compatible = createOpenAICompatible({
    name: provider,
    baseURL,
    ...(apiKey ? { apiKey } : {}),
    // Token counts of streamed answers (stream_options.include_usage), for the metrics.
    includeUsage: true,
  });
  return {
    chatModel: (modelId) => compatible.chatModel(modelId),
    embeddingModel: (modelId) => compatible.embeddingModel(modelId),
  };
}

/** The configured chat model, or undefined for `none`. Fails at start-up naming a missing variable. */
export function createChatModel(
  config: Config["llm"],
  clients = new ProviderClients(),
): ChatModelHandle | undefined {
  switch (config.provider) {
    case "none":
      return undefined;
    case "openai": {
      const apiKey =
        config.openaiApiKey ?? missing("OPENAI_API_KEY", "openai (LLM_PROVIDER=openai)");
      const modelId = config.model ?? DEFAULT_CHAT_MODELS.openai;
      const client = clients.get("openai", { apiKey, baseURL: config.baseUrl });
      return chatHandle(client, "openai", modelId);
    }
    case "gemini": {
      const apiKey =
        config.geminiApiKey ?? missing("GEMINI_API_KEY", "gemini (LLM_PROVIDER=gemini)");
      const modelId = config.model ?? DEFAULT_CHAT_MODELS.gemini;
      const baseURL = config.baseUrl ?? GEMINI_OPENAI_BASE_URL;
      return chatHandle(clients.get("gemini", { apiKey, baseURL }), "gemini", modelId);
    }
    case "openai-compatible": {
      const baseURL =
        config.baseUrl ??
        missing("LLM_BASE_URL", "openai-compatible (LLM_PROVIDER=openai-compatible)");
      const modelId =
        config.model ?? missing("LLM_MODEL", "openai-compatible (LLM_PROVIDER=openai-compatible)");
      const client = clients.get("openai-compatible", { apiKey: config.apiKey, baseURL });
      return chatHandle(client, "openai-compatible", modelId);
    }
  }
}

function chatHandle(
  client: ProviderClient,
  provider: RemoteProvider,
  modelId: string,
): ChatModelHandle {
  return {
    model: client.chatModel(modelId),
    provider,
    modelId,
    unavailableCode: provider === "gemini" ? "GEMINI_UNAVAILABLE" : "LLM_UNAVAILABLE",
  };
}

export interface EmbeddingModelHandle {
  model: EmbeddingModel;
  provider: RemoteProvider;
  modelId: string;
  dimensions: number | undefined;
}

/** A remote embedding model (openai, gemini, openai-compatible); `local` and `none` are handled elsewhere. */
export function createRemoteEmbeddingModel(
  config: Config["embeddings"],
  llm: Config["llm"],
  clients = new ProviderClients(),
): EmbeddingModelHandle {
  switch (config.provider) {
    case "openai": {
      const apiKey =
        llm.openaiApiKey ??
        missing("OPENAI_API_KEY", "openai embeddings (EMBEDDINGS_PROVIDER=openai)");
      const modelId = config.model ?? DEFAULT_EMBEDDING_MODELS.openai.model;
      const client = clients.get("openai", { apiKey, baseURL: config.baseUrl });
      const dimensions =
        config.dimensions ?? (modelId === DEFAULT_EMBEDDING_MODELS.openai.model ? 1536 : undefined);
      return embeddingHandle(client, "openai", modelId, dimensions);
    }
    case "gemini": {
      const apiKey =
        llm.geminiApiKey ??
        missing("GEMINI_API_KEY", "gemini embeddings (EMBEDDINGS_PROVIDER=gemini)");
      const modelId = config.model ?? DEFAULT_EMBEDDING_MODELS.gemini.model;
      const baseURL = config.baseUrl ?? GEMINI_OPENAI_BASE_URL;
      const client = clients.get("gemini", { apiKey, baseURL });
      return embeddingHandle(client, "gemini", modelId, config.dimensions);
    }
    case "openai-compatible": {
      const baseURL =
        config.baseUrl ?? missing("EMBEDDINGS_BASE_URL", "openai-compatible embeddings");
      const modelId = config.model ?? missing("EMBEDDINGS_MODEL", "openai-compatible embeddings");
      const client = clients.get("openai-compatible", {
        apiKey: config.apiKey ?? llm.apiKey,
        baseURL,
      });
      return embeddingHandle(client, "openai-compatible", modelId, config.dimensions);
    }
    default:
      throw createError(
        "CONFIG_INVALID",
        `EMBEDDINGS_PROVIDER=${config.provider} is not a remote provider.`,
      );
  }
}

function embeddingHandle(
  client: ProviderClient,
  provider: RemoteProvider,
  modelId: string,
  dimensions: number | undefined,
): EmbeddingModelHandle {
  return { model: client.embeddingModel(modelId), provider, modelId, dimensions };
}
