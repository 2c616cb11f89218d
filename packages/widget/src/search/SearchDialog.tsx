import type { SearchResult } from "@lectern/protocol";
import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { searchBook } from "../api/search-book.ts";
import { trapFocus } from "../components/trap-focus.ts";
import { useChat, useStrings } from "../store/chat-store-context.ts";
import { fill } from "../strings.ts";
import { HighlightedText } from "./HighlightedText.tsx";
import { navigation } from "./navigation.ts";

/** Keystrokes closer together than this make one search request. */
export const SEARCH_DEBOUNCE_MS = 150;

interface SearchState {
  /** The text these results answer; results of an older text are never shown. */
  query: string;
  results: SearchResult[];
}

/**
 * The search-and-ask box: the first row asks the typed text in the chat, the rows under it are
 * the book's sections that match it, as the reader types. Arrow keys choose, Enter opens.
 */
export function SearchDialog({ onClose }: { onClose: () => void }) {
  const strings = useStrings();
  const apiUrl = useChat((state) => state.options.apiUrl);
  const ask = useChat((state) => state.ask);
  const [text, setText] = useState("");
  const [found, setFound] = useState<SearchState>({ query: "", results: [] });
  const [active, setActive] = useState(0);
  const dialogRef = useRef<HTMLDivElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const titleId = useId();
  const listId = useId();
  const query = text.trim();

  useEffect(() => {
    inputRef.current?.focus();
  }, []);

  useEffect(() => {
    if (!query) return;
    // A newer text aborts the request of the one before, so a late answer is never shown.
    const controller = new AbortController();
    const timer = setTimeout(() => {
      searchBook(apiUrl, query, controller.signal).then(
        (body) => {
          if (!controller.signal.aborted) setFound({ query, results: body.results });
        },
        () => {
          // Search is a convenience: when it fails, the Ask row is still there.
          if (!controller.signal.aborted) setFound({ query, results: [] });
        },
      );
    }, SEARCH_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [apiUrl, query]);

  const results = found.query === query ? found.results : [];
  const rowCount = query ? results.length + 1 : 0;
  const activeRow = Math.min(active, rowCount - 1);
  const rowId = (row: number) => `${listId}-${row}`;

  const choose = (row: number) => {
    if (!query) return;
    if (row === 0) {
      onClose();
      ask(query);
      return;
    }
    const result = results[row - 1];
    if (!result) return;
    onClose();
    navigation.go(result.url);
  };

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a press beside the box closes it, for the mouse; Esc and the close button do so for everyone
    <div
      className="search-backdrop"
      onMouseDown={(event) => event.target === event.currentTarget && onClose()}
    >
      <div
        ref={dialogRef}
        className="search-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            event.stopPropagation();
            onClose();
          } else if (dialogRef.current) {
            trapFocus(event, dialogRef.current);
          }
        }}
      >
        <div className="search-header">
          <h2 id={titleId} className="visually-hidden">
            {strings.searchLabel}
          </h2>
          <input
            ref={inputRef}
            type="text"
            className="search-input"
            role="combobox"
            aria-label={strings.searchLabel}
            aria-expanded={rowCount > 0}
            aria-controls={listId}
            aria-autocomplete="list"
            aria-activedescendant={rowCount > 0 ? rowId(activeRow) : undefined}
            autoComplete="off"
            spellCheck={false}
            enterKeyHint="go"
            placeholder={strings.searchPlaceholder}
            value={text}
            onChange={(event) => {
              setText(event.target.value);
              setActive(0);
            }}
            onKeyDown={(event) => {
              if (event.nativeEvent.isComposing || rowCount === 0) return;
              if (event.key === "ArrowDown" || event.key === "ArrowUp") {
                event.preventDefault();
                const step = event.key === "ArrowDown" ? 1 : -1;
                setActive((activeRow + step + rowCount) % rowCount);
              } else if (event.key === "Enter") {
                event.preventDefault();
                choose(activeRow);
              }
            }}
          />
          <button
            type="button"
            className="icon-button"
            aria-label={strings.closeSearch}
            onClick={onClose}
          >
            <span aria-hidden="true">×</span>
          </button>
        </div>
        <div
          id={listId}
          className="search-results"
          role="listbox"
          aria-label={strings.searchResults}
        >
          {query ? (
            <SearchRow id={rowId(0)} active={activeRow === 0} onChoose={() => choose(0)}>
              <span className="search-ask">{fill(strings.askRow, { question: query })}</span>
            </SearchRow>
          ) : null}
          {results.map((result, index) => (
            <SearchRow
              key={`${result.url} ${result.snippet}`}
              id={rowId(index + 1)}
              active={activeRow === index + 1}
              onChoose={() => choose(index + 1)}
            >
              <span className="search-title">
                {result.section && result.section !== result.page_title
                  ? `${result.page_title} › ${result.section}`
                  : result.page_title}
              </span>
              <span className="search-snippet">
                <HighlightedText text={result.snippet} ranges={result.highlights} />
              </span>
            </SearchRow>
          ))}
        </div>
        {query && found.query === query && results.length === 0 ? (
          <p className="search-empty" role="status">
            {fill(strings.noSearchResults, { query })}
          </p>
        ) : null}
      </div>
    </div>
  );
}

interface SearchRowProps {
  id: string;
  active: boolean;
  onChoose: () => void;
  children: ReactNode;
}

/** One row; focus stays in the text box (aria-activedescendant), so a press must not move it. */
function SearchRow({ id, active, onChoose, children }: SearchRowProps) {
  const rowRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (active) rowRef.current?.scrollIntoView?.({ block: "nearest" });
  }, [active]);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the keys are the combobox's (arrows, Enter); this is for the pointer
    <div
      ref={rowRef}
      id={id}
      role="option"
      tabIndex={-1}
      aria-selected={active}
      className="search-row"
      onMouseDown={(event) => event.preventDefault()}
      onClick={onChoose}
    >
      {children}
    </div>
  );
}
