// The MCP conformance suite (@modelcontextprotocol/conformance, pinned in package-lock.json)
// against kwb, every server scenario a revision requires (--requirements), with a baseline of
// the scenarios and checks that need the suite's own fixture server (expected-failures.yaml:
// each entry says why). Exit code: the suite's (0 = every other check passed and no baseline
// entry is stale).
//   node conformance.mjs --transport http|stdio --revision 2026-07-28|2025-11-25
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startDaemon, here, kwb, node22, tool, waitFor } from './lib.mjs';

const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
const transport = arg('--transport'), revision = arg('--revision');
if (!['http', 'stdio'].includes(transport) || !['2026-07-28', '2025-11-25'].includes(revision)) {
  console.error('usage: conformance.mjs --transport http|stdio --revision 2026-07-28|2025-11-25');
  process.exit(2);
}
const suite = tool('@modelcontextprotocol/conformance/dist/index.js');

// The suite sends no Authorization header: over HTTP the daemon runs --no-auth (auth is tested
// by session_test.mjs); over stdio `kwb mcp` holds an agent token, as an agent's would.
const daemon = await startDaemon({ auth: transport === 'stdio' });
let bridge = null, url = `${daemon.url}/mcp`;
try {
  if (transport === 'stdio') {
    const portFile = path.join(daemon.workspace, 'bridge.port');
    bridge = spawn(node22(), [path.join(here, 'stdio_bridge.mjs'), '--port-file', portFile, '--', kwb, 'mcp', '--server', daemon.url],
                   { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, KWB_TOKEN: daemon.token('agent') } });
    const port = await waitFor('the stdio bridge', () => (fs.existsSync(portFile) ? fs.readFileSync(portFile, 'utf8').trim() : null), 30000);
    url = `http://127.0.0.1:${port}/mcp`;
  }
  const args = [suite, 'server', '--url', url, '--requirements', revision,
                '--expected-failures', path.join(here, `expected-failures-${revision}.yaml`)];
  console.log(`conformance ${revision} over ${transport}: ${args.slice(1).join(' ')}`);
  const code = await new Promise((resolve) => {
    const p = spawn(node22(), args, { stdio: 'inherit', cwd: daemon.workspace });
    p.on('exit', (c) => resolve(c ?? 1));
  });
  process.exitCode = code;
} finally {
  if (bridge) bridge.kill('SIGTERM');
  await daemon.stop();
  if (process.exitCode) console.error(`daemon log:\n${daemon.log().slice(-3000)}`);
}
