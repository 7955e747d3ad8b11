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
  const out = path.join(daemon.workspace, 'conformance-results');
  const args = [suite, 'server', '--url', url, '--requirements', revision, '--output-dir', out,
                '--expected-failures', path.join(here, `expected-failures-${revision}.yaml`)];
  console.log(`conformance ${revision} over ${transport}: ${args.slice(1).join(' ')}`);
  const code = await new Promise((resolve) => {
    const p = spawn(node22(), args, { stdio: 'inherit', cwd: daemon.workspace });
    p.on('exit', (c) => resolve(c ?? 1));
  });
  process.exitCode = code;
  // Every check that did not pass, one line each (the suite's results, as it saved them).
  for (const dir of fs.existsSync(out) ? fs.readdirSync(out).sort() : []) {
    const file = path.join(out, dir, 'checks.json');
    if (!fs.existsSync(file)) continue;
    for (const c of JSON.parse(fs.readFileSync(file, 'utf8')))
      if (!['SUCCESS', 'INFO', 'SKIPPED'].includes(c.status))
        console.log(`  ${c.status} ${dir.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT.*$/, '')}:${c.id}: ${(c.errorMessage || '').slice(0, 200)}`);
  }
} finally {
  if (bridge) bridge.kill('SIGTERM');
  await daemon.stop();
  if (process.exitCode) console.error(`daemon log:\n${daemon.log().slice(-3000)}`);
}
