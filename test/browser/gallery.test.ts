/**
 * The gallery in a real browser (Debian's Chromium): the index, dropping
 * scene files, dragging cloth with the mouse, the parameter panel, the
 * keyboard, render meshes, and the main-thread fallback without
 * cross-origin isolation.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { artifacts, type Browser, launch, openScene, state } from './browser.js';

const base = inject('galleryUrl');
const sceneDir = new URL('../../scenes/', import.meta.url);
const sceneFiles = readdirSync(sceneDir)
  .filter((f) => f.endsWith('.json'))
  .sort();

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launch();
  page = await browser.newPage();
});

afterAll(async () => {
  await browser?.close();
});

/** Drops files on the page as a visitor would (a DataTransfer on a drop event). */
async function drop(files: { name: string; text: string }[]): Promise<void> {
  await page.evaluate((list) => {
    const dt = new DataTransfer();
    for (const f of list) dt.items.add(new File([f.text], f.name, { type: 'application/json' }));
    document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, files);
}

/** Sets the window's size for the running test; the usual 1100 × 700 comes back after it. */
async function resizeForThisTest(width: number, height: number): Promise<void> {
  await page.setViewportSize({ width, height });
  onTestFinished(() => page.setViewportSize({ width: 1100, height: 700 }));
}

/** Opens the gallery's index page and waits until it is up. */
async function openIndex(): Promise<void> {
  await page.goto(base);
  await page.waitForFunction(() => window.pbdGallery?.state().page === 'index');
}

const meanY = (xs: number[]) => {
  let s = 0;
  for (let k = 1; k < xs.length; k += 3) s += xs[k];
  return s / (xs.length / 3);
};

describe('the gallery in Chromium', () => {
  it('the index lists every scene file, grouped by family, with thumbnails and no console errors', async () => {
    await page.goto(base);
    await page.waitForFunction(
      (n) => document.querySelectorAll('.scene-card').length === n,
      sceneFiles.length,
    );
    const cards = await page.$$eval('.scene-card', (els) =>
      els.map((e) => ({
        scene: (e as HTMLElement).dataset.scene,
        family: (e.closest('.family') as HTMLElement).dataset.family,
        title: e.querySelector('h3')?.textContent,
        figure: e.querySelector('.figure')?.textContent ?? '',
        href: e.getAttribute('href'),
      })),
    );
    const expected = sceneFiles.map((f) => {
      const json = JSON.parse(readFileSync(new URL(f, sceneDir), 'utf8'));
      const scene = f.replace(/\.json$/, '');
      return {
        scene,
        family: json.family,
        title: json.title,
        figure: json.figure ?? '',
        href: `#scene=${scene}`,
      };
    });
    expect([...cards].sort((a, b) => a.scene!.localeCompare(b.scene!))).toEqual(expected);
    // every card shows its thumbnail at once: committed images (npm run thumbnails), no simulation
    expect(await page.locator('.thumb.missing').count()).toBe(0);
    await page.waitForFunction(
      (n) =>
        [...document.querySelectorAll<HTMLImageElement>('.thumb img')].filter(
          (i) => i.complete && i.naturalWidth > 0,
        ).length === n,
      sceneFiles.length,
      { timeout: 20_000 },
    );
    // WebP files (the smallest are inlined in the page by the build)
    const sources = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLImageElement>('.thumb img')].map((i) => i.src),
    );
    expect(sources.filter((src) => !/\.webp$|^data:image\/webp;/.test(src))).toEqual([]);
    // nothing was simulated to draw them
    const workers = await page.evaluate(
      () => performance.getEntriesByType('resource').filter((e) => /worker/.test(e.name)).length,
    );
    expect(workers).toBe(0);
    await page.screenshot({ path: new URL('index.png', artifacts).pathname });
    expect(browser.errors).toEqual([]);
  });

  it('the layout: the scene fills the window; panel and readout open in a column on a wide window, closed bars on a narrow one', async () => {
    await resizeForThisTest(1280, 800);
    await openScene(page, base, 'cloth-drape');
    const layout = () =>
      page.evaluate(() => {
        const rect = (sel: string) => {
          const r = document.querySelector(sel)!.getBoundingClientRect();
          return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, area: r.width * r.height };
        };
        return {
          canvas: rect('.viewport canvas'),
          panel: rect('.panel-host'),
          readout: rect('details.stats'),
          bar: rect('.scene-bar'),
          panelOpen: !document.querySelector('.panel-host .lil-gui')!.classList.contains('lil-closed'),
          readoutOpen: (document.querySelector('details.stats') as HTMLDetailsElement).open,
        };
      });
    const wide = await layout();
    expect(wide.canvas).toMatchObject({ left: 0, top: 0, right: 1280, bottom: 800 });
    expect(wide.panelOpen).toBe(true);
    expect(wide.readoutOpen).toBe(true);
    // one column on the right: both within its 290 px
    for (const r of [wide.panel, wide.readout]) expect(r.left).toBeGreaterThan(1280 - 290);
    await page.screenshot({ path: new URL('layout-wide.png', artifacts).pathname });
    // a narrow window (a phone): both close, and the panels cover little of the scene
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(async () => (await layout()).panelOpen).toBe(false);
    const narrow = await layout();
    expect(narrow.readoutOpen).toBe(false);
    expect(narrow.canvas).toMatchObject({ left: 0, top: 0, right: 390, bottom: 844 });
    const covered = narrow.panel.area + narrow.readout.area + narrow.bar.area;
    expect(covered / (390 * 844)).toBeLessThan(0.2);
    await page.screenshot({ path: new URL('layout-narrow.png', artifacts).pathname });
    // opening the readout shows the real-time figure and violations in their own units
    await page.locator('details.stats > summary').click();
    await expect
      .poll(() => page.locator('[data-testid=readout]').textContent())
      .toMatch(/physics alone: [\d.]+×/);
    const readout = (await page.locator('[data-testid=readout]').textContent())!;
    expect(readout).toMatch(/violation: stretch\s*[\d.e+-]+ (mm|m)/);
    expect(readout).toMatch(/violation: dihedral-bending\s*[\d.e+-]+ rad/);
    // plots: one per unit, every axis titled with its unit
    const plots = await page.evaluate(() => window.pbdGallery.plots());
    expect(plots.map((p) => p.unit)).toEqual(['J', 'm', 'rad', 'ms']);
    expect(plots.find((p) => p.unit === 'm')!.series).toEqual(
      expect.arrayContaining(['stretch', 'collider-contact']),
    );
    for (const p of plots) expect(p.axes, p.title).toEqual(['simulated time (s)', p.unit]);
    expect(browser.errors).toEqual([]);
  });

  it('a figure reference links to the sources page, which names the paper, its authors and year', async () => {
    await openScene(page, base, 'cloth-drape');
    const link = page.locator('.scene-bar .figure a').first();
    expect(await link.textContent()).toBe('003');
    await link.click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#sources/003');
    const entry = page.locator('#source-003');
    await entry.waitFor();
    const text = (await entry.textContent())!;
    expect(text).toContain('Position Based Dynamics');
    expect(text).toContain('Müller');
    expect(text).toContain('2007');
    expect(await entry.evaluate((e) => e.classList.contains('focus'))).toBe(true);
    // every paper is there, and lists the scenes that cite it
    expect(await page.locator('.source').count()).toBe(5);
    expect(await entry.locator('.citing a', { hasText: 'Cloth draped over a sphere' }).count()).toBe(1);
    await page.screenshot({ path: new URL('sources.png', artifacts).pathname });
    expect(browser.errors).toEqual([]);
  });

  it('fluids are drawn as a continuous surface where the balls were (a smooth picture over the same pixels)', async () => {
    // a small window: software rendering of five passes is slow on a busy machine
    await resizeForThisTest(640, 400);
    await openScene(page, base, 'fluids-dam-break');
    await page.keyboard.press(' ');
    await page.evaluate(() => window.pbdGallery.runUntil(1));
    await page.evaluate(() => window.pbdGallery.setPixelRatio(1));
    const balls = await page.evaluate(() => window.pbdGallery.surfacePixels(false));
    const surface = await page.evaluate(() => window.pbdGallery.surfacePixels(true));
    // the surface covers (about) the pixels the balls covered
    expect(balls.bodyPixels).toBeGreaterThan(2000);
    expect(surface.bodyPixels).toBeGreaterThan(0.7 * balls.bodyPixels);
    // and is far smoother inside: no per-ball highlight and rim
    expect(surface.roughness).toBeLessThan(0.5 * balls.roughness);
    await page.screenshot({ path: new URL('fluid-surface.png', artifacts).pathname });
    expect(browser.errors).toEqual([]);
  });

  it('a dropped invalid scene file shows its errors, with their JSON paths, in the page', async () => {
    await openIndex();
    const bad = {
      title: 'A broken scene',
      family: 'cloth',
      world: { substep: 4 },
      bodies: [{ type: 'cloth', mesh: { grid: { width: 1, height: 1, cols: 1.5, rows: 4 } } }],
    };
    await drop([{ name: 'broken.json', text: JSON.stringify(bad, null, 2) }]);
    const panel = page.locator('[data-testid=scene-error]');
    await panel.waitFor();
    const paths = await panel.locator('code.path').allTextContents();
    expect(paths.sort()).toEqual(['bodies[0].mesh', 'world']);
    const text = await panel.textContent();
    expect(text).toContain('broken.json');
    expect(text).toMatch(/unknown option "substep"/);
    await page.screenshot({ path: new URL('dropped-invalid.png', artifacts).pathname });
    // a JSON syntax error names the line and column
    await drop([{ name: 'syntax.json', text: '{\n  "title": NaN\n}' }]);
    await expect.poll(() => panel.textContent()).toMatch(/syntax\.json:2:12/);
    expect(browser.errors).toEqual([]);
  });

  it('a dropped scene too large to simulate shows the field, the amount and the limit (issue 21)', async () => {
    await openIndex();
    const big = {
      title: 'Too large',
      family: 'cloth',
      bodies: [{ type: 'cloth', mesh: { grid: { width: 1, height: 1, cols: 4096, rows: 4096 } } }],
    };
    await drop([{ name: 'big.json', text: JSON.stringify(big) }]);
    const panel = page.locator('[data-testid=scene-error]');
    await panel.waitFor({ timeout: 60_000 });
    await expect.poll(() => panel.textContent()).toMatch(/bodies\[0\]\.mesh\.grid/);
    const text = await panel.textContent();
    expect(text).toMatch(/16,777,216 particles, more than the limit of 2,000,000/);
    // and 100,000 levels of nesting: a path, not a stack overflow
    const deep = JSON.stringify({ ...big, description: '@' }).replace(
      '"@"',
      `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
    );
    await drop([{ name: 'deep.json', text: deep }]);
    await expect.poll(() => panel.textContent()).toMatch(/nested more than 64 levels/);
    // within the memory limits but minutes per step: collision-barrel's cloth 1,000 times (the fuzz's
    // #286), refused by loadScene in the page's worker with the same error as in Node (test/scene-hostile)
    const barrel = JSON.parse(
      readFileSync(new URL('../../scenes/collision-barrel.json', import.meta.url), 'utf8'),
    );
    const barrels = { ...barrel, bodies: Array.from({ length: 1000 }, () => barrel.bodies[0]) };
    await drop([{ name: 'barrels.json', text: JSON.stringify(barrels) }]);
    await expect.poll(() => panel.textContent(), { timeout: 60_000 }).toMatch(/barrels\.json/);
    const slow = await panel.textContent();
    expect(slow).toMatch(/1,000 bodies, 1,364,000 particles/);
    expect(slow).toMatch(/work units per step .*more than the limit of 100,000,000/);
    expect(slow).toMatch(/--max-step-work/);
    expect(await panel.locator('code.path').allTextContents()).toEqual(['barrels.json: bodies']);
    expect(browser.errors).toEqual([]);
  });

  it('a body that gains kinetic energy from nowhere puts a visible warning in the readout', async () => {
    // a forward sweep pumping energy into stiff bending (test/fixtures/cli/energy-pump.json)
    const pump = readFileSync(new URL('../fixtures/cli/energy-pump.json', import.meta.url), 'utf8');
    await openIndex();
    await drop([{ name: 'pump.json', text: pump }]);
    await page.waitForFunction(
      () => window.pbdGallery.state().page === 'scene' && window.pbdGallery.state().ready,
    );
    await page.evaluate(() => window.pbdGallery.runUntil(1));
    await expect
      .poll(async () => (await state(page)).energyWarning, { timeout: 30_000 })
      .toMatch(/body 'pumped' gained kinetic energy from nowhere/);
    const warning = page.locator('[data-testid=readout] .warn');
    await expect.poll(async () => warning.isVisible(), { timeout: 20_000 }).toBe(true);
    expect(await warning.textContent()).toMatch(
      /⚠ energy: body 'pumped' gained kinetic energy from nowhere at t = /,
    );
    expect((await state(page)).speedClamps).toBe(0);
    await page.screenshot({ path: new URL('energy-warning.png', artifacts).pathname });
  });

  it('dragging a cloth vertex with the mouse moves it toward the cursor', async () => {
    // a valid scene dropped on the page runs: a cloth hanging from its top edge
    const cloth = {
      title: 'Hanging cloth',
      family: 'cloth',
      camera: { position: [0, 1.1, 2.6], target: [0, 1.1, 0] },
      world: { damping: 1 },
      bodies: [
        {
          type: 'cloth',
          name: 'sheet',
          mesh: { grid: { width: 1, height: 1, cols: 20, rows: 20, plane: 'xy' } },
          transform: { translate: [0, 1.6, 0] },
          density: 0.2,
          bend: { compliance: 0.1 },
          pins: [{ rows: [0] }],
        },
      ],
    };
    await openIndex();
    await drop([{ name: 'hanging.json', text: JSON.stringify(cloth) }]);
    await page.waitForFunction(
      () => window.pbdGallery.state().page === 'scene' && window.pbdGallery.state().ready,
    );
    expect(page.url()).toContain('#scene=dropped%3Ahanging');
    await page.evaluate(() => window.pbdGallery.runUntil(1));
    const i = 17 * 20 + 10; // near the bottom, in the middle
    expect(await page.evaluate((i) => window.pbdGallery.invMass(i), i)).toBeGreaterThan(0);
    const p0 = await page.evaluate((i) => window.pbdGallery.project(i), i);
    const cursor = { x: p0.x + 160, y: p0.y - 140 };
    await page.mouse.move(p0.x, p0.y);
    await page.mouse.down();
    await expect
      .poll(
        async () => {
          const s = await state(page);
          return s.grabbed === i ? i : `${s.grabbed} (${s.lastPick})`;
        },
        { timeout: 20_000 },
      )
      .toBe(i);
    await page.mouse.move(cursor.x, cursor.y, { steps: 12 });
    const screenDistance = async () => {
      const p = await page.evaluate((i) => window.pbdGallery.project(i), i);
      return Math.hypot(p.x - cursor.x, p.y - cursor.y);
    };
    const d0 = Math.hypot(p0.x - cursor.x, p0.y - cursor.y);
    await expect.poll(screenDistance, { timeout: 60_000, interval: 250 }).toBeLessThan(0.15 * d0);
    // in the world: the particle sits near the drag target under the cursor
    const target = (await page.evaluate(() => window.pbdGallery.dragTarget()))!;
    const x = await page.evaluate((i) => window.pbdGallery.particle(i), i);
    expect(Math.hypot(x[0] - target[0], x[1] - target[1], x[2] - target[2])).toBeLessThan(0.05);
    await page.screenshot({ path: new URL('drag.png', artifacts).pathname });
    await page.mouse.up();
    await expect.poll(async () => (await state(page)).grabbed, { timeout: 20_000 }).toBe(-1);
    expect(browser.errors).toEqual([]);
  });

  // hair without a radius as lines; strands with one (rods, threads) as tubes (BodyTubes)
  it.each([
    ['lines', 0],
    ['tubes of their radius', 0.008],
  ])('strands are drawn as %s that the mouse picks and drags', async (_drawn, radius) => {
    // a fringe of ten DFTL strands hanging from a bar
    const strands = Array.from({ length: 10 }, (_, s) =>
      Array.from({ length: 11 }, (_, j) => [-0.225 + 0.05 * s, 1.6 - 0.05 * j, 0]),
    );
    const fringe = {
      title: 'Fringe',
      family: 'strands',
      camera: { position: [0, 1.35, 1.2], target: [0, 1.35, 0] },
      world: { damping: 1 },
      bodies: [{ type: 'strands', name: 'fringe', strands, radius, ftl: { damping: 0.9 } }],
    };
    await openIndex();
    await drop([{ name: 'fringe.json', text: JSON.stringify(fringe) }]);
    await page.waitForFunction(
      () => window.pbdGallery.state().page === 'scene' && window.pbdGallery.state().ready,
    );
    await page.evaluate(() => window.pbdGallery.runUntil(0.5));
    // press on the middle of a segment (strand 5, between particles 7 and 8): the line is hit, not a particle
    const a = 5 * 11 + 7,
      b = a + 1;
    const pa = await page.evaluate((i) => window.pbdGallery.project(i), a);
    const pb = await page.evaluate((i) => window.pbdGallery.project(i), b);
    const press = { x: (pa.x + pb.x) / 2, y: (pa.y + pb.y) / 2 };
    await page.mouse.move(press.x, press.y);
    await page.mouse.down();
    await expect
      .poll(async () => {
        const st = await state(page);
        return st.grabbed === a || st.grabbed === b ? 'segment' : `${st.grabbed} (${st.lastPick})`;
      })
      .toBe('segment');
    const grabbed = (await state(page)).grabbed ?? -1;
    const p0 = await page.evaluate((i) => window.pbdGallery.project(i), grabbed);
    const cursor = { x: press.x + 110, y: press.y };
    await page.mouse.move(cursor.x, cursor.y, { steps: 10 });
    const d0 = Math.hypot(p0.x - cursor.x, p0.y - cursor.y);
    const screenDistance = async () => {
      const p = await page.evaluate((i) => window.pbdGallery.project(i), grabbed);
      return Math.hypot(p.x - cursor.x, p.y - cursor.y);
    };
    // the strand swings toward the cursor (it cannot stretch to reach it exactly)
    await expect.poll(screenDistance, { timeout: 60_000, interval: 250 }).toBeLessThan(0.3 * d0);
    await page.screenshot({
      path: new URL(`drag-strands-${radius > 0 ? 'tubes' : 'lines'}.png`, artifacts).pathname,
    });
    await page.mouse.up();
    await expect.poll(async () => (await state(page)).grabbed, { timeout: 20_000 }).toBe(-1);
    expect(browser.errors).toEqual([]);
  });

  it('changing gravity in the panel changes the simulation: the cloth falls 30/9.81 times as far', async () => {
    await openScene(page, base, 'cloth-drape');
    expect((await state(page)).mode).toBe('worker');
    await page.keyboard.press(' ');
    await expect.poll(async () => (await state(page)).paused).toBe(true);
    const fallAfter = async (steps: number) => {
      await page.keyboard.press('r');
      // the reset is done (not merely requested while a step batch was still running)
      const settled = (n: number) => async () => {
        const s = await state(page);
        return s.idle && s.steps === n;
      };
      await expect.poll(settled(0), { timeout: 30_000 }).toBe(true);
      const y0 = meanY(await page.evaluate(() => window.pbdGallery.positions()));
      for (let k = 0; k < steps; k++) await page.keyboard.press('s');
      await expect.poll(settled(steps), { timeout: 60_000 }).toBe(true);
      return y0 - meanY(await page.evaluate(() => window.pbdGallery.positions()));
    };
    // free fall before the cloth reaches the sphere: the drop is proportional to g
    const normal = await fallAfter(6);
    expect(normal).toBeGreaterThan(0.01);
    const input = page.locator('.lil-controller:has(.lil-name:text-is("gravity y")) input');
    await input.fill('-30');
    await input.press('Enter');
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    const strong = await fallAfter(6);
    expect(strong / normal).toBeCloseTo(30 / 9.81, 2);
    // paused means paused
    const t = (await state(page)).time;
    await page.waitForTimeout(500);
    expect((await state(page)).time).toBe(t);
    expect(browser.errors).toEqual([]);
  });

  it('bodies with a render mesh draw it, read in place from shared memory, and it follows the simulation', async () => {
    type Meshes = Awaited<ReturnType<typeof meshes>>;
    const meshes = () => page.evaluate(() => window.pbdGallery.renderMeshes());
    /** The drawn surface covers the particles' box to within `tol` (m) on every side. */
    const tracks = (m: Meshes[number], tol: number) =>
      [0, 1, 2].every(
        (d) =>
          Math.abs(m.drawn!.lo[d] - m.particleBox.lo[d]) < tol &&
          Math.abs(m.drawn!.hi[d] - m.particleBox.hi[d]) < tol,
      );
    // a soft body with its tetrahedralised surface embedded in the tets (002 §5), and lattice
    // shape-matched bodies whose meshes are skinned to the lattice particles (000 §4.4)
    /** Pauses, and waits until the page has drawn the last batch the worker computed. */
    const settle = async () => {
      if (!(await state(page)).paused) await page.keyboard.press(' ');
      await expect.poll(async () => (await state(page)).paused).toBe(true);
      await expect
        .poll(async () => (await meshes()).every((m) => m.maxDiff < 1e-5), { timeout: 20_000 })
        .toBe(true);
    };
    for (const [name, tol] of [
      ['continuum-bunny-drop', 0.05],
      ['shape-matching-ducks', 0.08],
    ] as const) {
      await openScene(page, base, name);
      expect((await state(page)).mode).toBe('worker');
      await settle();
      await settle();
      const m0 = await meshes();
      for (const m of m0) {
        expect(m.hasRenderMesh, name).toBe(true);
        expect(m.shared, name).toBe(true);
        expect(m.vertices).toBeGreaterThan(3);
        expect(m.maxDiff).toBeLessThan(1e-5);
        expect(tracks(m, tol), `${name}: the render mesh covers the particles`).toBe(true);
      }
      await page.evaluate(() => window.pbdGallery.runUntil(1.5));
      await settle();
      const m1 = await meshes();
      m1.forEach((m, k) => {
        // the bodies fell and the drawn surfaces went with them
        expect(m.drawn!.lo[1], `${name}: body ${k} fell`).toBeLessThan(m0[k].drawn!.lo[1] - 0.01);
        expect(m.maxDiff).toBeLessThan(1e-5);
        expect(tracks(m, tol), `${name}: body ${k} follows its particles`).toBe(true);
      });
      await page.evaluate(() => window.pbdGallery.setPixelRatio(1));
      const px = await page.evaluate(() => window.pbdGallery.bodyPixels());
      expect(px.bodyPixels / (px.width * px.height)).toBeGreaterThan(0.002);
      // a press on a render mesh grabs a particle of that body: a particle drawn on the canvas
      // (not under a panel), with the scene running
      const target = await page.evaluate(() => {
        const g = window.pbdGallery;
        const canvas = document.querySelector('.viewport canvas');
        for (const b of g.state().bodies ?? []) {
          for (let i = b.offset; i < b.offset + b.activeCount; i += 5) {
            const at = g.project(i);
            if (g.invMass(i) > 0 && document.elementFromPoint(at.x, at.y) === canvas)
              return { ...at, offset: b.offset, count: b.activeCount };
          }
        }
        return null;
      });
      expect(target, `${name}: a body in view`).not.toBeNull();
      await page.keyboard.press(' ');
      await page.mouse.move(target!.x, target!.y);
      await page.mouse.down();
      await expect
        .poll(
          async () => {
            const t = await state(page);
            const i = t.grabbed ?? -1;
            return i >= target!.offset && i < target!.offset + target!.count
              ? 'grabbed'
              : `${i} (${t.lastPick})`;
          },
          { timeout: 20_000 },
        )
        .toBe('grabbed');
      await page.mouse.up();
      await expect.poll(async () => (await state(page)).grabbed, { timeout: 20_000 }).toBe(-1);
    }
    expect(browser.errors).toEqual([]);
  });

  it('soft bodies, cloth and fluids run on WebAssembly kernels in the worker, and the readout says so', async () => {
    await openScene(page, base, 'continuum-bunny-drop');
    const s = await state(page);
    expect(s.mode).toBe('worker');
    expect(s.wasm).toContain('fem-tet');
    await expect
      .poll(async () => page.locator('[data-testid=readout]').textContent(), { timeout: 20_000 })
      .toMatch(/WebAssembly\s*fem-tet/);
    // cloth constraints and the fluid's pair passes too
    await openScene(page, base, 'cloth-flag');
    const cloth = (await state(page)).wasm;
    expect(cloth).toContain('stretch');
    expect(cloth).toContain('dihedral-bending');
    await openScene(page, base, 'fluids-dam-break');
    expect((await state(page)).wasm).toContain('fluid-density');
    expect(browser.errors).toEqual([]);
  });

  it('the readout says where the time of a step goes, and worker threads give the same cloth bit for bit', async () => {
    await openScene(page, base, 'cloth-flag');
    await expect
      .poll(async () => page.locator('[data-testid=readout]').textContent(), { timeout: 20_000 })
      .toMatch(/time: project:dihedral-bending\s*[\d.]+ ms \(\d+ %\)/);
    // the threads on a cloth with collider contacts: the pool runs the ground plane's contacts
    // (collider-contacts-planes.ts) and, since session 22, its 40 × 40 cloth's sets (above the f64 line,
    // ElementConstraints.poolMinConstraints)
    await openScene(page, base, 'cloth-drape');
    await page.keyboard.press('Space');
    await expect.poll(async () => (await state(page)).paused).toBe(true);
    // the same scene from its start on 1 and on 2 threads, to the same step
    const run = async (threads: number) => {
      await page.evaluate((n) => window.pbdGallery.setThreads(n), threads);
      await page.waitForFunction((n) => {
        const s = window.pbdGallery.state();
        return s.page === 'scene' && s.ready && s.threads === n && s.steps === 0;
      }, threads);
      const x0 = await page.evaluate(() => window.pbdGallery.positions());
      await page.evaluate(() => window.pbdGallery.runUntil(0.5));
      return { x0, state: await state(page), x: await page.evaluate(() => window.pbdGallery.positions()) };
    };
    const one = await run(1);
    const two = await run(2);
    expect(two.state.threads).toBe(2);
    // the pool's worker (a Web Worker inside the simulation worker) took part
    expect(two.state.workerBlocks).toBeGreaterThan(0);
    expect(one.state.workerBlocks).toBe(0);
    expect(two.state.steps).toBe(one.state.steps);
    expect(one.state.steps).toBeGreaterThan(10);
    expect(two.state.nonFinite).toBe(0);
    let differ = 0;
    for (let k = 0; k < one.x.length; k++) if (one.x[k] !== two.x[k]) differ++;
    expect(differ).toBe(0);
    // the flag moved in those steps
    let moved = 0;
    for (let k = 0; k < one.x.length; k++) moved = Math.max(moved, Math.abs(one.x[k] - one.x0[k]));
    expect(moved).toBeGreaterThan(0.01);
    expect(browser.errors).toEqual([]);
  });

  it('without cross-origin isolation the simulation runs on the main thread, and the page says so', async () => {
    const fallback = await browser.context.newPage();
    await openScene(fallback, inject('plainUrl'), 'cloth-flag');
    const s = await state(fallback);
    expect(s.ready).toBe(true);
    expect(s.mode).toBe('main');
    expect(await fallback.locator('[data-testid=sim-mode]').textContent()).toMatch(/main thread/);
    await expect.poll(async () => (await state(fallback)).steps, { timeout: 60_000 }).toBeGreaterThan(5);
    // render meshes are drawn from the main thread's own arrays
    await openScene(fallback, inject('plainUrl'), 'continuum-bunny-drop');
    expect((await state(fallback)).mode).toBe('main');
    // the SIMD tet kernel (3.5 kB) compiles on the main thread too
    expect((await state(fallback)).wasm).toContain('fem-tet');
    const [m0] = await fallback.evaluate(() => window.pbdGallery.renderMeshes());
    expect(m0.hasRenderMesh).toBe(true);
    expect(m0.shared).toBe(false);
    await fallback.evaluate(() => window.pbdGallery.runUntil(1));
    const [m1] = await fallback.evaluate(() => window.pbdGallery.renderMeshes());
    expect(m1.drawn!.lo[1]).toBeLessThan(m0.drawn!.lo[1] - 0.01);
    expect(m1.maxDiff).toBeLessThan(1e-5);
    await fallback.close();
    expect(browser.errors).toEqual([]);
  });
});
