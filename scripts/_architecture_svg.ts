// docs/architecture.svg: the modules and the imports allowed between them,
// drawn from the same declaration the checks enforce (the `uses` of
// scripts/_packages.ts and `INTERNAL_USES`). scripts/check_modules.ts
// compares the checked-in picture with this drawing and redraws it with
// `--write`.
import type { PackageInfo } from "./_packages.ts";

const BOX_WIDTH = 196;
const BOX_HEIGHT = 58;
const GAP = 18;
const ROW_HEIGHT = 112;
const MARGIN = 20;
const TITLE_HEIGHT = 34;
const LEGEND_HEIGHT = 58;

/** One box of the picture. */
interface Node {
  folder: string;
  /** The npm package, or a description for internal/. */
  caption: string;
  uses: readonly string[];
  dashed: boolean;
  level: number;
  x: number;
  y: number;
}

function escapeXml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(
    ">",
    "&gt;",
  );
}

/**
 * The edges worth drawing: `from → to` unless another declared path leads
 * there too (a module that uses config and core gets one arrow, to config,
 * as config leads on to core). Each box lists all its `uses`.
 */
function drawnEdges(nodes: readonly Node[]): [Node, Node][] {
  const byFolder = new Map(nodes.map((node) => [node.folder, node]));
  const reaches = (from: string, to: string, skipDirect: boolean): boolean => {
    const node = byFolder.get(from);
    if (node === undefined) return false;
    return node.uses.some((use) =>
      (!skipDirect && use === to) || reaches(use, to, false)
    );
  };
  const edges: [Node, Node][] = [];
  for (const node of nodes) {
    for (const use of node.uses) {
      const target = byFolder.get(use);
      if (target !== undefined && !reaches(node.folder, use, true)) {
        edges.push([node, target]);
      }
    }
  }
  return edges;
}

/**
 * The SVG picture of the modules: one row per layer (core at the bottom),
 * an arrow from each module to the modules it uses (those implied by
 * another arrow left out), internal/ dashed.
 *
 * @param packages The packages with their `uses`, in dependency order.
 * @param internalUses The modules internal/ uses.
 * @returns The SVG text, ending with a newline.
 */
export function architectureSvg(
  packages: readonly PackageInfo[],
  internalUses: readonly string[],
): string {
  const nodes: Node[] = packages.map((info) => ({
    folder: info.folder,
    caption: info.name,
    uses: info.uses,
    dashed: false,
    level: 0,
    x: 0,
    y: 0,
  }));
  nodes.push({
    folder: "internal",
    caption: "shared files each package bundles",
    uses: internalUses,
    dashed: true,
    level: 0,
    x: 0,
    y: 0,
  });
  const byFolder = new Map(nodes.map((node) => [node.folder, node]));
  // A module's layer: one above the highest module it uses.
  const levelOf = (node: Node): number =>
    node.uses.reduce((level, use) => {
      const used = byFolder.get(use);
      return used === undefined ? level : Math.max(level, levelOf(used) + 1);
    }, 0);
  for (const node of nodes) node.level = levelOf(node);
  const top = Math.max(...nodes.map((node) => node.level));
  const rows = Array.from(
    { length: top + 1 },
    (_, level) => nodes.filter((node) => node.level === level),
  );
  const widest = Math.max(...rows.map((row) => row.length));
  const width = MARGIN * 2 + widest * BOX_WIDTH + (widest - 1) * GAP;
  const height = TITLE_HEIGHT + MARGIN + (top + 1) * ROW_HEIGHT +
    LEGEND_HEIGHT;
  for (const row of rows) {
    const rowWidth = row.length * BOX_WIDTH + (row.length - 1) * GAP;
    row.forEach((node, index) => {
      node.x = (width - rowWidth) / 2 + index * (BOX_WIDTH + GAP);
      node.y = TITLE_HEIGHT + MARGIN + (top - node.level) * ROW_HEIGHT;
    });
  }
  const lines: string[] = [
    // Drawn, not written: deno fmt leaves it as drawn, so the check can
    // compare it with a fresh drawing byte for byte.
    "<!-- deno-fmt-ignore-file -->",
    "<!-- Drawn from scripts/_packages.ts by scripts/check_modules.ts: not edited by hand -->",
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif">`,
    `  <title>Kit's modules and the imports allowed between them</title>`,
    `  <defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#57606a"/></marker></defs>`,
    `  <rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `  <text x="${MARGIN}" y="${
      MARGIN + 6
    }" font-size="15" font-weight="bold" fill="#1f2328">Kit's modules: an arrow points to a module whose mod.ts the other may import</text>`,
  ];
  for (const [from, to] of drawnEdges(nodes)) {
    lines.push(
      `  <line x1="${from.x + BOX_WIDTH / 2}" y1="${from.y + BOX_HEIGHT}" x2="${
        to.x + BOX_WIDTH / 2
      }" y2="${to.y}" stroke="#57606a" stroke-width="1.5" marker-end="url(#arrow)"/>`,
    );
  }
  for (const node of nodes) {
    const center = node.x + BOX_WIDTH / 2;
    lines.push(
      `  <rect x="${node.x}" y="${node.y}" width="${BOX_WIDTH}" height="${BOX_HEIGHT}" rx="6" fill="${
        node.dashed ? "#f6f8fa" : "#ddf4ff"
      }" stroke="#1f2328" stroke-width="1.2"${
        node.dashed ? ' stroke-dasharray="5 3"' : ""
      }/>`,
      `  <text x="${center}" y="${
        node.y + 19
      }" font-size="14" font-weight="bold" text-anchor="middle" fill="#1f2328">${node.folder}/</text>`,
      `  <text x="${center}" y="${
        node.y + 35
      }" font-size="10.5" text-anchor="middle" fill="#1f2328">${
        escapeXml(node.caption)
      }</text>`,
      `  <text x="${center}" y="${
        node.y + 50
      }" font-size="10.5" text-anchor="middle" fill="#57606a">uses: ${
        node.uses.length === 0 ? "nothing else" : node.uses.join(", ")
      }</text>`,
    );
  }
  const legendY = TITLE_HEIGHT + MARGIN + (top + 1) * ROW_HEIGHT - 22;
  const legend = [
    `Each module may import its own files, the mod.ts of the modules its "uses" lists (scripts/_packages.ts),`,
    `and internal/ (dashed) unless internal/ uses it. Arrows implied by others are left out.`,
    `Drawn by: deno run -A --config deno.dev.json scripts/check_modules.ts --write`,
  ];
  legend.forEach((text, index) => {
    lines.push(
      `  <text x="${MARGIN}" y="${
        legendY + index * 17
      }" font-size="12" fill="#57606a">${escapeXml(text)}</text>`,
    );
  });
  lines.push("</svg>");
  return lines.join("\n") + "\n";
}
