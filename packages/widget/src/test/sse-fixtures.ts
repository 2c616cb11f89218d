import type {
  Citation,
  ResponseMetadata,
  SelectedTextCitation,
  SourceCitation,
} from "@lectern/protocol";

/**
 * Server-Sent Events text as `POST /chat/stream` writes it (taken from a real response of the
 * sample book), for component tests that mock fetch.
 */

export const SESSION_ID = "ad8bc83d-599b-4d3e-aed4-24c7c36726fc";
export const REQUEST_ID = "19e27af2-330a-4664-91ba-6707e4b7b5bf";

export function sseEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

export const URDF_DELTAS = [
  "The hardware a robot has is ",
  "described in a <ros2_control> element inside ",
  "the URDF. [1] A robot with ",
  "four identical wheels would need four ",
  "nearly identical blocks of XML. xacro ",
  "(XML macros) adds properties, arithmetic and ",
  "macros to URDF: [2]",
];
export const URDF_ANSWER = URDF_DELTAS.join("");

export const RETRIEVAL_ONLY_MESSAGE =
  "AI summarisation is not configured, so this answer quotes the most relevant passages of the book.";
export const NO_RESULTS_FALLBACK =
  "I couldn't find this in the book. Try rephrasing the question, or ask about a topic the book covers.";

/** A book citation as the server sends it, from its page, section path and place in the list. */
function bookSource(
  [title, section]: [string, string],
  place: Pick<SourceCitation, "source_url" | "file_path" | "chunk_position" | "citation_number">,
  similarity_score: number,
  snippet: string,
): SourceCitation {
  return {
    source_type: "book",
    title,
    section,
    similarity_score,
    snippet,
    section_path: [title, section],
    ...place,
  };
}

export const ROS2_CONTROL_SOURCE = bookSource(
  ["The ros2_control Framework", "Declaring hardware in the URDF"],
  {
    source_url: "/docs/robot-description/ros2-control#declaring-hardware-in-the-urdf",
    file_path: "03-robot-description/03-ros2-control.md",
    chunk_position: 2,
    citation_number: 1,
  },
  1,
  'The hardware a robot has is described in a <ros2_control> element inside the URDF. For primer_bot, the wheels take velocity commands and report position and velocity:\n\n```xml\n<ros2_control name="Prime',
);

export const XACRO_SOURCE = bookSource(
  ["Describing a Robot with URDF", "Reducing repetition with xacro"],
  {
    source_url: "/docs/description/urdf#xacro",
    file_path: "03-robot-description/01-urdf.md",
    chunk_position: 6,
    citation_number: 2,
  },
  0.879,
  'A robot with four identical wheels would need four nearly identical blocks of XML. xacro (XML macros) adds properties, arithmetic and macros to URDF:\n\n```xml\n<?xml version="1.0"?>\n<robot name="primer_',
);

export const SELECTION_SOURCE: SelectedTextCitation = {
  source_type: "selected_text",
  selection_length: 82,
  snippet: "A robot with four identical wheels would need four nearly identical blocks of XML.",
  relevance_note: "The answer quotes the sentences of the selection that match the question.",
  source_url: null,
  citation_number: 1,
};

interface SourcesEventOptions {
  answer?: string | null;
  sources?: Citation[];
  mode?: "full" | "selected_text" | "retrieval_only" | "no_results";
  lowConfidence?: boolean;
  confidence?: "high" | "medium" | "low";
  fallbackMessage?: string | null;
  sessionId?: string;
  /** How the server routed the question; "question" by default, null for a server that sends none. */
  route?: NonNullable<ResponseMetadata["route"]> | null;
  /** Follow-up questions, as newer servers send them; absent by default. */
  suggestions?: string[];
}

export function sourcesEvent(options: SourcesEventOptions = {}): string {
  const mode = options.mode ?? "retrieval_only";
  const sources = options.sources ?? [ROS2_CONTROL_SOURCE, XACRO_SOURCE];
  return sseEvent("sources", {
    sources,
    metadata: {
      query_time_ms: 26.82,
      retrieval_count: sources.length,
      mode,
      low_confidence: options.lowConfidence ?? false,
      request_id: REQUEST_ID,
      search_query: "What is a URDF?",
      original_query: "What is a URDF?",
      ...(options.route === null ? {} : { route: options.route ?? "question" }),
      injection_flagged: false,
      timings: { route: 1.98, retrieve: 4.07, generate: 13.41, total: 19.86 },
      support: 1,
    },
    session_id: options.sessionId ?? SESSION_ID,
    confidence: options.confidence ?? "high",
    answer: options.answer === undefined ? URDF_ANSWER : options.answer,
    fallback_message:
      options.fallbackMessage === undefined ? RETRIEVAL_ONLY_MESSAGE : options.fallbackMessage,
    ...(options.suggestions ? { suggestions: options.suggestions } : {}),
  });
}

export function doneEvent(messageId: string | null = REQUEST_ID): string {
  return sseEvent("done", { done: true, message_id: messageId });
}

export function errorEvent(code: string, message: string, retryable = true): string {
  return sseEvent("error", {
    error: { error_code: code, message, request_id: REQUEST_ID, retry_able: retryable },
  });
}

export const deltaEvents = (deltas: string[]) =>
  deltas.map((delta) => sseEvent("delta", { delta }));

/** A whole successful answer: deltas, sources, done. */
export function answerEvents(options: SourcesEventOptions & { deltas?: string[] } = {}): string[] {
  return [...deltaEvents(options.deltas ?? URDF_DELTAS), sourcesEvent(options), doneEvent()];
}

export const NO_RESULTS_EVENTS = [
  sourcesEvent({
    answer: null,
    sources: [],
    mode: "no_results",
    confidence: "low",
    fallbackMessage: NO_RESULTS_FALLBACK,
  }),
  doneEvent(),
];

/* Small talk and the overview, as the server's router answers them. */

export const GREETING_REPLY =
  "Hello! Ask me anything about this book, or select a passage on the page and ask about it.";
export const THANKS_REPLY = "You're welcome! Ask another question about the book any time.";

/** Greetings and thanks: the reply streamed, no sources, mode "full" and confidence "high". */
export function smallTalkEvents(route: "greeting" | "thanks", options: SourcesEventOptions = {}) {
  const reply = route === "greeting" ? GREETING_REPLY : THANKS_REPLY;
  return answerEvents({
    deltas: [reply],
    answer: reply,
    sources: [],
    mode: "full",
    confidence: "high",
    fallbackMessage: null,
    route,
    ...options,
  });
}

export const INTRO_SOURCE: SourceCitation = {
  source_type: "book",
  source_url: "/docs/#robotics-primer",
  title: "Robotics Primer",
  section: "Robotics Primer",
  chunk_position: 0,
  similarity_score: 1,
  snippet:
    "Welcome to the **Robotics Primer**, a short textbook about the software that makes robots move, sense and decide. It is written for programmers who already know Python or C++ and want a structured pa",
  file_path: "index.md",
  section_path: ["Robotics Primer"],
  citation_number: 1,
};

export const OVERVIEW_ANSWER = [
  "Welcome to the **Robotics Primer**, a short textbook about the software that makes robots move, sense and decide. [1]",
  "It is organised in these parts: Getting Started, ROS 2 Fundamentals, Robot Description, Sensors and Perception, Kinematics, Simulation, Humanoids.",
  'A good place to start is "Robotics Primer" [1].',
].join("\n\n");

/** "What is this book about?": the synopsis, citing the introduction page. */
export const OVERVIEW_EVENTS = answerEvents({
  deltas: [OVERVIEW_ANSWER],
  answer: OVERVIEW_ANSWER,
  sources: [INTRO_SOURCE],
  mode: "full",
  confidence: "high",
  fallbackMessage: null,
  route: "overview",
});
