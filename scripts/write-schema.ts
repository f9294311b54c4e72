/** Writes schema/scene.schema.json from the zod scene schema (run by `npm run schema`). */
import { writeFileSync } from 'node:fs';
import { sceneJsonSchema } from '../src/index.js';

const out = new URL('../schema/scene.schema.json', import.meta.url);
writeFileSync(out, `${JSON.stringify({ title: 'pbdkit scene', ...sceneJsonSchema() }, null, 2)}\n`);
console.log(`wrote ${out.pathname}`);
