import { crawlGeneratorSuite, MKDOCS } from "./crawl-generator-suite.ts";

await crawlGeneratorSuite(MKDOCS);
