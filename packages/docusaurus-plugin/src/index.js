/** @import { LoadContext, Plugin, PostBuildProps } from "./types.js" */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  buildIngestCommand,
  buildLlmsTxtCommand,
  buildStaticBookCommand,
  findDocsLocation,
  runIngest,
} from "./ingest.js";
import { PLUGIN_NAME, validateOptions } from "./options.js";
import { navbarButtonTag, widgetScriptTag } from "./tags.js";

/** The browser half of `navbarButton`, bundled by Docusaurus as a client module. */
const NAVBAR_BUTTON_MODULE = fileURLToPath(new URL("./navbar-button.js", import.meta.url));

/**
 * Docusaurus plugin: the Lectern chat widget on every page and, with `ingest.enabled`, the docs
 * ingested by `lectern ingest` once `docusaurus build` has written the site.
 * @param {LoadContext} context
 * @param {unknown} options the options validated by `validateOptions` (checked again here, so the
 *   plugin can also be used as a function in `plugins: [[pluginLectern, options]]`)
 * @returns {Plugin}
 */
export default function pluginLectern(context, options) {
  const normalized = validateOptions({ options });
  const tag = widgetScriptTag(normalized, context?.baseUrl);
  const button = normalized.navbarButton;
  return {
    name: PLUGIN_NAME,

    injectHtmlTags() {
      return button
        ? { headTags: [navbarButtonTag(button)], postBodyTags: [tag] }
        : { postBodyTags: [tag] };
    },

    /** Only with `navbarButton`: a site without it gets no code of the plugin's in its bundle. */
    getClientModules() {
      return button ? [NAVBAR_BUTTON_MODULE] : [];
    },

    /** After the build rather than in loadContent, so `docusaurus start` never ingests. */
    async postBuild(props) {
      if (!normalized.ingest.enabled || !isDefaultLocale(props)) return;
      const ingestCommand = buildIngestCommand({
        siteDir: props.siteDir,
        siteConfig: props.siteConfig,
        ingest: normalized.ingest,
        docs: findDocsLocation({ siteConfig: props.siteConfig, plugins: props.plugins }),
        versioned: existsSync(path.join(props.siteDir, "versions.json")),
      });
      console.log(`[${PLUGIN_NAME}] Ingesting the docs into Lectern`);
      await runIngest(ingestCommand);
      if (normalized.mode === "static") {
        console.log(
          `[${PLUGIN_NAME}] Writing the book for the browser (${normalized.ingest.command.join(" ")} build-static)`,
        );
        await runIngest(
          buildStaticBookCommand({
            ingest: normalized.ingest,
            outDir: props.outDir,
            siteDir: props.siteDir,
            ...(normalized.feedbackUrl ? { feedbackUrl: normalized.feedbackUrl } : {}),
          }),
        );
      }
      if (normalized.ingest.llmsTxt) {
        console.log(`[${PLUGIN_NAME}] Writing llms.txt and each page as Markdown`);
        await runIngest(
          buildLlmsTxtCommand({
            siteConfig: props.siteConfig,
            ingest: normalized.ingest,
            outDir: props.outDir,
            siteDir: props.siteDir,
          }),
        );
      }
    },
  };
}

// Docusaurus looks for validateOptions on the default export as well as beside it.
pluginLectern.validateOptions = validateOptions;

export { validateOptions };

/**
 * The docs are ingested once, with the default locale's URLs; a build of each other locale
 * calls postBuild again with its own baseUrl.
 * @param {PostBuildProps} props
 */
function isDefaultLocale(props) {
  return !props.i18n || props.i18n.currentLocale === props.i18n.defaultLocale;
}
