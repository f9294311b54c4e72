/**
 * Headless plots for the experiments: Vega-Lite specs rendered to SVG by
 * Vega in Node (no browser, no canvas), and CSV writing.
 *
 * Vega and Vega-Lite are optional: the library does not need them, only
 * the experiments' SVG plots do (`npm install vega vega-lite`). Without
 * them the CSV files are still written and the plot step says what to
 * install.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PbdError } from '../src/core/errors.js';

export type Row = Record<string, number | string>;

/** A Vega-Lite specification (kept loose so that the types do not need vega-lite installed). */
export type PlotSpec = Record<string, unknown>;

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

interface Plotter {
  vega: typeof import('vega');
  vl: typeof import('vega-lite');
}
let plotter: Promise<Plotter> | null = null;

/** Loads Vega and Vega-Lite on first use, with a clear message when they are not installed. */
function loadPlotter(): Promise<Plotter> {
  plotter ??= Promise.all([import('vega'), import('vega-lite')]).then(
    ([vega, vl]) => ({ vega, vl }),
    (e: unknown) => {
      plotter = null;
      throw new PbdError(
        'experiment/no-plotter',
        'vega, vega-lite',
        `are not installed, and the experiments draw their SVG plots with them (${(e as Error).message.split('\n')[0]})`,
        'npm install vega vega-lite (the CSV files were written)',
      );
    },
  );
  return plotter;
}

/** Renders a Vega-Lite spec (data inline) to an SVG file. */
export async function writeSvg(outDir: string, name: string, spec: PlotSpec): Promise<string> {
  const { vega, vl } = await loadPlotter();
  const compiled = vl.compile({
    background: 'white',
    config: {
      legend: {
        labelLimit: 400,
        orient: 'bottom',
        direction: 'vertical',
        // lines in the legend, long enough to show their dash pattern
        symbolType: 'stroke',
        symbolSize: 500,
        symbolStrokeWidth: 2.5,
      },
      axis: { titleFontWeight: 'normal', titleFontSize: 12 },
    },
    ...spec,
  } as Parameters<typeof vl.compile>[0]).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  const file = join(outDir, `${name}.svg`);
  writeFileSync(file, svg);
  return file;
}

/** Distinct dash patterns for the series of a plot, in order (solid first). */
export const dashPatterns = [
  [1, 0],
  [7, 4],
  [2, 3],
  [10, 3, 2, 3],
  [4, 2],
];
/** Distinct colours (colour-blind safe, Okabe–Ito), in order. */
export const seriesColours = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9'];

/**
 * A line chart of y against x with one line per `series`: each series has
 * its own colour and dash pattern (so overlapping lines stay visible and
 * the plot reads in grey), and the legend shows both.
 */
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
): PlotSpec {
  const names = o.series ? [...new Set(rows.map((r) => String(r[o.series!])))] : [];
  const legend = (field: string) => ({
    field,
    type: 'nominal',
    title: null,
    sort: names,
  });
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: o.title,
    width: o.width ?? 420,
    height: o.height ?? 260,
    data: { values: rows },
    mark: { type: 'line', strokeWidth: 2, point: o.points === false ? false : { size: 28, filled: true } },
    encoding: {
      x: { field: o.x, type: 'quantitative', title: o.xTitle ?? o.x, scale: o.xLog ? { type: 'log' } : {} },
      y: {
        field: o.y,
        type: 'quantitative',
        title: o.yTitle ?? o.y,
        scale: o.yLog ? { type: 'log' } : { zero: false },
      },
      ...(o.series
        ? {
            color: {
              ...legend(o.series),
              scale: { range: seriesColours.slice(0, Math.max(1, names.length)) },
            },
            strokeDash: {
              ...legend(o.series),
              scale: { range: dashPatterns.slice(0, Math.max(1, names.length)) },
            },
          }
        : {}),
    },
  };
}

/** Renders `lineChart(rows, o)` to `name`.svg in outDir: the plot of most experiments. */
export async function writeLineChart(
  outDir: string,
  name: string,
  rows: Row[],
  o: Parameters<typeof lineChart>[1],
): Promise<string> {
  return writeSvg(outDir, name, lineChart(rows, o));
}

/** One figure of an experiment: `name`.csv of its rows and `name`.svg, the line chart of `plotted` (default: the rows). */
export interface Figure {
  name: string;
  rows: Row[];
  chart: Parameters<typeof lineChart>[1];
  /** The rows the chart draws where they differ from the CSV's (e.g. floored for a log axis). */
  plotted?: Row[];
}

/** The x axis of the experiments' time series: time in seconds, lines without points. */
export const timeAxis = { x: 'time', xTitle: 'time (s)', points: false };

/**
 * Writes an experiment's figures: every CSV first, then every chart (so that the CSV files are
 * written even where Vega is not installed); returns the files in that order.
 */
export async function writeFigures(outDir: string, figures: Figure[]): Promise<string[]> {
  const files = figures.map((f) => writeCsv(outDir, f.name, f.rows));
  for (const f of figures) files.push(await writeLineChart(outDir, f.name, f.plotted ?? f.rows, f.chart));
  return files;
}
