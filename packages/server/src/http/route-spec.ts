import { COMPAT_SCHEMAS } from "./compat/schemas.ts";
import {
  ChatRequestSchema,
  ChatResponseSchema,
  ConversationHistoryResponseSchema,
  ErrorBodySchema,
  FeedbackRequestSchema,
  HealthResponseSchema,
  SearchResponseSchema,
  SuggestionsResponseSchema,
} from "./wire.ts";

/**
 * How a route is described in the route table: enough for the endpoint listing at `GET /`, the
 * `Allow` header of a 405 and the OpenAPI document.
 */

export type HttpMethod = "GET" | "POST" | "DELETE";

/** The wire schemas the OpenAPI document names under components. */
export const COMPONENT_SCHEMAS = {
  ChatRequest: ChatRequestSchema,
  ChatResponse: ChatResponseSchema,
  ErrorResponse: ErrorBodySchema,
  HealthResponse: HealthResponseSchema,
  ConversationHistoryResponse: ConversationHistoryResponseSchema,
  FeedbackRequest: FeedbackRequestSchema,
  SearchResponse: SearchResponseSchema,
  SuggestionsResponse: SuggestionsResponseSchema,
  ...COMPAT_SCHEMAS,
};
export type SchemaName = keyof typeof COMPONENT_SCHEMAS;

export interface ResponseSpec {
  description: string;
  /** The body's schema; JSON unless `contentType` says otherwise. */
  schema?: SchemaName;
  /** A body that is not JSON (an event stream, CSV, JavaScript): described as a string. */
  contentType?: string;
}

export interface ParameterSpec {
  name: string;
  in: "path" | "query";
  required: boolean;
  schema: Record<string, unknown>;
}

export interface RouteSpec {
  method: HttpMethod;
  /** In OpenAPI form: `/history/{session_id}`. */
  path: string;
  /** One line: the listing's description and the operation's summary. */
  summary: string;
  /** More about the operation, for the OpenAPI document (another seed's body on the same path). */
  description?: string;
  parameters?: readonly ParameterSpec[];
  /** The JSON body's schema. */
  requestBody?: SchemaName;
  responses: Readonly<Record<number, ResponseSpec>>;
}

/** `/history/{session_id}` → `/history/:session_id` (Hono's form). */
export function honoPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

/** Every method a route is served with, in `Allow` order. */
export const METHOD_ORDER: readonly HttpMethod[] = ["GET", "POST", "DELETE"];

/** Each path with the methods served on it, as an `Allow` header value ("GET, DELETE"). */
export function allowedMethods(routes: readonly RouteSpec[]): Map<string, string> {
  const byPath = new Map<string, Set<HttpMethod>>();
  for (const route of routes) {
    const methods = byPath.get(route.path) ?? new Set();
    methods.add(route.method);
    byPath.set(route.path, methods);
  }
  return new Map(
    [...byPath].map(([path, methods]) => [
      path,
      METHOD_ORDER.filter((method) => methods.has(method)).join(", "),
    ]),
  );
}
