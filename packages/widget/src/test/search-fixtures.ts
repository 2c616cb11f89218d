import type { SearchResponse, SearchResult } from "@lectern/protocol";

/** `GET /search` results as the server sends them for the sample book. */
export const XACRO_RESULT: SearchResult = {
  page_title: "Describing a Robot with URDF",
  section: "Reducing repetition with xacro",
  url: "/docs/description/urdf#xacro",
  snippet: "A robot with four identical wheels would need four nearly identical blocks of <XML>.",
  highlights: [
    [13, 17],
    [79, 82],
  ],
  score: 12.5,
};

export const URDF_RESULT: SearchResult = {
  page_title: "Describing a Robot with URDF",
  section: null,
  url: "/docs/description/urdf",
  snippet: "URDF describes a robot's links and joints.",
  highlights: [[0, 4]],
  score: 9.1,
};

export function searchResponse(query: string, results: SearchResult[]): SearchResponse {
  return { query, results, took_ms: 0.8 };
}
