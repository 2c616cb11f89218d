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
      schemas: Object.fromEntries(
        Object.entries(COMPONENT_SCHEMAS).map(([name, schema]) => [name, jsonSchema(schema)]),
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
      Object.entries(route.responses).map(([status, response]) => [status, describe(response)]),
    ),
  };
}

function describe(response: ResponseSpec) {
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
