/**
 * The free part of the gallery's view (web/src/view/framing.ts, freeRect):
 * the largest rectangle no panel covers, whatever order the panels are
 * listed in and however the side column shares its height between the
 * parameters and the readout (a readout that grows must not move the
 * free part, or a framed scene leaves it).
 */
import { describe, expect, it } from 'vitest';
import { freeRect } from '../web/src/view/framing.js';

const canvas = { left: 0, top: 0, right: 1280, bottom: 800 };
const bar = { left: 10, top: 10, right: 570, bottom: 154 };
const column = (split: number) => [
  { left: 998, top: 10, right: 1270, bottom: split },
  { left: 998, top: split + 8, right: 1270, bottom: 790 },
];

describe('freeRect', () => {
  it.each([150, 291, 500, 700])(
    'the side column split at %i px leaves the view left of it and below the scene bar',
    (split) => {
      const panels = [bar, ...column(split)];
      const orders = [panels, [...panels].reverse(), [panels[1], panels[0], panels[2]]];
      for (const order of orders) {
        expect(freeRect(canvas, order)).toEqual({ left: 0, top: 154, right: 998, bottom: 800 });
      }
    },
  );

  it('no panels: the whole canvas; panels covering nearly all of it: the whole canvas too', () => {
    expect(freeRect(canvas, [])).toEqual(canvas);
    expect(freeRect(canvas, [{ left: 0, top: 0, right: 1200, bottom: 780 }])).toEqual(canvas);
  });
});
