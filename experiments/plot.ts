/**
 * Headless plots for the experiments: Vega-Lite specs rendered to SVG by
 * Vega in Node (no browser, no canvas), and CSV writing.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vega from 'vega';
import * as vl from 'vega-lite';

export type Row = Record<string, number | string>;

/** Writes rows as CSV (header from the first row's keys). */
export function writeCsv(outDir: string, name: string, rows: Row[]): string {
  const keys = Object.keys(rows[0] ?? {});
  const esc = (v: number | string) =>
    typeof v === 'number' ? `${v}` : /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
  const text = `${[keys.join(','), ...rows.map((r) => keys.map((k) => esc(r[k] ?? '')).join(','))].join('\n')}\n`;
  const file = join(outDir, `${name}.csv`);
  writeFileSync(file, text);
  return file;
}

/** Renders a Vega-Lite spec (data inline) to an SVG file. */
export async function writeSvg(outDir: string, name: string, spec: vl.TopLevelSpec): Promise<string> {
  const compiled = vl.compile({
    background: 'white',
    config: { legend: { labelLimit: 400 } },
    ...spec,
  } as vl.TopLevelSpec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  const file = join(outDir, `${name}.svg`);
  writeFileSync(file, svg);
  return file;
}

/** A line chart of y against x with one line per `series`. */
export function lineChart(
  rows: Row[],
  o: {
    title: string;
    x: string;
    y: string;
    series?: string;
    xTitle?: string;
    yTitle?: string;
    xLog?: boolean;
    yLog?: boolean;
    width?: number;
    height?: number;
    points?: boolean;
  },
): vl.TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: o.title,
    width: o.width ?? 420,
    height: o.height ?? 260,
    data: { values: rows },
    mark: { type: 'line', point: o.points ?? true },
    encoding: {
      x: { field: o.x, type: 'quantitative', title: o.xTitle ?? o.x, scale: o.xLog ? { type: 'log' } : {} },
      y: {
        field: o.y,
        type: 'quantitative',
        title: o.yTitle ?? o.y,
        scale: o.yLog ? { type: 'log' } : { zero: false },
      },
      ...(o.series ? { color: { field: o.series, type: 'nominal', title: null } } : {}),
    },
  } as vl.TopLevelSpec;
}
