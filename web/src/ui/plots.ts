/**
 * Live plots (uPlot) of the last seconds of simulated time: kinetic energy,
 * the largest constraint violation and the physics time per step.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

interface Series {
  key: 'kineticEnergy' | 'maxViolation' | 'stepMs';
  title: string;
  color: string;
}

const series: Series[] = [
  { key: 'kineticEnergy', title: 'kinetic energy (J)', color: '#d9774b' },
  { key: 'maxViolation', title: 'largest constraint violation', color: '#4f8fcb' },
  { key: 'stepMs', title: 'physics ms / step', color: '#6cae75' },
];

export interface Sample {
  time: number;
  kineticEnergy: number;
  maxViolation: number;
  stepMs: number;
}

export class Plots {
  /** Seconds of simulated time shown. */
  window = 10;
  private readonly t: number[] = [];
  private readonly values: number[][] = series.map(() => []);
  private readonly charts: uPlot[] = [];
  private dirty = false;
  private lastDraw = 0;

  constructor(container: HTMLElement, width = 250, height = 56) {
    for (const s of series) {
      const el = document.createElement('div');
      el.className = 'plot';
      el.dataset.series = s.key;
      container.append(el);
      const chart = new uPlot(
        {
          title: s.title,
          width,
          height,
          legend: { show: false },
          cursor: { show: false },
          scales: {
            x: { time: false },
            y: { range: (_u, lo, hi) => [Math.min(0, lo), hi > lo ? hi * 1.1 : lo + 1] },
          },
          axes: [
            {
              size: 18,
              font: '10px system-ui',
              ticks: { size: 3 },
              stroke: '#667',
              grid: { stroke: '#0001' },
            },
            {
              size: 42,
              space: 14,
              font: '10px system-ui',
              ticks: { size: 3 },
              stroke: '#667',
              grid: { stroke: '#0001' },
              values: (_u, vals) => vals.map(formatTick),
            },
          ],
          series: [{}, { stroke: s.color, width: 1.5, fill: `${s.color}22`, points: { show: false } }],
        },
        [[], []],
        el,
      );
      this.charts.push(chart);
    }
  }

  push(s: Sample): void {
    const t = this.t;
    if (t.length && s.time < t[t.length - 1]) this.clear(); // reset
    t.push(s.time);
    series.forEach((def, k) => {
      this.values[k].push(s[def.key]);
    });
    let drop = 0;
    while (drop < t.length && t[drop] < s.time - this.window) drop++;
    if (drop > 0) {
      t.splice(0, drop);
      for (const v of this.values) v.splice(0, drop);
    }
    this.dirty = true;
  }

  clear(): void {
    this.t.length = 0;
    for (const v of this.values) v.length = 0;
    this.dirty = true;
  }

  /** Redraws at most ten times a second. */
  draw(now: number): void {
    if (!this.dirty || now - this.lastDraw < 100) return;
    this.lastDraw = now;
    this.dirty = false;
    this.charts.forEach((c, k) => {
      c.setData([this.t, this.values[k]]);
      const v = this.values[k];
      const title = c.root.querySelector('.u-title');
      if (title) title.textContent = `${series[k].title}: ${v.length ? formatValue(v[v.length - 1]) : '–'}`;
    });
  }

  dispose(): void {
    for (const c of this.charts) c.destroy();
  }
}

function formatValue(v: number): string {
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
