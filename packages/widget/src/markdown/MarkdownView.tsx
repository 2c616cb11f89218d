import { createElement, Fragment, type ReactNode, useMemo } from "react";
import { DEFAULT_STRINGS, fill } from "../strings.ts";
import { type Block, type Inline, parseMarkdown } from "./parse-markdown.ts";
import { isSameOrigin, safeLinkUrl } from "./safe-url.ts";

interface MarkdownViewProps {
  text: string;
  /** Draws a `[n]` marker; the answer's sources decide what it becomes. */
  renderCitation: (number: number) => ReactNode;
  /** Text of the link standing in for an image from another host; `{alt}` is its description. */
  imageLabel?: string;
}

/**
 * Renders an answer's Markdown as React elements. Every string goes through React as text, so
 * HTML in an answer shows as written and never runs; links and images pass the safe-url rules.
 */
export function MarkdownView({
  text,
  renderCitation,
  imageLabel = DEFAULT_STRINGS.image,
}: MarkdownViewProps) {
  const blocks = useMemo(() => parseMarkdown(text), [text]);
  return <div className="markdown">{renderBlocks(blocks, { renderCitation, imageLabel })}</div>;
}

type Renderers = Required<Omit<MarkdownViewProps, "text">>;

/** The tree is rebuilt from the text on every change, so a node's position is its identity. */
function keyed<T>(items: T[], render: (item: T) => ReactNode): ReactNode[] {
  // biome-ignore lint/suspicious/noArrayIndexKey: parsed nodes have no identity but their position
  return items.map((item, position) => <Fragment key={position}>{render(item)}</Fragment>);
}

function renderBlocks(blocks: Block[], render: Renderers): ReactNode[] {
  return keyed(blocks, (block) => renderBlock(block, render));
}

function renderBlock(block: Block, render: Renderers): ReactNode {
  const inline = (nodes: Inline[]) => renderInline(nodes, render);
  switch (block.type) {
    case "paragraph":
      return <p>{inline(block.children)}</p>;
    case "heading":
      // The panel's title is an h2, so the answer's own headings start below it.
      return createElement(`h${Math.min(block.level + 2, 6)}`, null, inline(block.children));
    case "code":
      return (
        <div className="code-block">
          {block.language ? <div className="code-language">{block.language}</div> : null}
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must take focus so the keyboard can scroll it (WCAG 2.1.1) */}
          <pre tabIndex={0}>
            <code>{block.text}</code>
          </pre>
        </div>
      );
    case "quote":
      return <blockquote>{renderBlocks(block.children, render)}</blockquote>;
    case "list": {
      const items = keyed(block.items, (item) => <li>{renderListItem(item, render)}</li>);
      return block.ordered ? <ol start={block.start}>{items}</ol> : <ul>{items}</ul>;
    }
    case "table":
      // Wide tables scroll sideways inside the answer rather than widen the panel.
      return (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must take focus so the keyboard can scroll it (WCAG 2.1.1)
        <div className="table-scroll" tabIndex={0}>
          <table>
            <thead>
              <tr>
                {keyed(block.header, (cell) => (
                  <th>{inline(cell)}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {keyed(block.rows, (row) => (
                <tr>
                  {keyed(row, (cell) => (
                    <td>{inline(cell)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    case "rule":
      return <hr />;
  }
}

/** A one-paragraph item is drawn without its paragraph, as a tight list. */
function renderListItem(item: Block[], render: Renderers): ReactNode {
  const [only] = item;
  if (item.length === 1 && only?.type === "paragraph") return renderInline(only.children, render);
  return renderBlocks(item, render);
}

function renderInline(nodes: Inline[], render: Renderers): ReactNode[] {
  return keyed(nodes, (node) => renderInlineNode(node, render));
}

function renderInlineNode(node: Inline, render: Renderers): ReactNode {
  switch (node.type) {
    case "text":
      return node.text;
    case "code":
      return <code>{node.text}</code>;
    case "strong":
      return <strong>{renderInline(node.children, render)}</strong>;
    case "emphasis":
      return <em>{renderInline(node.children, render)}</em>;
    case "link":
      return <SafeLink href={node.href}>{renderInline(node.children, render)}</SafeLink>;
    case "image":
      return <SafeImage src={node.src} alt={node.alt} label={render.imageLabel} />;
    case "citation":
      return render.renderCitation(node.number);
    case "break":
      return <br />;
  }
}

const EXTERNAL_REL = "noopener noreferrer nofollow";

function SafeLink({ href, children }: { href: string; children: ReactNode }) {
  const url = safeLinkUrl(href);
  if (!url) return <span className="unsafe-link">{children}</span>;
  if (isSameOrigin(url)) return <a href={url}>{children}</a>;
  return (
    <a href={url} target="_blank" rel={EXTERNAL_REL}>
      {children}
    </a>
  );
}

/** Images from other hosts are not loaded (they could track the reader): a link stands in. */
function SafeImage({ src, alt, label }: { src: string; alt: string; label: string }) {
  const url = safeLinkUrl(src);
  if (!url) return alt ? <span>{alt}</span> : null;
  if (isSameOrigin(url)) return <img src={url} alt={alt} loading="lazy" />;
  return (
    <a href={url} target="_blank" rel={EXTERNAL_REL} className="image-link">
      {fill(label, { alt: alt || url })}
    </a>
  );
}
