import type { ReactNode } from "react";
import { findCitation } from "../citations/citation-kind.ts";
import { MarkdownView } from "../markdown/MarkdownView.tsx";
import { type AssistantMessage, isSmallTalk } from "../store/chat-message.ts";
import { useChat, useStrings } from "../store/chat-store-context.ts";
import { DEFAULT_STRINGS, fill } from "../strings.ts";
import { CitationChip, PendingCitationChip } from "./CitationChip.tsx";
import { CopyAnswerButton } from "./CopyAnswerButton.tsx";
import { FeedbackButtons } from "./FeedbackButtons.tsx";
import { ShareAnswerButton } from "./ShareAnswerButton.tsx";
import { SourceList } from "./SourceList.tsx";
import { SuggestedQuestions } from "./SuggestedQuestions.tsx";

export const NO_RESULTS_MESSAGE = DEFAULT_STRINGS.noResults;
export const LOW_CONFIDENCE_MESSAGE = DEFAULT_STRINGS.lowConfidence;

const CONFIDENCE_LEVELS = {
  high: "confidenceHigh",
  medium: "confidenceMedium",
  low: "confidenceLow",
} as const;

interface AssistantMessageViewProps {
  message: AssistantMessage;
  /** The newest answer offers its follow-up questions; older ones no longer do. */
  latest: boolean;
}

export function AssistantMessageView({ message, latest }: AssistantMessageViewProps) {
  const { complete, streaming, mode, sources, route } = message;
  const strings = useStrings();
  const share = useChat((state) => state.options.share);
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
    <article className="message assistant" aria-label={strings.answer} data-message-id={message.id}>
      {mode === "no_results" ? (
        <p className="notice">{message.fallbackMessage ?? strings.noResults}</p>
      ) : message.text ? (
        <MarkdownView
          text={message.text}
          renderCitation={renderCitation}
          imageLabel={strings.image}
        />
      ) : streaming ? (
        <p className="thinking">{strings.thinking}</p>
      ) : null}
      {message.stopped ? <p className="notice">{strings.answerStopped}</p> : null}
      {complete && !smallTalk && mode === "retrieval_only" && message.fallbackMessage ? (
        <p className="notice" data-notice="retrieval-only">
          {message.fallbackMessage}
        </p>
      ) : null}
      {complete && !smallTalk && message.lowConfidence ? (
        <p className="notice warning" data-notice="low-confidence">
          {strings.lowConfidence}
        </p>
      ) : null}
      {complete && sources.length > 0 ? <SourceList sources={sources} /> : null}
      {showConfidence && message.confidence ? (
        <p className="confidence">
          {fill(strings.confidence, { level: strings[CONFIDENCE_LEVELS[message.confidence]] })}
        </p>
      ) : null}
      {streaming ? null : (
        <div className="answer-actions">
          {!smallTalk && message.messageId ? <FeedbackButtons message={message} /> : null}
          {message.text || mode === "no_results" ? <CopyAnswerButton message={message} /> : null}
          {share && !smallTalk && message.messageId ? (
            <ShareAnswerButton message={message} />
          ) : null}
        </div>
      )}
      {latest && !streaming ? (
        <SuggestedQuestions title={strings.followUps} questions={message.suggestions} />
      ) : null}
    </article>
  );
}
