// Markdown as `deno fmt` writes it, so a generated README stays unchanged by
// the user's first format: paragraphs filled to 80 columns (a code span or a
// link is one word) and tables with padded columns.

const WIDTH = 80;

/**
 * Fills a paragraph to 80 columns.
 *
 * @param text The paragraph, on one line or several.
 * @returns The filled paragraph, without a final newline.
 */
export function paragraph(text: string): string {
  const words: string[] = [];
  // A code span keeps its spaces: it is never broken across lines.
  for (
    const match of text.replace(/\s+/g, " ").trim().matchAll(
      /(?:`[^`]*`|[^\s`])+/g,
    )
  ) {
    words.push(match[0]);
  }
  const lines: string[] = [];
  let line = "";
  for (const word of words) {
    if (line === "") line = word;
    else if (line.length + 1 + word.length <= WIDTH) line += " " + word;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== "") lines.push(line);
  return lines.join("\n");
}

/**
 * A table with every column padded to its widest cell.
 *
 * @param rows The header row first, then the body rows.
 * @returns The table, without a final newline.
 */
export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0].map((_, column) =>
    Math.max(3, ...rows.map((row) => row[column].length))
  );
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(" | ")} |`;
  return [
    line(rows[0]),
    line(widths.map((width) => "-".repeat(width))),
    ...rows.slice(1).map(line),
  ].join("\n");
}
