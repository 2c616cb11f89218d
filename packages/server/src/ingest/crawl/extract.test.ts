import { describe, expect, it } from "vitest";
import { parseMarkdown } from "../markdown.ts";
import { extractPage } from "./extract.ts";

/**
 * HTML as each generator writes it → the Markdown the crawl ingests. `contains` must all appear,
 * `absent` must not (navigation, footers, permalinks: what is not content).
 */
interface Case {
  name: string;
  html: string;
  title: string;
  contains: string[];
  absent: string[];
}

const page = (head: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;

const CASES: Case[] = [
  {
    name: "Docusaurus",
    html: page(
      "<title>Nodes | Robotics</title>",
      `<nav class="navbar">Docs Blog</nav><div class="theme-doc-sidebar-container">Sidebar</div>
      <main><div class="container"><nav aria-label="Breadcrumbs" class="theme-doc-breadcrumbs">Home › Nodes</nav>
      <span class="theme-doc-version-badge">Version: 2.0</span>
      <article><div class="theme-doc-markdown markdown"><header><h1>Nodes</h1></header>
      <p>A node is one process.</p>
      <h2 class="anchor" id="publishing">Publishing<a href="#publishing" class="hash-link" aria-label="Direct link">​</a></h2>
      <div class="language-python codeBlockContainer"><pre class="prism-code language-python"><code class="codeBlockLines"><span class="token-line">node.publish(msg)<br></span></code></pre><button class="copy">Copy</button></div>
      <div class="theme-admonition theme-admonition-tip alert alert--success"><div class="admonitionHeading_x">Pro tip</div><div class="admonitionContent_y"><p>Keep nodes small.</p></div></div>
      </div></article>
      <footer class="theme-doc-footer"><a class="theme-edit-this-page" href="https://github.com/x/edit">Edit this page</a></footer>
      <nav class="pagination-nav">Previous Next</nav></div></main>
      <footer class="footer">Copyright</footer>`,
    ),
    title: "Nodes",
    contains: [
      "title: Nodes",
      "# Nodes",
      "## Publishing {#publishing}",
      "```python\nnode.publish(msg)\n```",
      ":::tip[Pro tip]\nKeep nodes small.\n:::",
    ],
    absent: [
      "Sidebar",
      "Breadcrumbs",
      "Home ›",
      "Version: 2.0",
      "Edit this page",
      "Copyright",
      "Copy",
      "Previous",
      "\u200b",
    ],
  },
  {
    name: "VitePress",
    html: page(
      "<title>Config | VitePress</title>",
      `<div class="VPNav">Guide Reference</div><div class="VPDoc"><div class="content"><main class="main">
      <div class="vp-doc _guide_config"><div><h1 id="config" tabindex="-1">Config <a class="header-anchor" href="#config" aria-label="Permalink">&#8203;</a></h1>
      <h2 id="site-title" tabindex="-1">Site title <a class="header-anchor" href="#site-title">&#8203;</a></h2>
      <div class="language-ts vp-adaptive-theme"><button title="Copy Code" class="copy"></button><span class="lang">ts</span><pre class="shiki"><code><span class="line">export default { title: "x" }</span></code></pre></div>
      <div class="warning custom-block"><p class="custom-block-title">WARNING</p><p>Restart the server.</p></div>
      </div></div></main><footer class="VPDocFooter"><div class="edit-link"><a>Edit this page on GitHub</a></div></footer></div></div>`,
    ),
    title: "Config",
    contains: [
      "## Site title {#site-title}",
      "```ts\nexport default",
      ":::warning[WARNING]\nRestart the server.\n:::",
    ],
    absent: ["Guide Reference", "Edit this page", "Copy Code", "\u200b"],
  },
  {
    name: "MkDocs Material",
    html: page(
      "<title>Setup - Material</title>",
      `<header class="md-header">Search</header><div class="md-container"><main class="md-main"><div class="md-content" data-md-component="content">
      <article class="md-content__inner md-typeset"><a href="edit/setup.md" title="Edit this page" class="md-content__button md-icon">Edit</a>
      <h1 id="setup">Setup<a class="headerlink" href="#setup" title="Permanent link">¶</a></h1>
      <h2 id="colors">Colors<a class="headerlink" href="#colors" title="Permanent link">¶</a></h2>
      <div class="language-yaml highlight"><pre><span></span><code>theme:\n  palette: indigo\n</code></pre></div>
      <div class="admonition note"><p class="admonition-title">Note</p><p>Dark mode too.</p></div>
      <table><thead><tr><th>Key</th><th>Default</th></tr></thead><tbody><tr><td>primary</td><td>indigo</td></tr></tbody></table>
      <aside class="md-source-file">Last update: 2024</aside>
      </article></div></main><footer class="md-footer">Made with Material</footer></div>`,
    ),
    title: "Setup",
    contains: [
      "# Setup {#setup}",
      "## Colors {#colors}",
      "```yaml\ntheme:\n  palette: indigo\n```",
      ":::note[Note]\nDark mode too.\n:::",
      "| Key     | Default |",
      "| primary | indigo  |",
    ],
    absent: ["¶", "Edit", "Last update", "Made with Material", "Search"],
  },
  {
    name: "Sphinx (section ids, highlight-x)",
    html: page(
      "<title>Install &#8212; Project 1.0 documentation</title>",
      `<div class="related" role="navigation"><a href="genindex.html">index</a></div>
      <div class="document"><div class="documentwrapper"><div class="bodywrapper"><div class="body" role="main">
      <section id="install"><h1>Install<a class="headerlink" href="#install" title="Permalink to this heading">¶</a></h1>
      <p>Run the installer.</p>
      <section id="on-linux"><h2>On Linux<a class="headerlink" href="#on-linux">¶</a></h2>
      <div class="highlight-bash notranslate"><div class="highlight"><pre><span></span>apt<span class="w"> </span>install<span class="w"> </span>project
</pre></div></div>
      <div class="admonition hint"><p class="admonition-title">Hint</p><p>Use sudo.</p></div>
      <ul class="simple"><li><p>first</p></li><li><p>second</p></li></ul>
      </section></section></div></div></div>
      <div class="sphinxsidebar" role="navigation"><h3>Navigation</h3></div></div>
      <div class="footer">&#169;2024. Powered by Sphinx</div>`,
    ),
    title: "Install",
    contains: [
      "# Install {#install}",
      "## On Linux {#on-linux}",
      "```bash\napt install project\n```",
      ":::tip[Hint]\nUse sudo.\n:::",
      "- first",
      "- second",
    ],
    absent: ["¶", "Navigation", "Powered by Sphinx", "genindex"],
  },
  {
    name: "Hugo (main article, title from <title>)",
    html: page(
      "<title>Quick start</title>",
      `<header><nav>Home Docs</nav></header><main><aside class="toc">On this page</aside>
      <article><p>Hugo builds fast.</p><h2 id="step-1">Step 1</h2><pre><code class="language-sh">hugo new site quickstart</code></pre></article></main>
      <div class="cookie-banner">We use cookies <button>Accept</button></div>`,
    ),
    title: "Quick start",
    contains: ["title: Quick start", "## Step 1 {#step-1}", "```sh\nhugo new site quickstart\n```"],
    absent: ["Home Docs", "cookies", "Accept"],
  },
  {
    name: "no known layout: the block with most of the text",
    html: page(
      "<title>Plain</title>",
      `<div id="menu"><a href="/a">A</a> <a href="/b">B</a></div>
      <div id="text"><h1>Plain page</h1><p>The first paragraph of the article is long enough to count.</p><p>So is the second one, with more words in it.</p></div>
      <div id="bottom">© Someone</div>`,
    ),
    title: "Plain page",
    contains: ["# Plain page", "The first paragraph", "So is the second one"],
    absent: ["© Someone"],
  },
];

describe("extractPage", () => {
  it.each(CASES)("$name", ({ html, title, contains, absent }) => {
    const extracted = extractPage(html, "https://docs.example.com/guide/page.html");
    expect(extracted.title).toBe(title);
    for (const text of contains) expect(extracted.markdown).toContain(text);
    for (const text of absent) expect(extracted.markdown).not.toContain(text);
  });

  it("gives the Markdown parser each heading's real anchor, code language and admonition", () => {
    const sphinx = CASES.find((entry) => entry.name.startsWith("Sphinx"));
    const { markdown } = extractPage(sphinx?.html ?? "", "https://docs.example.com/install.html");
    const { blocks, frontmatter } = parseMarkdown(markdown, {
      filePath: "install.md",
      format: "md",
    });
    expect(frontmatter.title).toBe("Install");
    expect(blocks).toEqual([
      expect.objectContaining({
        kind: "heading",
        depth: 1,
        text: "Install",
        explicitId: "install",
      }),
      expect.objectContaining({ kind: "prose", text: "Run the installer." }),
      expect.objectContaining({
        kind: "heading",
        depth: 2,
        text: "On Linux",
        explicitId: "on-linux",
      }),
      expect.objectContaining({ kind: "code", lang: "bash", code: "apt install project" }),
      expect.objectContaining({ kind: "prose", text: "Hint: Use sudo." }),
      expect.objectContaining({ kind: "prose", text: expect.stringMatching(/first[\s\S]*second/) }),
    ]);
  });

  it("lists the page's links as absolute URLs without fragments, relative to <base>", () => {
    const { links } = extractPage(
      page(
        '<base href="/docs/v2/">',
        '<main><a href="intro.html#top">Intro</a> <a href="mailto:x@y.z">Mail</a> <a href="https://other.example/">Other</a></main>',
      ),
      "https://docs.example.com/docs/v2/guide/page.html",
    );
    expect(links).toEqual([
      "https://docs.example.com/docs/v2/intro.html",
      "https://other.example/",
    ]);
  });

  it("keeps the TeX of KaTeX math, display math as a math block", () => {
    const katex = (tex: string) =>
      `<span class="katex"><span class="katex-mathml"><math><semantics><mrow><mi>n</mi></mrow><annotation encoding="application/x-tex">${tex}</annotation></semantics></math></span><span class="katex-html" aria-hidden="true"><span class="mord mathnormal">n</span></span></span>`;
    const { markdown } = extractPage(
      page(
        "",
        `<main><p>The ratio ${katex("n")} of the gearbox:</p><div class="katex-display">${katex("\\tau_{out} = n \\, \\tau_{in}")}</div></main>`,
      ),
      "https://x.example/gears/",
    );
    expect(markdown).toContain("The ratio n of the gearbox:");
    expect(markdown).toContain("```math\n\\tau_{out} = n \\, \\tau_{in}\n```");
  });

  it("keeps the author's description and keywords as front matter", () => {
    const { markdown } = extractPage(
      page(
        '<meta name="description" content="How to  install."><meta name="keywords" content="setup, apt">',
        "<main><h1>Install</h1><p>Text</p></main>",
      ),
      "https://x.example/install/",
    );
    const { frontmatter } = parseMarkdown(markdown, { filePath: "install.md", format: "md" });
    expect(frontmatter).toEqual({
      title: "Install",
      description: "How to install.",
      keywords: "setup, apt",
    });
  });

  it("sees a page that asks not to be indexed", () => {
    const noindex = page(
      '<meta name="robots" content="noindex, follow">',
      "<main><p>Search</p></main>",
    );
    expect(extractPage(noindex, "https://x.example/search.html").noindex).toBe(true);
    expect(extractPage(page("", "<main><p>Text</p></main>"), "https://x.example/").noindex).toBe(
      false,
    );
  });

  it("does not index Docusaurus's tag pages and generated category indexes, only follows their links", () => {
    const docusaurus = (htmlClass: string, body: string) =>
      `<!doctype html><html class="docs-wrapper plugin-docs ${htmlClass}"><head><title>x</title></head><body>${body}</body></html>`;
    const cards =
      '<main><header><h1>Simulation</h1></header><article><a class="card theme-doc-card-container" href="/docs/gazebo"><h2>Gazebo</h2></a></article></main>';
    const listings = [
      docusaurus(
        "docs-tags-list-page",
        "<main><h1>Tags</h1><a href='/docs/tags/urdf'>urdf</a></main>",
      ),
      docusaurus(
        "docs-tags-doc-list-page",
        "<main><h1>One doc tagged with urdf</h1><a href='/docs/urdf'>URDF</a></main>",
      ),
      docusaurus("docs-doc-page", cards),
    ];
    for (const html of listings) {
      const extracted = extractPage(html, "https://x.example/docs/category/simulation");
      expect(extracted.noindex, html).toBe(true);
      expect(extracted.links.length, html).toBeGreaterThan(0);
    }
    const doc = docusaurus(
      "docs-doc-page docs-doc-id-gazebo",
      '<main><article><div class="theme-doc-markdown markdown"><h1>Gazebo</h1><p>Worlds.</p></div></article></main>',
    );
    expect(extractPage(doc, "https://x.example/docs/gazebo").noindex).toBe(false);
  });
});
