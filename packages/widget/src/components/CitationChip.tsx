import type { Citation } from "@lectern/protocol";
import { citationLabel, isBookCitation } from "../citations/citation-kind.ts";
import { CitationLink } from "./CitationLink.tsx";

/** A numbered chip standing for an `[n]` marker in an answer. */
export function CitationChip({ citation }: { citation: Citation }) {
  const number = citation.citation_number;
  if (isBookCitation(citation)) {
    return (
      <CitationLink
        citation={citation}
        className="citation-chip"
        label={`Source ${number}: ${citationLabel(citation)}`}
      >
        {number}
      </CitationLink>
    );
  }
  return (
    <span className="citation-chip" title="From your selection">
      {number}
    </span>
  );
}

/** A chip drawn while the answer streams, before its sources are known. */
export function PendingCitationChip({ number }: { number: number }) {
  return <span className="citation-chip pending">{number}</span>;
}
