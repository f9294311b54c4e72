#!/usr/bin/env node
// The pbdkit command: runs the compiled CLI (lib/ is built by `npm install` through `prepare`).
import { main } from '../lib/cli/main.js';

process.exitCode = await main(process.argv);
