import { describe, expect, it } from "vitest";
import { sharePage } from "./share.ts";

describe("sharePage", () => {
  it("escapes everything it shows and links only to safe targets", () => {
    const html = sharePage({
      id: "AAAAAAAAAAAAAAAAAAAAAA",
      sessionId: "s",
      messageId: "m",
      query: "<script>alert(1)</script>",
      response: "Use <img src=x onerror=alert(1)> here [1] and [7].\n\n```\n<b>code</b>\n```",
      sources: [
        { citation_number: 1, source_url: "javascript:alert(1)", title: "<i>T</i>", section: "S" },
      ],
      createdAt: new Date("2026-01-02T00:00:00Z"),
    });
    expect(html).not.toMatch(/<script>|<img|<i>|<b>|javascript:/);
    expect(html).toContain("&#60;script&#62;alert(1)&#60;/script&#62;");
    expect(html).toContain('<a href="#source-1">[1]</a>');
    // A marker with no source stays plain text.
    expect(html).toContain("and [7].");
    expect(html).toContain('<li id="source-1" value="1">&#60;i&#62;T&#60;/i&#62; › S</li>');
    expect(html).toContain("<pre><code>&#60;b&#62;code&#60;/b&#62;</code></pre>");
  });
});
