/**
 * Vite configuration of the gallery (web/). The dev and preview servers send
 * the cross-origin isolation headers, so the page may share memory with the
 * simulation worker (SharedArrayBuffer); they listen on loopback only unless
 * a host is given. The static site goes to dist/ with relative URLs, so any
 * static host (or a sub-folder) can serve it.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
const repo = fileURLToPath(new URL('..', import.meta.url));

export const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export default defineConfig({
  root,
  base: './',
  publicDir: false,
  clearScreen: false,
  server: {
    host: '127.0.0.1',
    port: 5173,
    headers: isolationHeaders,
    fs: { allow: [repo] },
  },
  preview: {
    host: '127.0.0.1',
    port: 5173,
    headers: isolationHeaders,
  },
  build: {
    outDir: fileURLToPath(new URL('../dist', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 2000,
  },
  worker: { format: 'es' },
});
