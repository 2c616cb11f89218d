/**
 * The `ai` SDK, loaded with the first batch of embeddings (answers, follow-ups and rewrites call
 * the provider's model directly: model-stream.ts): a process without a remote embedder never
 * loads it. The loading is kept, so every later call has the module at once: importing a loaded
 * module again still resolves it through the module loader each time, close to a millisecond a
 * call under a loader hook (tsx).
 */
let loading: Promise<typeof import("ai")> | undefined;

export function loadModelSdk(): Promise<typeof import("ai")> {
  loading ??= import("ai");
  return loading;
}
