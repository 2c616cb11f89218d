import { S0ErrorSchema, S0QueryRequestSchema, S0QueryResponseSchema } from "./s0.ts";
import { S2MessagesResponseSchema, S2SessionSchema } from "./s2.ts";
import {
  S3ChatRequestSchema,
  S3ChatResponseSchema,
  S3ErrorSchema,
  S3HealthResponseSchema,
  S3HistoryResponseSchema,
} from "./s3.ts";
import { S4ChatRequestSchema, S4ChatResponseSchema, S4ErrorSchema } from "./s4.ts";

/** The seeds' wire schemas, named in the OpenAPI document beside Lectern's own. */
export const COMPAT_SCHEMAS = {
  S0QueryRequest: S0QueryRequestSchema,
  S0QueryResponse: S0QueryResponseSchema,
  S0Error: S0ErrorSchema,
  S2Session: S2SessionSchema,
  S2MessagesResponse: S2MessagesResponseSchema,
  S3ChatRequest: S3ChatRequestSchema,
  S3ChatResponse: S3ChatResponseSchema,
  S3HistoryResponse: S3HistoryResponseSchema,
  S3HealthResponse: S3HealthResponseSchema,
  S3Error: S3ErrorSchema,
  S4ChatRequest: S4ChatRequestSchema,
  S4ChatResponse: S4ChatResponseSchema,
  S4Error: S4ErrorSchema,
};
