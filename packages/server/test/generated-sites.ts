import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

/**
 * A small handbook (a robot arm controller) built into a site by a real generator: MkDocs or
 * Sphinx, as installed on the machine (`apt-get install mkdocs python3-sphinx`). Each page has
 * headings, a table, a code block, a list and an admonition, and one fact a question can find.
 */

const run = promisify(execFile);

/** A page of the handbook: its file name (without extension), title and sections. */
interface HandbookPage {
  name: string;
  title: string;
  intro: string;
  sections: { heading: string; text: string }[];
}

export const HANDBOOK: HandbookPage[] = [
  {
    name: "index",
    title: "Armature handbook",
    intro: "Armature drives a six-axis robot arm from a single board computer.",
    sections: [
      {
        heading: "What the controller does",
        text: "The controller plans joint trajectories and streams them to the servo bus at 250 hertz.",
      },
    ],
  },
  {
    name: "install",
    title: "Installing Armature",
    intro: "Install the controller on the board before wiring the arm.",
    sections: [
      {
        heading: "Flashing the firmware",
        text: "Flash the servo firmware with the armflash tool while the bus power switch is off.",
      },
      {
        heading: "Calibrating the joints",
        text: "Calibration moves every joint to its home switch and records the encoder offsets in calibration.yaml.",
      },
    ],
  },
  {
    name: "safety",
    title: "Safety limits",
    intro: "Limits keep the arm inside its workspace.",
    sections: [
      {
        heading: "Emergency stop",
        text: "The emergency stop cuts servo power within 8 milliseconds and latches until the reset button is pressed.",
      },
      {
        heading: "Torque limits",
        text: "Each joint stops when its measured torque exceeds the torque_limit parameter for 50 milliseconds.",
      },
    ],
  },
];

/** Questions about the handbook, each answered by one section (its page and heading). */
export const HANDBOOK_QUESTIONS = [
  { question: "How fast does the emergency stop cut servo power?", page: "safety" },
  { question: "Where are the encoder offsets recorded during calibration?", page: "install" },
  { question: "At what rate are trajectories streamed to the servo bus?", page: "index" },
];

function markdownPage(page: HandbookPage): string {
  const sections = page.sections.map(
    (section) =>
      `## ${section.heading}\n\n${section.text}\n\n### Settings of ${section.heading.toLowerCase()}\n\n| Setting | Default |\n| --- | --- |\n| speed | 0.5 |\n| retries | 3 |\n\n\`\`\`python\narm.run("${section.heading}")\n\`\`\`\n\n- Check the cables.\n- Check the power supply.\n\n!!! warning "Careful"\n    Keep clear of the arm during ${section.heading.toLowerCase()}.\n`,
  );
  return `# ${page.title}\n\n${page.intro}\n\n${sections.join("\n")}`;
}

function restPage(page: HandbookPage): string {
  const underline = (text: string, char: string) => char.repeat(text.length);
  const sections = page.sections.map((section) => {
    const sub = `Settings of ${section.heading.toLowerCase()}`;
    return `${section.heading}\n${underline(section.heading, "-")}\n\n${section.text}\n\n${sub}\n${underline(sub, "~")}\n\n.. list-table::\n   :header-rows: 1\n\n   * - Setting\n     - Default\n   * - speed\n     - 0.5\n   * - retries\n     - 3\n\n.. code-block:: python\n\n   arm.run("${section.heading}")\n\n- Check the cables.\n- Check the power supply.\n\n.. warning::\n\n   Keep clear of the arm during ${section.heading.toLowerCase()}.\n`;
  });
  const toctree = page.name === "index" ? "\n.. toctree::\n\n   install\n   safety\n" : "";
  return `${page.title}\n${underline(page.title, "=")}\n\n${page.intro}\n${toctree}\n${sections.join("\n")}`;
}

/** Writes the handbook as an MkDocs project in `directory` and builds it; the site's folder. */
export async function buildMkdocsSite(directory: string): Promise<string> {
  await mkdir(path.join(directory, "docs"), { recursive: true });
  for (const page of HANDBOOK) {
    await writeFile(path.join(directory, "docs", `${page.name}.md`), markdownPage(page));
  }
  await writeFile(
    path.join(directory, "mkdocs.yml"),
    "site_name: Armature\nuse_directory_urls: true\nmarkdown_extensions:\n  - admonition\n  - tables\n  - toc:\n      permalink: true\nnav:\n  - index.md\n  - install.md\n  - safety.md\n",
  );
  await run("mkdocs", ["build", "--quiet", "--site-dir", "site"], { cwd: directory });
  return path.join(directory, "site");
}

/** Writes the handbook as a Sphinx project in `directory` and builds it as HTML; the site's folder. */
export async function buildSphinxSite(directory: string): Promise<string> {
  await mkdir(path.join(directory, "source"), { recursive: true });
  for (const page of HANDBOOK) {
    await writeFile(path.join(directory, "source", `${page.name}.rst`), restPage(page));
  }
  await writeFile(
    path.join(directory, "source", "conf.py"),
    'project = "Armature"\nhtml_theme = "alabaster"\nextensions = []\n',
  );
  const out = path.join(directory, "html");
  await run("sphinx-build", ["-q", "-b", "html", "source", out], { cwd: directory });
  return out;
}

/** Whether a generator's command is installed. */
export async function hasCommand(command: string): Promise<boolean> {
  return run("sh", ["-c", `command -v ${command}`]).then(
    () => true,
    () => false,
  );
}
