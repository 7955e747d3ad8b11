// The MCP inspector's CLI (@modelcontextprotocol/inspector-cli, pinned) lists kwb's tools with
// the command docs/mcp.md gives (`mcp-inspector-cli --cli ... --method tools/list`, with the
// pinned Node 22 first on PATH), over HTTP (POST /mcp with a bearer token) and over stdio
// (`kwb mcp`, the daemon in KWB_SERVER and the token in KWB_TOKEN). It runs in tests/mcp/node_modules:
// inspector-cli 1.0.3 looks for its package.json at ../package.json of the working directory
// (and fails elsewhere with "Cannot find module .../@modelcontextprotocol/package.json").
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { startDaemon, here, kwb, node22, tool } from './lib.mjs';

const inspector = tool('.bin/mcp-inspector-cli');
const cwd = path.join(here, 'node_modules');
const daemon = await startDaemon({ auth: true });
try {
  const token = daemon.token('agent');
  const env = { ...process.env, PATH: `${path.dirname(node22())}:${process.env.PATH}`, KWB_TOKEN: token };
  const names = (out) => JSON.parse(out.slice(out.indexOf('{'))).tools.map((t) => t.name);
  const http = execFileSync(inspector, ['--cli', `${daemon.url}/mcp`, '--transport', 'http', '--method', 'tools/list',
                                        '--header', `Authorization: Bearer ${token}`], { encoding: 'utf8', env, cwd });
  assert.ok(names(http).includes('submit_kernel'), http);
  assert.equal(names(http).length, 15, http);  // docs/mcp.md "Tools"
  console.log('ok 1 - inspector-cli lists the tools over HTTP');
  const stdio = execFileSync(inspector, ['--cli', kwb, 'mcp', '--method', 'tools/list'], { encoding: 'utf8', env: { ...env, KWB_SERVER: daemon.url }, cwd });
  assert.deepEqual(names(stdio), names(http));
  console.log('ok 2 - inspector-cli lists the tools over stdio');
  console.log('2 passed, 0 failed');
} finally {
  await daemon.stop();
}
