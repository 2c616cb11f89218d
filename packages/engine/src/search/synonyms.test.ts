import { describe, expect, it } from "vitest";
import { LexicalIndex } from "./lexical-index.ts";
import { Retriever } from "./retriever.ts";
import { Synonyms } from "./synonyms.ts";
import { chunkRecord } from "./test-builders.ts";

const index = LexicalIndex.build([
  chunkRecord(
    "announcement-bar",
    "The announcement bar shows a short notice above the navigation. Set its content and close button in the theme configuration.",
    "Announcement bar",
  ),
  chunkRecord(
    "navbar",
    "The navbar holds the logo, the links to the docs and the search box. Hide items on mobile with the theme configuration.",
    "Navbar",
  ),
  chunkRecord(
    "footer",
    "The footer lists links in columns and a copyright line at the bottom of every page.",
    "Footer",
  ),
]);

const plain = new Retriever(index, { topK: 3, maxChunksPerPage: 1 });
const withSynonyms = (entries: Record<string, string | string[]>) =>
  new Retriever(index, { topK: 3, maxChunksPerPage: 1, synonyms: new Synonyms(entries) });

describe("author-approved synonyms", () => {
  const question = "How do I close the banner?";

  it("search the book's phrase for the reader's word, which no longer counts as unknown", () => {
    const before = plain.searchLexical(question);
    expect(before.unknownWords).toEqual(["banner"]);
    const after = withSynonyms({ banner: "announcement bar" }).searchLexical(question);
    expect(after.unknownWords).toBeUndefined();
    expect(after.terms).toEqual(expect.arrayContaining(["announc", "bar"]));
    expect(after.results[0]?.chunk.id).toBe("announcement-bar");
    expect(after.signals.support).toBeGreaterThan(before.signals.support);
  });

  it("match inflected forms and phrases of several words, longest phrase first", () => {
    const synonyms = new Synonyms({ "top banner": "announcement bar", banner: "footer" });
    const known = (term: string) => index.documentFrequencyOf(term) > 0;
    // "banners" is analysed like "banner"; "top banner" wins over the single word.
    const expansion = synonyms.expand("Can top banners be closed?", known);
    expect(expansion?.words).toEqual(["announc", "bar"]);
    // Both words are unknown to the book; "footer" (the shorter rule's) is not searched.
    expect(expansion?.dropped).toEqual(new Set(["top", "banner"]));
    expect(expansion?.terms).not.toContain("footer");
    // Elsewhere in a question the single word still applies.
    expect(synonyms.expand("the banner at the bottom", known)?.words).toEqual(["footer"]);
    expect(synonyms.expand("Where is the navbar?", known)).toBeUndefined();
  });

  it("weigh the first alternative the book uses, and search all of them", () => {
    const synonyms = new Synonyms({ banner: ["marquee", "announcement bar", "footer"] });
    const expansion = synonyms.expand("close the banner", (term) => {
      return index.documentFrequencyOf(term) > 0;
    });
    expect(expansion?.words).toEqual(["announc", "bar"]);
    expect(expansion?.terms).toEqual(
      expect.arrayContaining(["marque", "announc", "bar", "footer"]),
    );
  });

  it("leave a word the book does use in the question beside its synonym", () => {
    const after = withSynonyms({ navbar: "navigation" }).searchLexical("hide the navbar");
    expect(after.terms).toEqual(expect.arrayContaining(["navbar", "navig"]));
  });

  it("ignore entries that analyse to nothing (stopwords only)", () => {
    expect(new Synonyms({ the: "announcement bar", banner: "of the" }).size).toBe(0);
  });
});
