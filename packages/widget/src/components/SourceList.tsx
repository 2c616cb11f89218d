import type { Citation } from "@lectern/protocol";
import { citationLabel, isBookCitation } from "../citations/citation-kind.ts";
import { CitationLink } from "./CitationLink.tsx";

/** The numbered sources under an answer: "Title › Section" links, or the reader's selection. */
export function SourceList({ sources }: { sources: Citation[] }) {
  return (
    <div className="sources">
      <p className="sources-title">Sources</p>
      <ol aria-label="Sources">
        {sources.map((source) => (
          <li key={source.citation_number} value={source.citation_number}>
            {isBookCitation(source) ? (
              <CitationLink citation={source}>{citationLabel(source)}</CitationLink>
            ) : (
              <span>
                Your selection <span className="muted">— {source.relevance_note}</span>
              </span>
            )}
          </li>
        ))}
      </ol>
    </div>
  );
}
