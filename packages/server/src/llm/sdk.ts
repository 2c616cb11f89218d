/**
 * The `ai` SDK, loaded with the first model call: a process without a model (`lectern ask`, a
 * server quoting the book) never loads it. The loading is kept, so every later call has the module
 * at once: importing a loaded module again still resolves it through the module loader each time,
 * close to a millisecond per answer under a loader hook (tsx), ahead of the model request.
 */
let loading: Promise<typeof import("ai")> | undefined;

export function loadModelSdk(): Promise<typeof import("ai")> {
  loading ??= import("ai");
  return loading;
}
