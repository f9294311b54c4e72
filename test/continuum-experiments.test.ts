import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyticStrain, beamStrain } from '../experiments/fig5.js';
import { runExperiment } from '../experiments/index.js';
import { lineChart, writeCsv, writeSvg } from '../experiments/plot.js';

describe('002 Figure 5: a beam under a 100 N load', () => {
  it('XPBD reaches the analytic static strain of a StVK bar; it scales with 1/k', () => {
    const soft = beamStrain(1e5, 5, 'xpbd');
    expect(soft / analyticStrain(1e5)).toBeGreaterThan(0.93);
    expect(soft / analyticStrain(1e5)).toBeLessThan(1.05);
    const stiff = beamStrain(5e5, 5, 'xpbd');
    expect(soft / stiff).toBeGreaterThan(3.5);
  });

  it("PBD with C = E (eq. 3): the strain falls with the iteration count and Young's modulus cancels", () => {
    const one = beamStrain(1e5, 1, 'pbd');
    const five = beamStrain(1e5, 5, 'pbd');
    expect(five).toBeLessThan(one / 3);
    expect(beamStrain(1e6, 5, 'pbd')).toBeCloseTo(five, 6);
  });
});

describe('experiment plumbing', () => {
  it('writes CSV and an SVG plot headlessly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pbdkit-exp-'));
    const rows = [
      { x: 1, y: 2, s: 'a' },
      { x: 2, y: 3, s: 'a' },
    ];
    const csv = writeCsv(dir, 't', rows);
    expect(readFileSync(csv, 'utf8')).toBe('x,y,s\n1,2,a\n2,3,a\n');
    const svg = await writeSvg(dir, 't', lineChart(rows, { title: 'T', x: 'x', y: 'y', series: 's' }));
    expect(readFileSync(svg, 'utf8')).toMatch(/^<svg[^>]*>.*<\/svg>$/s);
  });

  it('an unknown experiment names the known ones', async () => {
    await expect(runExperiment('fig99', tmpdir())).rejects.toThrow(/fig4, fig5, fig6, fig7/);
  });
});
