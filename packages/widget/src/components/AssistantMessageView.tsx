import type { ReactNode } from "react";
import { findCitation } from "../citations/citation-kind.ts";
import { MarkdownView } from "../markdown/MarkdownView.tsx";
import { type AssistantMessage, isSmallTalk } from "../store/chat-message.ts";
import { CitationChip, PendingCitationChip } from "./CitationChip.tsx";
import { FeedbackButtons } from "./FeedbackButtons.tsx";
import { SourceList } from "./SourceList.tsx";

export const NO_RESULTS_MESSAGE = "The book does not seem to cover this question.";
export const LOW_CONFIDENCE_MESSAGE =
  "The book matches this question only loosely, so this answer may miss the point. Check the sources.";

export function AssistantMessageView({ message }: { message: AssistantMessage }) {
  const { complete, streaming, mode, sources, route } = message;
  // A greeting or thanks gets a canned reply: there is no retrieval to qualify and nothing to rate.
  const smallTalk = isSmallTalk(route);
  // Confidence grades how well book passages matched; an overview is the synopsis, not a match.
  const showConfidence =
    complete && message.confidence !== null && mode !== "no_results" && route === "question";
  const renderCitation = (number: number): ReactNode => {
    const citation = findCitation(sources, number);
    if (citation) return <CitationChip citation={citation} />;
    // Sources arrive after the text: until then a marker is drawn as a chip without a link.
    if (!complete) return <PendingCitationChip number={number} />;
    return `[${number}]`;
  };

  return (
    <article className="message assistant" aria-label="Answer">
      {mode === "no_results" ? (
        <p className="notice">{message.fallbackMessage ?? NO_RESULTS_MESSAGE}</p>
      ) : message.text ? (
        <MarkdownView text={message.text} renderCitation={renderCitation} />
      ) : streaming ? (
        <p className="thinking">Looking in the book…</p>
      ) : null}
      {message.stopped ? <p className="notice">Answer stopped.</p> : null}
      {complete && !smallTalk && mode === "retrieval_only" && message.fallbackMessage ? (
        <p className="notice" data-notice="retrieval-only">
          {message.fallbackMessage}
        </p>
      ) : null}
      {complete && !smallTalk && message.lowConfidence ? (
        <p className="notice warning" data-notice="low-confidence">
          {LOW_CONFIDENCE_MESSAGE}
        </p>
      ) : null}
      {complete && sources.length > 0 ? <SourceList sources={sources} /> : null}
      {showConfidence ? <p className="confidence">Confidence: {message.confidence}</p> : null}
      {!streaming && !smallTalk && message.messageId ? <FeedbackButtons message={message} /> : null}
    </article>
  );
}
