import type { SourceCitation } from "@lectern/protocol";
import type { ReactNode } from "react";
import { openCitation } from "../citations/open-citation.ts";
import { withTextFragment } from "../citations/text-fragment.ts";
import { isSameOrigin } from "../markdown/safe-url.ts";
import { useChat } from "../store/chat-store-context.ts";

const SMALL_SCREEN = "(max-width: 640px)";

interface CitationLinkProps {
  citation: SourceCitation;
  className?: string;
  label?: string;
  children: ReactNode;
}

/**
 * A link to a cited section. On the page being read it scrolls there and highlights the passage;
 * elsewhere it navigates, with a Text Fragment so the browser highlights the passage too.
 */
export function CitationLink({ citation, className, label, children }: CitationLinkProps) {
  const close = useChat((state) => state.close);
  const href = withTextFragment(citation.source_url, citation.snippet);
  const external = !isSameOrigin(citation.source_url);
  return (
    <a
      href={href}
      className={className}
      aria-label={label}
      title={label}
      {...(external ? { target: "_blank", rel: "noopener noreferrer" } : {})}
      onClick={(event) => {
        const revealed = openCitation(event, citation.source_url, citation.snippet);
        // Full screen, the panel would hide the passage it just revealed.
        if (revealed && window.matchMedia?.(SMALL_SCREEN).matches) close();
      }}
    >
      {children}
    </a>
  );
}
