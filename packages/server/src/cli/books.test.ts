import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../test/cli.ts";
import { bookName } from "./book-dir.ts";

/** Each book its own index: two books side by side, never one silently replacing the other. */

let project: string;
beforeAll(async () => {
  project = await mkdtemp(path.join(tmpdir(), "lectern-books-"));
  const books: Record<string, Record<string, string>> = {
    "garden/docs": {
      "index.md": "# Garden Handbook\n\nKeeping a vegetable garden.\n",
      "watering.md": "# Watering\n\nWater tomatoes deeply twice a week at the base of the plant.\n",
    },
    "kitchen/docs": {
      "index.md": "# Kitchen Notes\n\nCooking what the garden grows.\n",
      "sauce.md": "# Sauce\n\nSimmer the tomatoes for forty minutes with olive oil and garlic.\n",
    },
  };
  for (const [folder, files] of Object.entries(books)) {
    await mkdir(path.join(project, folder), { recursive: true });
    for (const [name, text] of Object.entries(files)) {
      await writeFile(path.join(project, folder, name), text);
    }
  }
});
afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

describe("books and their data directories", () => {
  it("names a book's directory after its docs folder", () => {
    expect(bookName("examples/robotics-primer/docs")).toBe("robotics-primer-docs");
    expect(bookName("/srv/Handbook")).toBe("handbook");
    expect(bookName("/srv/My Site/website/")).toBe("my-site-website");
  });

  it("keeps each book in its own directory under .lectern, titled from its root page or --title", async () => {
    const garden = await runCli(["ingest", "--docs", "garden/docs"], { cwd: project });
    expect(garden.code, garden.stderr).toBe(0);
    expect(garden.stdout).toContain("Book: Garden Handbook");
    expect(garden.stdout).toContain(path.join(project, ".lectern", "garden-docs"));

    // The only book is found without naming it.
    const onlyBook = await runCli(["ask", "When should I water tomatoes?", "--json"], {
      cwd: project,
    });
    expect(onlyBook.code, onlyBook.stderr).toBe(0);
    expect(JSON.parse(onlyBook.stdout).sources[0].file_path).toBe("watering.md");

    const kitchen = await runCli(
      ["ingest", "--docs", "kitchen/docs", "--title", "The Kitchen Book"],
      { cwd: project },
    );
    expect(kitchen.code, kitchen.stderr).toBe(0);
    expect(kitchen.stdout).toContain("Book: The Kitchen Book");
    expect(existsSync(path.join(project, ".lectern", "kitchen-docs", "db"))).toBe(true);

    // Two books: the reader chooses one, and each answers from its own pages.
    const ambiguous = await runCli(["ask", "tomatoes"], { cwd: project });
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/several books \(garden-docs, kitchen-docs\)/);
    const gardenAnswer = await runCli(
      ["ask", "How long do I simmer the sauce?", "--docs", "garden/docs", "--json"],
      { cwd: project },
    );
    const kitchenAnswer = await runCli(
      ["ask", "How long do I simmer the sauce?", "--docs", "kitchen/docs", "--json"],
      { cwd: project },
    );
    expect(JSON.parse(kitchenAnswer.stdout).sources[0].file_path).toBe("sauce.md");
    expect(
      JSON.parse(gardenAnswer.stdout).sources.map((s: { file_path: string }) => s.file_path),
    ).not.toContain("sauce.md");
  });

  it("titles a book whose pages name none after its Docusaurus site, else its folder", async () => {
    const page = "# Jars\n\nWash the jars in hot water before filling them.\n";
    await mkdir(path.join(project, "pantry"), { recursive: true });
    await writeFile(path.join(project, "pantry", "jars.md"), page);
    const folder = await runCli(
      ["ingest", "--docs", "pantry", "--data-dir", path.join(project, "pantry-index")],
      { cwd: project },
    );
    expect(folder.code, folder.stderr).toBe(0);
    expect(folder.stdout).toContain("Book: pantry,");

    await mkdir(path.join(project, "shop", "docs"), { recursive: true });
    await writeFile(
      path.join(project, "shop", "docusaurus.config.js"),
      'export default { title: "Corner Shop", url: "https://shop.example" };\n',
    );
    await writeFile(path.join(project, "shop", "docs", "jars.md"), page);
    const site = await runCli(
      ["ingest", "--docs", "shop/docs", "--data-dir", path.join(project, "shop-index")],
      { cwd: project },
    );
    expect(site.code, site.stderr).toBe(0);
    expect(site.stdout).toContain("Book: Corner Shop,");
  });

  it("refuses to ingest another book into a data directory that holds one, unless --replace", async () => {
    const dataDir = path.join(project, "shared-index");
    const first = await runCli(["ingest", "--docs", "garden/docs", "--data-dir", dataDir], {
      cwd: project,
    });
    expect(first.code, first.stderr).toBe(0);

    const second = await runCli(["ingest", "--docs", "kitchen/docs", "--data-dir", dataDir], {
      cwd: project,
    });
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(
      /error \[BOOK_MISMATCH\]: .*holds the book ingested from .*garden\/docs \("Garden Handbook"\).*--replace/,
    );
    const stillGarden = await runCli(
      ["ask", "When should I water tomatoes?", "--data-dir", dataDir, "--json"],
      { cwd: project },
    );
    expect(JSON.parse(stillGarden.stdout).sources[0].file_path).toBe("watering.md");

    const replaced = await runCli(
      ["ingest", "--docs", "kitchen/docs", "--data-dir", dataDir, "--replace"],
      { cwd: project },
    );
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stdout).toContain("Book: Kitchen Notes");
    // The same book again (from another working directory, by another path) is not "another book".
    const again = await runCli(
      ["ingest", "--docs", path.join(project, "kitchen", "docs"), "--data-dir", dataDir],
      { cwd: path.join(project, "kitchen") },
    );
    expect(again.code, again.stderr).toBe(0);
  });
});
