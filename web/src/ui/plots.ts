/**
 * Live plots (uPlot) of the last seconds of simulated time: kinetic energy,
 * the constraint violations of each kind grouped by unit (metres, radians,
 * relative …: one plot per unit, one line per kind, so quantities of
 * different units never share an axis), and the physics time per step
 * against the step length dt (above it the scene runs slower than real
 * time). Every axis has a title with its unit.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Sample {
  time: number;
  kineticEnergy: number;
  violations: { kind: string; unit: string; value: number }[];
  stepMs: number;
  dtMs: number;
}

interface Chart {
  title: string;
  unit: string;
  /** Series names and how to read each from a sample. */
  series: { name: string; color: string; dash?: number[]; read(s: Sample): number }[];
  values: number[][];
  plot: uPlot | null;
  el: HTMLElement;
}

const colours = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9'];
/** How each violation unit is titled and shown. */
const unitTitles: Record<string, { title: string; axis: string; scale: number }> = {
  m: { title: 'violation, lengths', axis: 'm', scale: 1 },
  rad: { title: 'violation, angles', axis: 'rad', scale: 1 },
  'm²': { title: 'violation, areas', axis: 'm²', scale: 1 },
  'm³': { title: 'violation, volumes', axis: 'm³', scale: 1 },
  relative: { title: 'violation, relative to rest', axis: '%', scale: 100 },
  '': { title: 'violation', axis: 'constraint units', scale: 1 },
};

export class Plots {
  /** Seconds of simulated time shown. */
  window = 10;
  private readonly container: HTMLElement;
  private readonly t: number[] = [];
  private charts: Chart[] = [];
  private kindsKey = '';
  private dirty = false;
  private lastDraw = 0;
  private readonly width: number;
  private readonly height: number;

  constructor(container: HTMLElement, width = 250, height = 84) {
    this.container = container;
    this.width = width;
    this.height = height;
  }

  /** The charts for a set of constraint kinds (rebuilt when the kinds change). */
  private build(violations: Sample['violations']): void {
    for (const c of this.charts) c.plot?.destroy();
    this.container.replaceChildren();
    const charts: Omit<Chart, 'values' | 'plot' | 'el'>[] = [
      {
        title: 'kinetic energy',
        unit: 'J',
        series: [{ name: 'kinetic energy', color: colours[0], read: (s) => s.kineticEnergy }],
      },
    ];
    const units = [...new Set(violations.map((v) => v.unit))];
    for (const unit of units) {
      const u = unitTitles[unit] ?? { title: `violation (${unit})`, axis: unit, scale: 1 };
      const kinds = violations.filter((v) => v.unit === unit).map((v) => v.kind);
      charts.push({
        title: u.title,
        unit: u.axis,
        series: kinds.map((kind, k) => ({
          name: kind,
          color: colours[(k + 1) % colours.length],
          dash: k % 2 ? [5, 3] : undefined,
          read: (s) => u.scale * (s.violations.find((v) => v.kind === kind)?.value ?? 0),
        })),
      });
    }
    charts.push({
      title: 'physics time per step',
      unit: 'ms',
      series: [
        { name: 'physics', color: colours[2], read: (s) => s.stepMs },
        { name: 'dt (real time)', color: '#8a939e', dash: [4, 3], read: (s) => s.dtMs },
      ],
    });
    this.charts = charts.map((c) => {
      const el = document.createElement('div');
      el.className = 'plot';
      el.dataset.unit = c.unit;
      el.dataset.title = c.title;
      this.container.append(el);
      const plot = new uPlot(
        {
          title: c.title,
          width: this.width,
          height: this.height + (c.series.length > 1 ? 14 * Math.ceil(c.series.length / 2) : 0),
          legend: { show: c.series.length > 1, live: false },
          cursor: { show: false },
          scales: {
            x: { time: false },
            y: { range: (_u, lo, hi) => [Math.min(0, lo), hi > lo ? hi * 1.1 : lo + 1] },
          },
          axes: [
            {
              label: 'simulated time (s)',
              labelSize: 14,
              labelFont: '10px system-ui',
              size: 16,
              font: '10px system-ui',
              ticks: { size: 3 },
              stroke: '#667',
              grid: { stroke: '#0001' },
            },
            {
              label: c.unit,
              labelSize: 14,
              labelFont: '10px system-ui',
              size: 40,
              space: 14,
              font: '10px system-ui',
              ticks: { size: 3 },
              stroke: '#667',
              grid: { stroke: '#0001' },
              values: (_u, vals) => vals.map(formatTick),
            },
          ],
          series: [
            {},
            ...c.series.map((s) => ({
              label: s.name,
              stroke: s.color,
              width: 1.5,
              dash: s.dash,
              points: { show: false },
            })),
          ],
        },
        [[], ...c.series.map(() => [])],
        el,
      );
      return { ...c, values: c.series.map(() => []), plot, el };
    });
  }

  push(s: Sample): void {
    const key = s.violations.map((v) => `${v.kind}:${v.unit}`).join(',');
    if (key !== this.kindsKey) {
      this.kindsKey = key;
      this.build(s.violations);
      this.t.length = 0;
    }
    const t = this.t;
    if (t.length && s.time < t[t.length - 1]) this.clear(); // reset
    t.push(s.time);
    for (const c of this.charts) {
      c.series.forEach((def, k) => {
        c.values[k].push(def.read(s));
      });
    }
    let drop = 0;
    while (drop < t.length && t[drop] < s.time - this.window) drop++;
    if (drop > 0) {
      t.splice(0, drop);
      for (const c of this.charts) for (const v of c.values) v.splice(0, drop);
    }
    this.dirty = true;
  }

  clear(): void {
    this.t.length = 0;
    for (const c of this.charts) for (const v of c.values) v.length = 0;
    this.dirty = true;
  }

  /** Redraws at most ten times a second. */
  draw(now: number): void {
    if (!this.dirty || now - this.lastDraw < 100) return;
    this.lastDraw = now;
    this.dirty = false;
    for (const c of this.charts) {
      c.plot?.setData([this.t, ...c.values]);
      const title = c.plot?.root.querySelector('.u-title');
      const v = c.values[0];
      if (title && c.series.length === 1) {
        title.textContent = `${c.title}: ${v.length ? `${formatValue(v[v.length - 1])} ${c.unit}` : '–'}`;
      }
    }
  }

  /** The charts' titles, the axis titles as drawn (uPlot draws them on its canvas) and series (for the tests). */
  describe(): { title: string; unit: string; axes: string[]; series: string[] }[] {
    return this.charts.map((c) => ({
      title: c.title,
      unit: c.unit,
      axes: (c.plot?.axes ?? []).map((a) => String(a.label ?? '')),
      series: c.series.map((s) => s.name),
    }));
  }

  dispose(): void {
    for (const c of this.charts) c.plot?.destroy();
  }
}

export function formatValue(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  return a >= 1e4 || a < 1e-3 ? v.toExponential(2) : v.toPrecision(3);
}

function formatTick(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1000 || a < 0.01) return v.toExponential(0);
  return String(+v.toPrecision(3));
}
