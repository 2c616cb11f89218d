import type { Citation } from "@lectern/protocol";
import { citationLabel, isBookCitation } from "../citations/citation-kind.ts";
import { useStrings } from "../store/chat-store-context.ts";
import { CitationLink } from "./CitationLink.tsx";

/** The numbered sources under an answer: "Title › Section" links, or the reader's selection. */
export function SourceList({ sources }: { sources: Citation[] }) {
  const strings = useStrings();
  return (
    <div className="sources">
      <p className="sources-title">{strings.sources}</p>
      <ol aria-label={strings.sources}>
        {sources.map((source) => (
          <li key={source.citation_number} value={source.citation_number}>
            {isBookCitation(source) ? (
              <CitationLink citation={source}>{citationLabel(source)}</CitationLink>
            ) : (
              <span>
                {strings.yourSelection} <span className="muted">— {source.relevance_note}</span>
              </span>
            )}
          </li>
        ))}
      </ol>
    </div>
  );
}
