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
        text: "The controller reads the arm's configuration and owns every servo on the bus.",
      },
      {
        heading: "Trajectory streaming",
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
  { question: "When does a joint stop because of its torque?", page: "safety" },
  { question: "Where are the encoder offsets recorded during calibration?", page: "install" },
  { question: "At what rate are trajectories streamed to the servo bus?", page: "index" },
];

/** Sentences that make each section long enough to be a chunk of its own (with its anchor). */
function details(topic: string): string {
  return [
    `Operators write each ${topic} step in the maintenance log with the date and their initials.`,
    `A checklist for ${topic} hangs beside the workcell and is signed at the end of every shift.`,
    `Training for ${topic} takes one afternoon and ends with a supervised run on the spare arm.`,
    `The service team reviews the ${topic} records every quarter and updates the procedure.`,
    `Questions about ${topic} go to the cell lead before the next production batch starts.`,
    `Photographs of the ${topic} set-up are kept with the work order for later audits.`,
    `New staff shadow an experienced operator through ${topic} twice before doing it alone.`,
    `Spare parts needed for ${topic} are stored in the labelled drawer under the bench.`,
    `The ${topic} procedure was last revised after the plant moved to the new building.`,
    `Visitors stay behind the yellow line while ${topic} is in progress on the floor.`,
  ].join(" ");
}

function markdownPage(page: HandbookPage): string {
  const sections = page.sections.map(
    (section) =>
      `## ${section.heading}\n\n${section.text}\n\n${details(section.heading.toLowerCase())}\n\n### Settings of ${section.heading.toLowerCase()}\n\n| Setting | Default |\n| --- | --- |\n| speed | 0.5 |\n| retries | 3 |\n\n\`\`\`python\narm.run("${section.heading}")\n\`\`\`\n\n- Check the cables.\n- Check the power supply.\n\n!!! warning "Careful"\n    Keep clear of the arm during ${section.heading.toLowerCase()}.\n`,
  );
  return `# ${page.title}\n\n${page.intro}\n\n${sections.join("\n")}`;
}

function restPage(page: HandbookPage): string {
  const underline = (text: string, char: string) => char.repeat(text.length);
  const sections = page.sections.map((section) => {
    const sub = `Settings of ${section.heading.toLowerCase()}`;
    return `${section.heading}\n${underline(section.heading, "-")}\n\n${section.text}\n\n${details(section.heading.toLowerCase())}\n\n${sub}\n${underline(sub, "~")}\n\n.. list-table::\n   :header-rows: 1\n\n   * - Setting\n     - Default\n   * - speed\n     - 0.5\n   * - retries\n     - 3\n\n.. code-block:: python\n\n   arm.run("${section.heading}")\n\n- Check the cables.\n- Check the power supply.\n\n.. warning::\n\n   Keep clear of the arm during ${section.heading.toLowerCase()}.\n`;
  });
  const toctree = page.name === "index" ? "\n.. toctree::\n\n   install\n   safety\n" : "";
  return `${page.title}\n${underline(page.title, "=")}\n\n${page.intro}\n${toctree}\n${sections.join("\n")}`;
}

/**
 * Writes the handbook as an MkDocs project in `directory` (unless `rebuild`: the sources as they
 * are now) and builds it; the site's folder.
 */
export async function buildMkdocsSite(directory: string, rebuild = false): Promise<string> {
  const site = path.join(directory, "site");
  if (rebuild) {
    await run("mkdocs", ["build", "--quiet", "--site-dir", "site"], { cwd: directory });
    return site;
  }
  await mkdir(path.join(directory, "docs"), { recursive: true });
  for (const page of HANDBOOK) {
    await writeFile(path.join(directory, "docs", `${page.name}.md`), markdownPage(page));
  }
  await writeFile(
    path.join(directory, "mkdocs.yml"),
    "site_name: Armature\nuse_directory_urls: true\nmarkdown_extensions:\n  - admonition\n  - tables\n  - toc:\n      permalink: true\nnav:\n  - index.md\n  - install.md\n  - safety.md\n",
  );
  return buildMkdocsSite(directory, true);
}

/** Writes the handbook as a Sphinx project in `directory` (see buildMkdocsSite) and builds it as HTML. */
export async function buildSphinxSite(directory: string, rebuild = false): Promise<string> {
  const out = path.join(directory, "html");
  if (rebuild) {
    await run("sphinx-build", ["-q", "-b", "html", "source", out], { cwd: directory });
    return out;
  }
  await mkdir(path.join(directory, "source"), { recursive: true });
  for (const page of HANDBOOK) {
    await writeFile(path.join(directory, "source", `${page.name}.rst`), restPage(page));
  }
  await writeFile(
    path.join(directory, "source", "conf.py"),
    'project = "Armature"\nhtml_theme = "alabaster"\nextensions = []\n',
  );
  return buildSphinxSite(directory, true);
}

/** Whether a generator's command is installed. */
export async function hasCommand(command: string): Promise<boolean> {
  return run("sh", ["-c", `command -v ${command}`]).then(
    () => true,
    () => false,
  );
}
