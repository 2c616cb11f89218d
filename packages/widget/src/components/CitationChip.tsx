import type { Citation } from "@lectern/protocol";
import { citationLabel, isBookCitation } from "../citations/citation-kind.ts";
import { useStrings } from "../store/chat-store-context.ts";
import { fill } from "../strings.ts";
import { CitationLink } from "./CitationLink.tsx";

/** A numbered chip standing for an `[n]` marker in an answer. */
export function CitationChip({ citation }: { citation: Citation }) {
  const number = citation.citation_number;
  const strings = useStrings();
  if (isBookCitation(citation)) {
    return (
      <CitationLink
        citation={citation}
        className="citation-chip"
        label={fill(strings.source, { number, label: citationLabel(citation) })}
      >
        {number}
      </CitationLink>
    );
  }
  return (
    <span className="citation-chip" title={strings.fromYourSelection}>
      {number}
    </span>
  );
}

/** A chip drawn while the answer streams, before its sources are known. */
export function PendingCitationChip({ number }: { number: number }) {
  return <span className="citation-chip pending">{number}</span>;
}
