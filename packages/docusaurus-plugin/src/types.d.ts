/**
 * Public types of docusaurus-plugin-lectern. The Docusaurus types used here are the small part of
 * `@docusaurus/types` the plugin reads, written out so that the package needs nothing at runtime.
 */

/** Build-time ingestion: `lectern ingest` over the site's docs, so citations link to its pages. */
export interface IngestOptions {
  /** Run `lectern ingest` after `docusaurus build` (default false). */
  enabled?: boolean;
  /**
   * The Lectern CLI as a command and its first arguments (default `["npx", "--no", "lectern"]`,
   * the `lectern` installed in the site). E.g. `["node", "/srv/lectern/packages/server/bin/lectern.js"]`.
   */
  command?: string[];
  /** `--data-dir` (relative to the site directory); default: Lectern's own (`./.lectern/<book>`). */
  dataDir?: string;
  /** The folder to ingest (relative to the site directory); default: the docs plugin's `path`. */
  docsDir?: string;
  /** `--base-url`; default: `siteConfig.url` + `siteConfig.baseUrl`. */
  baseUrl?: string;
  /** `--route-base-path`; default: the docs plugin's `routeBasePath` ("docs"). */
  routeBasePath?: string;
  /** `--collection`: the book's name inside the data directory; default: Lectern's ("default"). */
  collection?: string;
  /**
   * `--strict`: fail the build when a page cannot be ingested (default false: the page is
   * reported, keeps its previous version, and the others are indexed). Meant for CI.
   */
  strict?: boolean;
  /**
   * After ingesting, write `llms.txt`, `llms-full.txt` and each page as Markdown at its URL + `.md`
   * into the build output, with `lectern llms-txt` (default true).
   */
  llmsTxt?: boolean;
}

/** Widget colours, as any CSS colour. */
export interface ColorOptions {
  /** The button, the reader's messages, links and chips. */
  primary?: string;
  /** Text drawn on the primary colour. */
  primaryText?: string;
}

/** What goes in `plugins: [["docusaurus-plugin-lectern", { … }]]`. */
export interface PluginOptions {
  /** Docusaurus plugin instance id (only needed to use the plugin twice). */
  id?: string;
  /**
   * `server` (default): the widget asks the Lectern API at `apiUrl`. `static`: the build writes the
   * book under `{baseUrl}lectern/` (`lectern build-static --book-only`) and the widget answers in
   * the reader's browser, with no server; the docs are ingested at every build.
   */
  mode?: "server" | "static";
  /** Base URL of the Lectern API, e.g. `https://api.example.com` (required unless `mode: "static"`). */
  apiUrl?: string;
  /** Where the widget script is loaded from; default `{apiUrl}/lectern.js` (static: `{baseUrl}lectern/lectern.js`). */
  scriptUrl?: string;
  /**
   * `mode: "static"` only: where readers' thumbs up/down are posted as JSON, with the question and
   * answer they rate (`lectern build-static --feedback-url`); without it, no thumbs are shown.
   */
  feedbackUrl?: string;
  /** Heading of the chat panel and label of its button. */
  title?: string;
  /** Placeholder of the question box. */
  placeholder?: string;
  /** Main colour; the same as `colors.primary`. */
  primaryColor?: string;
  colors?: ColorOptions;
  /** `auto` (default) follows the site's light/dark switch. */
  theme?: "auto" | "light" | "dark";
  /** Keep the conversation across page loads in sessionStorage (widget default true). */
  persist?: boolean;
  /** Offer "Ask about this" next to text selected on the page (widget default true). */
  askAboutSelection?: boolean;
  /** Longest the widget waits for an answer, in milliseconds. */
  timeoutMs?: number;
  /** Longest question the widget accepts (match the server's limit). */
  maxQuestionChars?: number;
  /** Longest selected text the widget sends (match the server's limit). */
  maxSelectionChars?: number;
  /** `floating` (widget default): a panel above the button; `side`: a drawer along the right edge. */
  placement?: "floating" | "side";
  /**
   * A button in the navbar, beside the search box, that opens the chat (default off). `true`
   * labels it "Ask AI".
   */
  navbarButton?: boolean | NavbarButtonOptions;
  ingest?: IngestOptions;
}

export interface NavbarButtonOptions {
  /** The button's text (default "Ask AI"). */
  label?: string;
}

export interface NormalizedNavbarButton {
  label: string;
}

/** Options after validation: defaults applied, `primaryColor` folded into `colors`. */
export interface NormalizedOptions
  extends Omit<
    PluginOptions,
    "id" | "scriptUrl" | "primaryColor" | "colors" | "ingest" | "navbarButton"
  > {
  id: string;
  mode: "server" | "static";
  /** Unset in static mode, where the site's base URL places it (`{baseUrl}lectern/lectern.js`). */
  scriptUrl?: string;
  colors: ColorOptions;
  /** Absent when the option is off. */
  navbarButton?: NormalizedNavbarButton;
  ingest: NormalizedIngestOptions;
}

export interface NormalizedIngestOptions {
  enabled: boolean;
  command: string[];
  dataDir?: string;
  docsDir?: string;
  baseUrl?: string;
  routeBasePath?: string;
  collection?: string;
  strict?: boolean;
  llmsTxt: boolean;
}

/** A plugin entry of `presets`, `plugins` or `themes` in docusaurus.config.js. */
export type PluginConfig =
  | string
  | [unknown, unknown?]
  | ((...args: never[]) => unknown)
  | false
  | null
  | undefined;

/** The part of Docusaurus' site config the plugin reads. */
export interface SiteConfig {
  url: string;
  baseUrl: string;
  /** Docusaurus's i18n settings: the locales the site is built in. */
  i18n?: { defaultLocale?: string; locales?: string[] };
  presets?: PluginConfig[];
  plugins?: PluginConfig[];
  [key: string]: unknown;
}

/** The part of Docusaurus' `LoadContext` the plugin reads. */
export interface LoadContext {
  siteDir: string;
  /** The site's base URL (`/`, `/handbook/`). */
  baseUrl?: string;
  siteConfig: SiteConfig;
  i18n?: { defaultLocale: string; currentLocale: string };
  [key: string]: unknown;
}

/** A plugin as Docusaurus has loaded it (what `postBuild` receives in `plugins`). */
export interface LoadedPlugin {
  name: string;
  options?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface PostBuildProps {
  siteDir: string;
  /** The build output folder. */
  outDir: string;
  siteConfig: SiteConfig;
  plugins?: LoadedPlugin[];
  i18n?: { defaultLocale: string; currentLocale: string };
  [key: string]: unknown;
}

export interface HtmlTagObject {
  tagName: string;
  attributes?: Record<string, string | boolean>;
  innerHTML?: string;
}

export interface Plugin {
  name: string;
  injectHtmlTags: () => { headTags?: HtmlTagObject[]; postBodyTags: HtmlTagObject[] };
  /** Files Docusaurus bundles into the site's client code. */
  getClientModules: () => string[];
  postBuild: (props: PostBuildProps) => Promise<void>;
}

/** Docusaurus calls it with the options written in the config; throws naming a wrong option. */
export declare function validateOptions(args: { options: unknown }): NormalizedOptions;

/** The default export: `plugins: [["docusaurus-plugin-lectern", { apiUrl }]]` loads it. */
declare const pluginLectern: {
  (context: LoadContext, options: PluginOptions): Plugin;
  validateOptions: typeof validateOptions;
};
export default pluginLectern;

/** Docs folder and route base path of the site's (default) docs plugin. */
export interface DocsLocation {
  path: string;
  routeBasePath: string;
}

/** A command line to spawn: the program, its arguments and the directory to run it in. */
export interface IngestCommand {
  command: string;
  args: string[];
  cwd: string;
}
