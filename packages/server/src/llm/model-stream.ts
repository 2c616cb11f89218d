import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";

/** What a streamed answer yields: its text as it comes, then what it cost. */
export type ModelStreamPart =
  | { type: "text"; text: string }
  | { type: "finish"; inputTokens: number | undefined; outputTokens: number | undefined };

/** One call to a model: a system prompt, one user message and the call's settings. */
export interface ModelRequest {
  system: string;
  prompt: string;
  temperature?: number;
  maxOutputTokens?: number;
  abortSignal: AbortSignal;
}

/**
 * A one-message answer streamed straight from the provider's model (its `doStream`), without the
 * `ai` SDK's `streamText` around it. An answer here has no tools, steps, retries (the synthesizer
 * retries), telemetry or transforms, which are what `streamText` adds: the web streams it makes per
 * call and the validation of every prompt and chunk cost about 2 ms before the first token
 * (docs/benchmarks.md). An error the stream reports is thrown; once `abortSignal` fires, its reason
 * is thrown whatever the transport reports.
 */
export async function* streamModelText(
  model: LanguageModelV3,
  request: ModelRequest,
): AsyncGenerator<ModelStreamPart> {
  const { abortSignal } = request;
  let reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart> | undefined;
  try {
    const { stream } = await model.doStream(callOptions(request));
    reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.type === "text-delta") {
        if (value.delta) yield { type: "text", text: value.delta };
      } else if (value.type === "finish") {
        yield {
          type: "finish",
          inputTokens: value.usage.inputTokens.total,
          outputTokens: value.usage.outputTokens.total,
        };
      } else if (value.type === "error") {
        throw value.error;
      }
    }
  } catch (error) {
    throw abortSignal.aborted ? abortSignal.reason : error;
  } finally {
    // A reader that stops early (an error, a prompt leak) lets go of the model's response.
    reader?.cancel().catch(() => {});
  }
}

/**
 * A one-message answer from the provider's model whole (its `doGenerate`), for short calls no
 * reader watches (follow-up questions, the rewritten question): what `generateText` would return
 * as its text, without the SDK's per-call validation and orchestration around it.
 */
export async function generateModelText(
  model: LanguageModelV3,
  request: ModelRequest,
): Promise<string> {
  const { abortSignal } = request;
  try {
    const { content } = await model.doGenerate(callOptions(request));
    return content.map((part) => (part.type === "text" ? part.text : "")).join("");
  } catch (error) {
    throw abortSignal.aborted ? abortSignal.reason : error;
  }
}

function callOptions(request: ModelRequest): LanguageModelV3CallOptions {
  return {
    prompt: [
      { role: "system", content: request.system },
      { role: "user", content: [{ type: "text", text: request.prompt }] },
    ],
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
    abortSignal: request.abortSignal,
  };
}
