// Shared by the browser tests: a real `kwb serve` on a free loopback port in a fresh workspace,
// with a deliberately slow vector_add incumbent (so winners win by a wide margin on a loaded
// machine) and the shipped spec's light bench workloads; tokens from `kwb token create`.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const here = path.dirname(fileURLToPath(import.meta.url));
export const sourceDir = path.resolve(here, '..', '..');
export const binDir = process.env.KWB_TEST_BIN_DIR || path.join(sourceDir, 'build', 'bin');
export const kwb = path.join(binDir, 'kwb');

export const slowIncumbent = `// vector_add, CPU: deliberately slow, the test incumbent.
#include <cstdint>
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    volatile float x = a[i];
    for (int r = 0; r < 32; ++r) x = x;
    c[i] = x + b[i];
  }
}
`;

export const fastKernel = (tag) => `// vector_add, CPU: ${tag}
#include <cstdint>
extern "C" void kwb_vector_add_f32(const float* __restrict a, const float* __restrict b, float* __restrict c,
                                   int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
`;

export const wrongKernel = `// vector_add, CPU: subtracts (incorrect on purpose)
#include <cstdint>
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] - b[i];
}
`;

// kernels/ with the slow incumbent only, specs/ with vector_add whose 16M bench workload is 2M.
export function fixtures(root) {
  const kdir = path.join(root, 'kernels', 'vector_add', 'cpu');
  fs.mkdirSync(kdir, { recursive: true });
  fs.writeFileSync(path.join(kdir, 'scalar.cpp'), slowIncumbent);
  fs.writeFileSync(path.join(kdir, 'scalar.json'), JSON.stringify({ op: 'vector_add', variant: 'f32', backend: 'cpu',
    entry: 'kwb_vector_add_f32', summary: 'slow test incumbent', author: 'test' }));
  const sdir = path.join(root, 'specs', 'vector_add');
  fs.mkdirSync(sdir, { recursive: true });
  const shipped = path.join(sourceDir, 'specs', 'vector_add');
  const spec = fs.readFileSync(path.join(shipped, 'spec.json'), 'utf8');
  const light = spec.replace(/\{"name": "n16M", "params": \{"n": 16777216\}, "label": "[^"]*"\}/,
    '{"name": "n2M", "params": {"n": 2097152}, "label": "2M elements: 24 MiB moved (tests: light)"}');
  if (light === spec) throw new Error(`${shipped}/spec.json has no bench workload n16M to replace`);
  fs.writeFileSync(path.join(sdir, 'spec.json'), light);
  fs.copyFileSync(path.join(shipped, 'reference.cpp'), path.join(sdir, 'reference.cpp'));
  return { kernels: path.join(root, 'kernels'), specs: path.join(root, 'specs') };
}

export async function waitFor(what, fn, timeoutMs = 300000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startDaemon(root, args = []) {
  const workspace = path.join(root, 'ws');
  const portFile = path.join(root, 'serve.port');
  const logFile = path.join(root, 'serve.log');
  const log = fs.openSync(logFile, 'a');
  const { kernels, specs } = fixtures(root);
  const argv = ['serve', '--port', '0', '--port-file', portFile, '--workspace', workspace, '--kernels-dir', kernels,
                '--specs-dir', specs, '--time-budget-ms', '150', ...args];
  const child = spawn(kwb, argv, { stdio: ['ignore', log, log] });
  let exited = null;
  child.on('exit', (code, signal) => { exited = { code, signal }; });
  const port = await waitFor('kwb serve to listen', () => {
    if (exited) throw new Error(`kwb serve exited (${JSON.stringify(exited)}):\n${fs.readFileSync(logFile, 'utf8')}`);
    const text = fs.existsSync(portFile) ? fs.readFileSync(portFile, 'utf8').trim() : '';
    return Number(text) > 0 ? Number(text) : null;
  }, 180000);
  const url = `http://127.0.0.1:${port}`;
  const token = (role) => execFileSync(kwb, ['token', 'create', '--role', role, '--name', `web-${role}`, '--workspace', workspace],
                                       { encoding: 'utf8' }).trim();
  const call = async (tok, method, p, body) => {
    const res = await fetch(url + p, { method, headers: { Authorization: `Bearer ${tok}`, 'Content-Type': 'application/json' },
                                       body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let json = null;
    try { json = JSON.parse(text); } catch { /* text */ }
    return { status: res.status, json, text };
  };
  return {
    url, workspace, child, token, call,
    log: () => fs.readFileSync(logFile, 'utf8'),
    // Submits and returns the id; `extra`: more fields of the submission (parent, ...).
    submit: async (tok, source, note, extra = {}) => {
      const r = await call(tok, 'POST', '/v1/candidates', { op: 'vector_add', source, source_name: 'add.cpp', note, ...extra });
      if (r.status !== 202) throw new Error(`submit: HTTP ${r.status} ${r.text}`);
      return r.json.id;
    },
    // The candidate once done.
    done: async (tok, id) => waitFor(`${id} to finish`, async () => {
      const r = await call(tok, 'GET', `/v1/candidates/${id}?wait=30`);
      if (r.status !== 200) throw new Error(`GET ${id}: HTTP ${r.status} ${r.text}`);
      return r.json.state === 'done' || r.json.state === 'cancelled' ? r.json : null;
    }, 600000),
    stop: () => new Promise((resolve) => {
      if (exited) return resolve();
      child.once('exit', resolve);
      child.kill('SIGTERM');
    }),
  };
}
