import { crawlGeneratorSuite, SPHINX } from "./crawl-generator-suite.ts";

await crawlGeneratorSuite(SPHINX);
