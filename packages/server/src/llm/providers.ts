import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { EmbeddingModel, LanguageModel } from "ai";
import type { Config } from "../config/config.ts";
import { createError, type ErrorCode } from "../errors.ts";

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
  model: LanguageModel & { readonly modelId: string; readonly provider: string };
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

/** The configured chat model, or undefined for `none`. Fails at start-up naming a missing variable. */
export function createChatModel(config: Config["llm"]): ChatModelHandle | undefined {
  switch (config.provider) {
    case "none":
      return undefined;
    case "openai": {
      const apiKey =
        config.openaiApiKey ?? missing("OPENAI_API_KEY", "openai (LLM_PROVIDER=openai)");
      const modelId = config.model ?? DEFAULT_CHAT_MODELS.openai;
      // .chat(): the Chat Completions API, which every OpenAI-compatible server also speaks.
      const provider = createOpenAI({
        apiKey,
        ...(config.baseUrl ? { baseURL: config.baseUrl } : {}),
      });
      return {
        model: provider.chat(modelId),
        provider: "openai",
        modelId,
        unavailableCode: "LLM_UNAVAILABLE",
      };
    }
    case "gemini": {
      const apiKey =
        config.geminiApiKey ?? missing("GEMINI_API_KEY", "gemini (LLM_PROVIDER=gemini)");
      const modelId = config.model ?? DEFAULT_CHAT_MODELS.gemini;
      const provider = createOpenAICompatible({
        name: "gemini",
        apiKey,
        baseURL: config.baseUrl ?? GEMINI_OPENAI_BASE_URL,
      });
      return {
        model: provider.chatModel(modelId),
        provider: "gemini",
        modelId,
        unavailableCode: "GEMINI_UNAVAILABLE",
      };
    }
    case "openai-compatible": {
      const baseURL =
        config.baseUrl ??
        missing("LLM_BASE_URL", "openai-compatible (LLM_PROVIDER=openai-compatible)");
      const modelId =
        config.model ?? missing("LLM_MODEL", "openai-compatible (LLM_PROVIDER=openai-compatible)");
      const provider = createOpenAICompatible({
        name: "openai-compatible",
        baseURL,
        ...(config.apiKey ? { apiKey: config.apiKey } : {}),
      });
      return {
        model: provider.chatModel(modelId),
        provider: "openai-compatible",
        modelId,
        unavailableCode: "LLM_UNAVAILABLE",
      };
    }
  }
}

export interface EmbeddingModelHandle {
  model: EmbeddingModel;
  provider: "openai" | "gemini" | "openai-compatible";
  modelId: string;
  dimensions: number | undefined;
}

/** A remote embedding model (openai, gemini, openai-compatible); `local` and `none` are handled elsewhere. */
export function createRemoteEmbeddingModel(
  config: Config["embeddings"],
  llm: Config["llm"],
): EmbeddingModelHandle {
  switch (config.provider) {
    case "openai": {
      const apiKey =
        llm.openaiApiKey ??
        missing("OPENAI_API_KEY", "openai embeddings (EMBEDDINGS_PROVIDER=openai)");
      const modelId = config.model ?? DEFAULT_EMBEDDING_MODELS.openai.model;
      const provider = createOpenAI({
        apiKey,
        ...(config.baseUrl ? { baseURL: config.baseUrl } : {}),
      });
      const dimensions =
        config.dimensions ?? (modelId === DEFAULT_EMBEDDING_MODELS.openai.model ? 1536 : undefined);
      return { model: provider.embedding(modelId), provider: "openai", modelId, dimensions };
    }
    case "gemini": {
      const apiKey =
        llm.geminiApiKey ??
        missing("GEMINI_API_KEY", "gemini embeddings (EMBEDDINGS_PROVIDER=gemini)");
      const modelId = config.model ?? DEFAULT_EMBEDDING_MODELS.gemini.model;
      const provider = createOpenAICompatible({
        name: "gemini",
        apiKey,
        baseURL: config.baseUrl ?? GEMINI_OPENAI_BASE_URL,
      });
      return {
        model: provider.embeddingModel(modelId),
        provider: "gemini",
        modelId,
        dimensions: config.dimensions,
      };
    }
    case "openai-compatible": {
      const baseURL =
        config.baseUrl ?? missing("EMBEDDINGS_BASE_URL", "openai-compatible embeddings");
      const modelId = config.model ?? missing("EMBEDDINGS_MODEL", "openai-compatible embeddings");
      const apiKey = config.apiKey ?? llm.apiKey;
      const provider = createOpenAICompatible({
        name: "openai-compatible",
        baseURL,
        ...(apiKey ? { apiKey } : {}),
      });
      return {
        model: provider.embeddingModel(modelId),
        provider: "openai-compatible",
        modelId,
        dimensions: config.dimensions,
      };
    }
    default:
      throw createError(
        "CONFIG_INVALID",
        `EMBEDDINGS_PROVIDER=${config.provider} is not a remote provider.`,
      );
  }
}
