import { APICallError } from "@ai-sdk/provider";

/**
 * One retry policy for model calls: retry 408, 409, 429 and 5xx answers and network failures, with
 * exponential backoff, honouring the server's Retry-After (up to a cap). Retryability lives on the
 * error (APICallError.isRetryable and its status); this helper only decides when to try again.
 */

export interface RetryOptions {
  maxRetries: number;
  baseDelayMs: number;
  /** Longest wait, also the longest Retry-After honoured; a longer one fails at once. */
  maxDelayMs: number;
  signal?: AbortSignal | undefined;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
}

const RETRYABLE_STATUS = new Set([408, 409, 429]);

export function isRetryableError(error: unknown): boolean {
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    if (status !== undefined) return RETRYABLE_STATUS.has(status) || status >= 500;
    return error.isRetryable;
  }
  if (error instanceof Error) {
    if (error.name === "AbortError") return false;
    const code =
      (error as { code?: string; cause?: { code?: string } }).code ??
      (error as { cause?: { code?: string } }).cause?.code;
    return (
      error.message === "fetch failed" ||
      ["ECONNRESET", "ECONNREFUSED", "ETIMEDOUT", "UND_ERR_SOCKET"].includes(code ?? "")
    );
  }
  return false;
}

/** Milliseconds the server asked to wait (`retry-after-ms`, `retry-after` seconds or date). */
export function retryAfterMs(error: unknown, now = Date.now()): number | undefined {
  if (!APICallError.isInstance(error)) return undefined;
  const headers = error.responseHeaders ?? {};
  const header = (name: string) =>
    Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  const milliseconds = Number(header("retry-after-ms"));
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = header("retry-after");
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

export async function withRetry<T>(
  work: (attempt: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const sleep = options.sleep ?? defaultSleep;
  for (let attempt = 0; ; attempt++) {
    try {
      return await work(attempt);
    } catch (error) {
      if (attempt >= options.maxRetries || !isRetryableError(error) || options.signal?.aborted)
        throw error;
      const requested = retryAfterMs(error);
      if (requested !== undefined && requested > options.maxDelayMs) throw error;
      const backoff = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);
      const delayMs = requested ?? backoff * (0.75 + Math.random() * 0.5);
      options.onRetry?.({ attempt: attempt + 1, delayMs, error });
      await sleep(delayMs, options.signal);
    }
  }
}
