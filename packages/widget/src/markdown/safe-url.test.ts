import { describe, expect, it } from "vitest";
import { isSameOrigin, safeLinkUrl } from "./safe-url.ts";

describe("safeLinkUrl", () => {
  it("keeps http(s), relative URLs and anchors", () => {
    for (const url of [
      "https://docs.ros.org/en",
      "HTTP://example.com",
      "/docs/kinematics#inverse",
      "../intro",
      "page.md",
      "#quality-of-service",
      "//cdn.example.com/x",
    ]) {
      expect(safeLinkUrl(url)).toBe(url);
    }
  });

  it("refuses script and data URLs, however they are disguised", () => {
    for (const url of [
      "javascript:alert(1)",
      "JaVaScRiPt:alert(1)",
      " javascript:alert(1)",
      "java\tscript:alert(1)",
      "java\nscript:alert(1)",
      "\u0001javascript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "vbscript:msgbox",
      "mailto:someone@example.com",
      "file:///etc/passwd",
      "",
    ]) {
      expect(safeLinkUrl(url), url).toBeNull();
    }
  });
});

describe("isSameOrigin", () => {
  const page = "https://book.example.com/docs/intro";
  it("treats relative URLs as the page's own and compares absolute origins", () => {
    expect(isSameOrigin("/img/arm.png", page)).toBe(true);
    expect(isSameOrigin("https://book.example.com/img/arm.png", page)).toBe(true);
    expect(isSameOrigin("https://tracker.example.net/pixel.png", page)).toBe(false);
    expect(isSameOrigin("//tracker.example.net/pixel.png", page)).toBe(false);
  });
});
