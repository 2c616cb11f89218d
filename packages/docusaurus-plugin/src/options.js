/** @import { NormalizedOptions, NormalizedIngestOptions, NormalizedNavbarButton, ColorOptions } from "./types.js" */

export const PLUGIN_NAME = "docusaurus-plugin-lectern";

/** The Lectern CLI of the site's own dependencies; `--no` keeps npx from fetching a stranger's package. */
export const DEFAULT_INGEST_COMMAND = Object.freeze(["npx", "--no", "lectern"]);

const OPTION_NAMES = [
  "id",
  "mode",
  "apiUrl",
  "scriptUrl",
  "feedbackUrl",
  "title",
  "placeholder",
  "primaryColor",
  "colors",
  "theme",
  "persist",
  "askAboutSelection",
  "timeoutMs",
  "maxQuestionChars",
  "maxSelectionChars",
  "placement",
  "navbarButton",
  "ingest",
];
const COLOR_NAMES = ["primary", "primaryText"];
const INGEST_NAMES = [
  "enabled",
  "command",
  "dataDir",
  "docsDir",
  "baseUrl",
  "routeBasePath",
  "collection",
  "strict",
  "llmsTxt",
];
const NAVBAR_BUTTON_NAMES = ["label"];
const THEMES = ["auto", "light", "dark"];
const PLACEMENTS = ["floating", "side"];

/** The navbar button's label when `navbarButton: true`. */
export const DEFAULT_NAVBAR_BUTTON_LABEL = "Ask AI";

/** A wrong option, named in the message so that the site's author can find it in the config. */
export class OptionsError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(`${PLUGIN_NAME}: ${message}`);
    this.name = "OptionsError";
  }
}

/**
 * Checks the options written in docusaurus.config.js and fills in the defaults. Docusaurus calls
 * it before the plugin (as the module's `validateOptions`); it is idempotent, so the plugin runs
 * it again on what it receives.
 * @param {{ options: unknown }} args
 * @returns {NormalizedOptions}
 */
export function validateOptions({ options }) {
  const input = options ?? {};
  if (!isRecord(input)) {
    throw new OptionsError(`options must be an object, got ${describe(input)}.`);
  }
  rejectUnknown(input, OPTION_NAMES, "");

  const mode = modeOf(input.mode);
  /** @type {NormalizedOptions} */
  const normalized =
    mode === "static" ? staticOptions(input) : { ...serverOptions(input), mode: "server" };
  if (input.title !== undefined) normalized.title = text(input.title, "title");
  if (input.placeholder !== undefined) {
    normalized.placeholder = text(input.placeholder, "placeholder");
  }
  if (input.theme !== undefined) normalized.theme = theme(input.theme);
  if (input.persist !== undefined) normalized.persist = boolean(input.persist, "persist");
  if (input.askAboutSelection !== undefined) {
    normalized.askAboutSelection = boolean(input.askAboutSelection, "askAboutSelection");
  }
  if (input.timeoutMs !== undefined) {
    normalized.timeoutMs = positiveInteger(input.timeoutMs, "timeoutMs");
  }
  if (input.maxQuestionChars !== undefined) {
    normalized.maxQuestionChars = positiveInteger(input.maxQuestionChars, "maxQuestionChars");
  }
  if (input.maxSelectionChars !== undefined) {
    normalized.maxSelectionChars = positiveInteger(input.maxSelectionChars, "maxSelectionChars");
  }
  if (input.placement !== undefined) normalized.placement = placement(input.placement);
  const button = navbarButton(input.navbarButton);
  if (button) normalized.navbarButton = button;
  return normalized;
}

/** @param {unknown} value @returns {"server" | "static"} */
function modeOf(value) {
  if (value === undefined || value === "server" || value === "static") return value ?? "server";
  throw new OptionsError(`option "mode" must be "server" or "static", got ${describe(value)}.`);
}

/**
 * The widget asks the Lectern API: `apiUrl` is required, the script is the server's.
 * @param {Record<string, unknown>} input
 */
function serverOptions(input) {
  if (input.apiUrl === undefined || input.apiUrl === "") {
    throw new OptionsError(
      'option "apiUrl" is required: the URL of the Lectern API, e.g. "https://api.example.com" (or mode: "static" for a site with no server).',
    );
  }
  const apiUrl = url(input.apiUrl, "apiUrl");
  if (input.feedbackUrl !== undefined) {
    throw new OptionsError(
      'option "feedbackUrl" is for mode: "static"; a Lectern server stores feedback itself (GET /feedback).',
    );
  }
  const scriptUrl =
    input.scriptUrl === undefined ? `${apiUrl}/lectern.js` : url(input.scriptUrl, "scriptUrl");
  return {
    id: input.id === undefined ? "default" : text(input.id, "id"),
    apiUrl,
    scriptUrl,
    colors: colors(input),
    ingest: ingest(input.ingest),
  };
}

/**
 * The book is built into the site and answered in the browser: no API, and the docs are ingested
 * at every build (it is what the widget answers from).
 * @param {Record<string, unknown>} input
 * @returns {NormalizedOptions}
 */
function staticOptions(input) {
  if (input.apiUrl !== undefined) {
    throw new OptionsError(
      'option "apiUrl" has no use with mode: "static" (the book is answered in the browser); remove one of them.',
    );
  }
  const built = ingest(input.ingest ?? { enabled: true });
  if (!built.enabled) {
    throw new OptionsError(
      'mode: "static" builds the book from the docs at every build: "ingest.enabled" cannot be false.',
    );
  }
  return {
    id: input.id === undefined ? "default" : text(input.id, "id"),
    mode: "static",
    ...(input.scriptUrl === undefined ? {} : { scriptUrl: url(input.scriptUrl, "scriptUrl") }),
    ...(input.feedbackUrl === undefined
      ? {}
      : { feedbackUrl: url(input.feedbackUrl, "feedbackUrl") }),
    colors: colors(input),
    ingest: built,
  };
}

/**
 * `true`, or `{ label }` to name it; `false` or nothing leaves the navbar alone.
 * @param {unknown} value
 * @returns {NormalizedNavbarButton | undefined}
 */
function navbarButton(value) {
  if (value === undefined || value === false) return undefined;
  if (value === true) return { label: DEFAULT_NAVBAR_BUTTON_LABEL };
  if (!isRecord(value)) {
    throw new OptionsError(
      `option "navbarButton" must be true, false or an object such as { label: "Ask AI" }, got ${describe(value)}.`,
    );
  }
  rejectUnknown(value, NAVBAR_BUTTON_NAMES, "navbarButton.");
  return {
    label:
      value.label === undefined
        ? DEFAULT_NAVBAR_BUTTON_LABEL
        : text(value.label, "navbarButton.label"),
  };
}

/** @param {unknown} value */
function placement(value) {
  if (value === "floating" || value === "side") return value;
  throw new OptionsError(
    `option "placement" must be one of ${PLACEMENTS.map((p) => `"${p}"`).join(", ")}, got ${describe(value)}.`,
  );
}

/**
 * `primaryColor` is the short form of `colors.primary`.
 * @param {Record<string, unknown>} input
 * @returns {ColorOptions}
 */
function colors(input) {
  /** @type {ColorOptions} */
  const result = {};
  if (input.colors !== undefined) {
    if (!isRecord(input.colors)) {
      throw new OptionsError(
        `option "colors" must be an object such as { primary: "#2e8555" }, got ${describe(input.colors)}.`,
      );
    }
    rejectUnknown(input.colors, COLOR_NAMES, "colors.");
    if (input.colors.primary !== undefined) {
      result.primary = color(input.colors.primary, "colors.primary");
    }
    if (input.colors.primaryText !== undefined) {
      result.primaryText = color(input.colors.primaryText, "colors.primaryText");
    }
  }
  if (input.primaryColor !== undefined) {
    const primary = color(input.primaryColor, "primaryColor");
    if (result.primary !== undefined && result.primary !== primary) {
      throw new OptionsError(
        'options "primaryColor" and "colors.primary" disagree; set only one of them.',
      );
    }
    result.primary = primary;
  }
  return result;
}

/**
 * @param {unknown} value
 * @returns {NormalizedIngestOptions}
 */
function ingest(value) {
  if (value === undefined) {
    return { enabled: false, command: [...DEFAULT_INGEST_COMMAND], llmsTxt: true };
  }
  if (!isRecord(value)) {
    throw new OptionsError(
      `option "ingest" must be an object such as { enabled: true }, got ${describe(value)}.`,
    );
  }
  rejectUnknown(value, INGEST_NAMES, "ingest.");
  if (typeof value.enabled !== "boolean") {
    throw new OptionsError(
      `option "ingest.enabled" must be true or false, got ${describe(value.enabled)}.`,
    );
  }
  /** @type {NormalizedIngestOptions} */
  const result = {
    enabled: value.enabled,
    command: value.command === undefined ? [...DEFAULT_INGEST_COMMAND] : command(value.command),
    llmsTxt: value.llmsTxt === undefined ? true : boolean(value.llmsTxt, "ingest.llmsTxt"),
  };
  if (value.dataDir !== undefined) result.dataDir = text(value.dataDir, "ingest.dataDir");
  if (value.docsDir !== undefined) result.docsDir = text(value.docsDir, "ingest.docsDir");
  if (value.baseUrl !== undefined) result.baseUrl = text(value.baseUrl, "ingest.baseUrl");
  if (value.routeBasePath !== undefined) {
    if (typeof value.routeBasePath !== "string") {
      throw new OptionsError(
        `option "ingest.routeBasePath" must be a string such as "docs" or "/", got ${describe(value.routeBasePath)}.`,
      );
    }
    result.routeBasePath = value.routeBasePath;
  }
  if (value.strict !== undefined) result.strict = boolean(value.strict, "ingest.strict");
  if (value.collection !== undefined) {
    const collection = text(value.collection, "ingest.collection");
    if (!/^[a-z0-9_-]+$/.test(collection)) {
      throw new OptionsError(
        `option "ingest.collection" may only hold a-z, 0-9, "_" and "-", got ${JSON.stringify(collection)}.`,
      );
    }
    result.collection = collection;
  }
  return result;
}

/**
 * @param {unknown} value
 * @returns {string[]}
 */
function command(value) {
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((part) => typeof part === "string" && part.trim() !== "")
  ) {
    throw new OptionsError(
      `option "ingest.command" must be a non-empty array of strings such as ["npx", "lectern"], got ${describe(value)}.`,
    );
  }
  return [...value];
}

/**
 * An absolute http(s) URL or a path on the site's own origin ("/api"); trailing slashes dropped.
 * @param {unknown} value
 * @param {string} name
 */
function url(value, name) {
  const candidate = typeof value === "string" ? value.trim() : "";
  if (/^(https?:)?\/\//i.test(candidate) || /^\/(?!\/)/.test(candidate)) {
    try {
      const parsed = new URL(candidate, "http://site.invalid");
      if (parsed.protocol === "http:" || parsed.protocol === "https:") {
        return candidate.length > 1 ? candidate.replace(/\/+$/, "") : candidate;
      }
    } catch {
      // reported below
    }
  }
  throw new OptionsError(
    `option "${name}" must be an http(s) URL such as "https://api.example.com" (or a path such as "/api"), got ${describe(value)}.`,
  );
}

/**
 * @param {unknown} value
 * @param {string} name
 */
function text(value, name) {
  if (typeof value !== "string" || value.trim() === "") {
    throw new OptionsError(`option "${name}" must be a non-empty string, got ${describe(value)}.`);
  }
  return value.trim();
}

/**
 * Any CSS colour ("#2e8555", "rgb(46 133 85)", "var(--ifm-color-primary)"), but nothing that
 * could end the declaration it is written into.
 * @param {unknown} value
 * @param {string} name
 */
function color(value, name) {
  if (typeof value !== "string" || value.trim() === "" || /[;{}<>"]/.test(value)) {
    throw new OptionsError(
      `option "${name}" must be a CSS colour such as "#2e8555", got ${describe(value)}.`,
    );
  }
  return value.trim();
}

/** @param {unknown} value */
function theme(value) {
  if (value === "auto" || value === "light" || value === "dark") return value;
  throw new OptionsError(
    `option "theme" must be one of ${THEMES.map((t) => `"${t}"`).join(", ")}, got ${describe(value)}.`,
  );
}

/**
 * @param {unknown} value
 * @param {string} name
 */
function boolean(value, name) {
  if (typeof value !== "boolean") {
    throw new OptionsError(`option "${name}" must be true or false, got ${describe(value)}.`);
  }
  return value;
}

/**
 * @param {unknown} value
 * @param {string} name
 */
function positiveInteger(value, name) {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
    throw new OptionsError(`option "${name}" must be a positive integer, got ${describe(value)}.`);
  }
  return value;
}

/**
 * A misspelt option would otherwise be ignored without a word.
 * @param {Record<string, unknown>} object
 * @param {string[]} known
 * @param {string} prefix
 */
function rejectUnknown(object, known, prefix) {
  for (const key of Object.keys(object)) {
    if (!known.includes(key)) {
      const suggestion = known.find((name) => name.toLowerCase() === key.toLowerCase());
      throw new OptionsError(
        `unknown option "${prefix}${key}"${suggestion ? ` (did you mean "${prefix}${suggestion}"?)` : ""}. Known options: ${known.map((name) => prefix + name).join(", ")}.`,
      );
    }
  }
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
export function isRecord(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** @param {unknown} value */
function describe(value) {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array (${JSON.stringify(value)})`;
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}
