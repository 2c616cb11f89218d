/** A one-line progress bar on an interactive terminal; silent when output is piped or in CI. */
export function createProgressBar(
  stream: NodeJS.WriteStream = process.stderr,
  label = "Ingesting",
  now: () => number = Date.now,
) {
  const interactive = Boolean(stream.isTTY) && !process.env.CI;
  let lastDraw = 0;
  return {
    update({ done, total, file }: { done: number; total: number; file: string }) {
      if (!interactive) return;
      const drawnAt = now();
      if (done < total && drawnAt - lastDraw < 50) return;
      lastDraw = drawnAt;
      const width = 28;
      const filled = total === 0 ? width : Math.round((done / total) * width);
      const bar = `${"█".repeat(filled)}${"░".repeat(width - filled)}`;
      const name = file.length > 40 ? `…${file.slice(-39)}` : file;
      stream.write(`\r\x1b[2K${label} ${bar} ${done}/${total} ${name}`);
    },
    finish() {
      if (interactive) stream.write("\r\x1b[2K");
    },
  };
}
