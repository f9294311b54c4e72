import { describe, expect, it } from 'vitest';
import { type BenchCase, type BenchInstance, runCase } from '../bench/harness.js';
import type { PeerInstance } from '../bench/peers/peer.js';
import type { Scheduler } from '../src/index.js';

/**
 * bench/harness.ts's threads columns (issue 20; session 21, cl28): the ratio interleaved with
 * the peers, and the pbdkit-only ratio timed over further frames in which only pbdkit's 1- and
 * 2-thread worlds step, alternately, after the quality figures and the profiled steps. Fake
 * engines record the order in which the harness steps them; their "world" adds its frame number
 * to a position, so two worlds stepped the same number of times hold the same bits.
 */
function fake(name: string, log: string[], drift = () => 0): BenchInstance {
  const x = new Float64Array(3);
  let frame = 0;
  const step = () => {
    frame++;
    x[0] += frame + drift();
    log.push(name);
  };
  return {
    step,
    world: { scheduler: {} as Scheduler, step, store: { x, count: 1 } },
    quality: () => {
      log.push(`${name}:quality`);
      return { maxStretch: 0, meanStretch: 0, finite: true };
    },
  };
}

function peer(name: string, log: string[]): PeerInstance {
  return {
    step: () => log.push(name),
    positions: () => [],
    quality: () => {
      log.push(`${name}:quality`);
      return { maxStretch: 0, meanStretch: 0, finite: true };
    },
  };
}

function benchCase(log: string[], withPeer: boolean, drift?: () => number, m?: number): BenchCase {
  return {
    name: 'fake',
    description: 'fake engines',
    setup: () => fake('one', log),
    setupThreads: () => fake('two', log, drift),
    peers: withPeer ? [{ name: 'peer', what: 'a peer', setup: () => peer('peer', log) }] : [],
    steps: 12,
    warmup: 3,
    pbdkitOnlySteps: m,
  };
}

describe('bench harness: the pbdkit-only threads column', () => {
  it('steps only the 1- and 2-thread worlds, alternately, after the peers, the quality and the profiled steps', async () => {
    const log: string[] = [];
    const r = await runCase(benchCase(log, true, undefined, 40));
    const o = r.threads?.pbdkitOnly;
    expect(o).not.toBeNull();
    expect(o?.steps).toBe(40);
    // the peer's last frame and its quality come before every pbdkit-only frame
    const lastPeer = log.lastIndexOf('peer');
    const quality = log.indexOf('one:quality');
    expect(quality).toBeGreaterThan(lastPeer);
    const tail = log.slice(log.lastIndexOf('peer:quality') + 1);
    // the profiled steps (12 of the 1-thread world), the 2-thread world's catch-up, then 5 + 40 pairs
    expect(tail.slice(0, 12)).toEqual(Array(12).fill('one'));
    expect(tail.slice(12, 24)).toEqual(Array(12).fill('two'));
    const pairs = tail.slice(24);
    expect(pairs.length).toBe(2 * 45);
    for (let k = 0; k < 45; k++) {
      const pair = pairs.slice(2 * k, 2 * k + 2);
      expect(pair).toEqual(k % 2 === 0 ? ['one', 'two'] : ['two', 'one']);
    }
    // both worlds stepped the same frames: the same bits after the peers' frames and after these
    expect(r.threads?.bitIdentical).toBe(true);
    expect(o?.bitIdentical).toBe(true);
    expect(o?.ratio).toBeGreaterThan(0);
    expect(Number.isFinite(o?.ratio)).toBe(true);
  });

  it('checks the bits after the pbdkit-only frames too', async () => {
    const log: string[] = [];
    // the 2-thread world departs from the 1-thread one only in its last frames
    let frames = 0;
    const drift = () => (++frames > 3 + 12 + 12 + 20 ? 1e-9 : 0);
    const r = await runCase(benchCase(log, true, drift, 20));
    expect(r.threads?.bitIdentical).toBe(true);
    expect(r.threads?.pbdkitOnly?.bitIdentical).toBe(false);
  });

  it('leaves the column out of a case without peers (its ratio is already pbdkit only) and where asked', async () => {
    const a = await runCase(benchCase([], false));
    expect(a.threads).not.toBeNull();
    expect(a.threads?.pbdkitOnly).toBeNull();
    const b = await runCase(benchCase([], true, undefined, 0));
    expect(b.threads?.pbdkitOnly).toBeNull();
  });

  it('defaults to max(100, steps) frames', async () => {
    const r = await runCase(benchCase([], true));
    expect(r.threads?.pbdkitOnly?.steps).toBe(100);
  });
});
