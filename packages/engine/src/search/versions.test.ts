import { describe, expect, it } from "vitest";
import type { BookVersion } from "../book/records.ts";
import { chunkFilter, narrowsContent } from "./filters.ts";
import { chunkRecord } from "./test-builders.ts";
import { inVersion, resolveVersion, versionOfUrl } from "./versions.ts";

const VERSIONS: BookVersion[] = [
  { name: "current", label: "Next", urlSegment: "next", filePrefix: "docs/", latest: false },
  {
    name: "30.4",
    label: "30.4",
    urlSegment: "",
    filePrefix: "versioned_docs/version-30.4/",
    latest: true,
  },
  {
    name: "29.7",
    label: "29.7",
    urlSegment: "29.7",
    filePrefix: "versioned_docs/version-29.7/",
    latest: false,
  },
];

const resolve = (version?: string, sourceUrl?: string) =>
  resolveVersion(VERSIONS, { version, sourceUrl, routeBasePath: "/docs" })?.name;

describe("resolveVersion", () => {
  it("takes a version by name, label, URL segment or 'latest', in any case", () => {
    expect(resolve("29.7")).toBe("29.7");
    expect(resolve("current")).toBe("current");
    expect(resolve("next")).toBe("current");
    expect(resolve("NEXT")).toBe("current");
    expect(resolve("latest")).toBe("30.4");
  });

  it("reads the page's version from its URL when none is named, else takes the latest", () => {
    expect(resolve(undefined, "https://jestjs.io/docs/29.7/cli")).toBe("29.7");
    expect(resolve(undefined, "https://jestjs.io/docs/next/cli")).toBe("current");
    expect(resolve(undefined, "https://jestjs.io/docs/cli")).toBe("30.4");
    expect(resolve(undefined, "https://jestjs.io/blog/2025/06/04/jest-30")).toBe("30.4");
    expect(resolve(undefined)).toBe("30.4");
    // A named version wins over the page's.
    expect(resolve("29.7", "https://jestjs.io/docs/next/cli")).toBe("29.7");
  });

  it("finds the version after a site's base URL and in docs-only mode", () => {
    expect(versionOfUrl(VERSIONS, "/jest/docs/29.7/cli", "docs")?.name).toBe("29.7");
    expect(versionOfUrl(VERSIONS, "/next/cli", "/")?.name).toBe("current");
    expect(versionOfUrl(VERSIONS, "/cli", "")?.name).toBe("30.4");
  });

  it("refuses a version the book does not have, listing the versions", () => {
    expect(() => resolve("28.0")).toThrow(/Unknown docs version "28.0".*current, 30\.4, 29\.7/);
  });

  it("leaves a book without versions unscoped, whatever is asked", () => {
    expect(resolveVersion([], { version: "29.7", routeBasePath: "/docs" })).toBeUndefined();
    expect(inVersion({ section: "Install" }, undefined)).toEqual({ section: "Install" });
  });
});

const chunk = ({ filePath }: { filePath: string }) => ({
  ...chunkRecord(filePath, "How the CLI runs tests.", "CLI"),
  filePath,
});

describe("the version filter", () => {
  it("keeps the chunks of one version's pages", () => {
    const filter = chunkFilter(inVersion(undefined, VERSIONS[2]));
    expect(filter?.(chunk({ filePath: "versioned_docs/version-29.7/cli.md" }))).toBe(true);
    expect(filter?.(chunk({ filePath: "versioned_docs/version-30.4/cli.md" }))).toBe(false);
    expect(filter?.(chunk({ filePath: "docs/cli.md" }))).toBe(false);
  });
});

describe("narrowsContent", () => {
  it("counts any filters given without a version, as before versions, and a version alone not", () => {
    expect(narrowsContent(undefined)).toBe(false);
    expect(narrowsContent({})).toBe(true);
    expect(narrowsContent({ sourceUrlPrefix: undefined, section: undefined })).toBe(true);
    expect(narrowsContent(inVersion(undefined, VERSIONS[1]))).toBe(false);
    expect(narrowsContent(inVersion({ section: "CLI" }, VERSIONS[1]))).toBe(true);
  });
});
