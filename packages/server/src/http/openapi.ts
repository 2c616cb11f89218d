import { ERROR_CODES } from "@lectern/engine/errors";
import * as z from "zod/mini";
import {
  COMPONENT_SCHEMAS,
  type ResponseSpec,
  type RouteSpec,
  type SchemaName,
} from "./route-spec.ts";

/**
 * The API as OpenAPI 3.1, generated from the route table and the same zod schemas the handlers
 * validate with (JSON Schema 2020-12, which OpenAPI 3.1 uses as is). Served at /openapi.json.
 */
export function openApiDocument(routes: readonly RouteSpec[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const operations = paths[route.path] ?? {};
    operations[route.method.toLowerCase()] = operation(route);
    paths[route.path] = operations;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Lectern API",
      version,
      description: "Answers questions about a documentation book, with citations.",
    },
    paths,
    components: {
      schemas: withS1Rules(
        Object.fromEntries(
          Object.entries(COMPONENT_SCHEMAS).map(([name, schema]) => [name, jsonSchema(schema)]),
        ),
      ),
    },
  };
}

function operation(route: RouteSpec) {
  return {
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(route.parameters ? { parameters: route.parameters } : {}),
    ...(route.requestBody
      ? {
          requestBody: {
            required: true,
            content: { "application/json": { schema: ref(route.requestBody) } },
          },
        }
      : {}),
    responses: Object.fromEntries(
      Object.entries(route.responses).map(([status, response]) => [
        status,
        describe(Number(status), response),
      ]),
    ),
  };
}

/**
 * Fields seed S1 requires that Lectern also accepts under another name (`question` for `query`):
 * the document states S1's rule, which every client following it meets.
 */
const S1_REQUIRED: Record<string, string[]> = { ChatRequest: ["query"] };

/** Every code Lectern may answer with, as the enum of ErrorResponse.error_code (S1 lists its own). */
function withS1Rules(schemas: Record<string, Record<string, unknown>>) {
  for (const [name, required] of Object.entries(S1_REQUIRED)) {
    const schema = schemas[name];
    if (schema) schema.required = required;
  }
  // History entries carry the citations exactly as the answer returned them.
  type Node = { properties?: Record<string, Node>; items?: Node };
  const citations = (schemas.ChatResponse as Node | undefined)?.properties?.sources?.items;
  const entry = (schemas.ConversationHistoryResponse as Node | undefined)?.properties?.entries
    ?.items;
  const entrySources = entry?.properties?.sources;
  if (citations && entrySources) entrySources.items = citations;
  const errorResponse = schemas.ErrorResponse as
    | { properties?: { error_code?: Record<string, unknown> } }
    | undefined;
  const errorCode = errorResponse?.properties?.error_code;
  if (errorCode) errorCode.enum = Object.keys(ERROR_CODES);
  return schemas;
}

/** 429 and 503 answers say when to retry. */
const RETRY_AFTER = {
  "Retry-After": {
    description: "Seconds to wait before retrying",
    schema: { type: "integer" },
  },
};

function describe(status: number, response: ResponseSpec) {
  const headers = status === 429 || status === 503 ? { headers: RETRY_AFTER } : {};
  return { ...describeBody(response), ...headers };
}

function describeBody(response: ResponseSpec) {
  const contentType = response.contentType ?? "application/json";
  if (response.schema) {
    return {
      description: response.description,
      content: { [contentType]: { schema: ref(response.schema) } },
    };
  }
  if (response.contentType) {
    return {
      description: response.description,
      content: { [contentType]: { schema: { type: "string" } } },
    };
  }
  return { description: response.description };
}

function ref(name: SchemaName) {
  return { $ref: `#/components/schemas/${name}` };
}

function jsonSchema(zodSchema: z.core.$ZodType) {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(zodSchema, {
    io: "input",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return rest;
}
