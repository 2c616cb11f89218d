import type { Citation } from "@lectern/protocol";
import { citationLabel, isBookCitation } from "../citations/citation-kind.ts";
import { useStrings } from "../store/chat-store-context.ts";
import { CitationLink } from "./CitationLink.tsx";

/**
 * The numbered sources under an answer: "Title › Section" links, or the reader's selection. The
 * sources the answer cites come first; those it found but does not cite follow apart.
 */
export function SourceList({ sources }: { sources: Citation[] }) {
  const strings = useStrings();
  const uncited = sources.filter((source) => isBookCitation(source) && source.cited === false);
  const cited = sources.filter((source) => !uncited.includes(source));
  return (
    <div className="sources">
      <Sources title={strings.sources} sources={cited} />
      {uncited.length > 0 ? <Sources title={strings.otherSources} sources={uncited} /> : null}
    </div>
  );
}

function Sources({ title, sources }: { title: string; sources: Citation[] }) {
  const strings = useStrings();
  return (
    <>
      <p className="sources-title">{title}</p>
      <ol aria-label={title}>
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
    </>
  );
}
