// A whole agent session through the official TypeScript MCP client (@modelcontextprotocol/sdk,
// pinned) against `kwb serve`'s POST /mcp, or `kwb mcp` over stdio (--stdio), with an agent
// token: list tools; get_spec (exactly GET /v1/specs/{op}); submit_kernel of a CPU kernel with
// progress notifications; get_verdict -> accepted; diff_vs_incumbent; a wrong kernel whose
// verdict text names the first mismatch; promote refused for the agent token; resources and
// the prompt.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startDaemon, kwb, sourceDir } from './lib.mjs';

const overStdio = process.argv.includes('--stdio');
const daemon = await startDaemon({ auth: true });
let passed = 0;
const step = async (name, fn) => {
  const t0 = Date.now();
  await fn();
  passed += 1;
  console.log(`ok ${passed} - ${name} (${Date.now() - t0} ms)`);
};
const text = (r) => r.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

try {
  const agent = daemon.token('agent');
  const transport = overStdio
    ? new StdioClientTransport({ command: kwb, args: ['mcp', '--server', daemon.url], env: { ...process.env, KWB_TOKEN: agent }, stderr: 'inherit' })
    : new StreamableHTTPClientTransport(new URL(`${daemon.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${agent}` } } });
  const client = new Client({ name: 'kwb-session-test', version: '1.0.0' });
  await client.connect(transport);
  const long = { timeout: 300000, resetTimeoutOnProgress: true };

  await step('initialize negotiates 2025-11-25 and names the server', async () => {
    assert.equal(client.getServerVersion().name, 'kwb');
    assert.ok(client.getServerCapabilities().tools);
  });

  await step('tools/list lists every tool with input and output schemas', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    assert.deepEqual(names, ['cancel', 'diff_vs_incumbent', 'get_incumbent', 'get_lineage', 'get_spec', 'get_verdict',
                             'leaderboard', 'library_report', 'list_attempts', 'list_candidates', 'list_ops', 'profile_kernel', 'promote',
                             'reject', 'submit_kernel'].sort());
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object', t.name);
      assert.equal(t.outputSchema?.type, 'object', t.name);
      assert.ok(t.description.length > 80, t.name);
    }
  });

  await step('get_spec returns exactly GET /v1/specs/{op}', async () => {
    const r = await client.callTool({ name: 'get_spec', arguments: { op: 'vector_add' } });
    assert.equal(r.isError, false, text(r));
    const rest = await (await fetch(`${daemon.url}/v1/specs/vector_add`, { headers: { Authorization: `Bearer ${agent}` } })).json();
    assert.deepEqual(r.structuredContent, rest);
    assert.match(text(r), /variant f32: entry kwb_vector_add_f32/);
  });

  await step('get_incumbent returns the incumbent source and its numbers', async () => {
    const r = await client.callTool({ name: 'get_incumbent', arguments: { op: 'vector_add', backend: 'cpu' } });
    assert.equal(r.isError, false, text(r));
    assert.ok(r.structuredContent.entries[0].source.includes('kwb_vector_add_f32'));
  });

  const good = fs.readFileSync(path.join(sourceDir, 'kernels/vector_add/cpu/vectorized.cpp'), 'utf8');
  let id = null;
  await step('submit_kernel of a CPU kernel sends progress notifications, the first naming the id', async () => {
    const progress = [];
    const r = await client.callTool({ name: 'submit_kernel', arguments: { op: 'vector_add', source: good, bench: ['n1M'], note: 'mcp session test' } },
                                    undefined, { ...long, onprogress: (p) => progress.push(p) });
    assert.equal(r.isError, false, text(r));
    id = r.structuredContent.id;
    assert.match(id, /^c-[0-9a-f]{16}$/);
    assert.ok(progress.length >= 3, `progress notifications: ${JSON.stringify(progress)}`);
    assert.equal(progress[0].message, `submitted ${id}`);
    assert.ok(progress.some((p) => /^compile done/.test(p.message)), JSON.stringify(progress));
    for (let i = 1; i < progress.length; ++i) assert.ok(progress[i].progress > progress[i - 1].progress);
  });

  await step('get_verdict -> accepted, status first in the text', async () => {
    const r = await client.callTool({ name: 'get_verdict', arguments: { id, wait_s: 240 } }, undefined, long);
    assert.equal(r.isError, false, text(r));
    assert.equal(r.structuredContent.status, 'accepted', text(r));
    assert.ok(text(r).startsWith(`accepted: ${id} vector_add/f32 (cpu)`), text(r));
    assert.match(text(r), /\nreason: correct on /);
    assert.match(text(r), /\nvs incumbent: /);
  });

  await step('diff_vs_incumbent: the library diff and the per-workload comparison', async () => {
    const r = await client.callTool({ name: 'diff_vs_incumbent', arguments: { id } });
    assert.equal(r.isError, false, text(r));
    assert.equal(r.structuredContent.id, id);
    assert.ok(Array.isArray(r.structuredContent.workloads));
    assert.match(text(r), /^diff of c-[0-9a-f]{16} \(accepted\) against the incumbent vector_add\/cpu\//);
  });

  await step('a wrong kernel: the verdict text names the first mismatch', async () => {
    const wrongSource = '#include <cstdint>\nextern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {\n' +
                        '  for (int64_t i = 0; i < n; ++i) c[i] = a[i] * b[i];\n}\n';
    const s = await client.callTool({ name: 'submit_kernel', arguments: { op: 'vector_add', source: wrongSource, bench: ['n1M'] } });
    assert.equal(s.isError, false, text(s));
    assert.match(text(s), /^submitted: c-[0-9a-f]{16}/);
    const r = await client.callTool({ name: 'get_verdict', arguments: { id: s.structuredContent.id, wait_s: 240 } }, undefined, long);
    assert.equal(r.structuredContent.status, 'incorrect', text(r));
    assert.ok(text(r).startsWith('incorrect: '), text(r));
    assert.match(text(r), /\nfirst mismatch: workload \S+ \{.*\}, tensor c\[\d+\]: got \S+, expected \S+/);
    assert.equal(r.structuredContent.first_mismatch.tensor, 'c');
  });

  await step("an agent token's promote is refused with the REST API's 403", async () => {
    const r = await client.callTool({ name: 'promote', arguments: { id } });
    assert.equal(r.isError, true);
    assert.match(text(r), /^promote c-[0-9a-f]{16}: HTTP 403 forbidden: this route needs the reviewer role; the token has agent/);
  });

  await step('a bad argument is a tool error naming it; an unknown tool is a JSON-RPC error', async () => {
    const r = await client.callTool({ name: 'get_verdict', arguments: { id: 'c-1', wait_s: 5 } });
    assert.equal(r.isError, true);
    assert.match(text(r), /arguments\.id: expected a value matching/);
    await assert.rejects(client.callTool({ name: 'nope', arguments: {} }), /Unknown tool: nope/);
  });

  await step('resources: kwb://specs/{op} and the incumbent sources', async () => {
    const { resources } = await client.listResources();
    assert.ok(resources.some((r) => r.uri === 'kwb://specs/vector_add'));
    const lib = resources.find((r) => r.uri.startsWith('kwb://library/vector_add/cpu/'));
    assert.ok(lib, JSON.stringify(resources.map((r) => r.uri)));
    const read = await client.readResource({ uri: lib.uri });
    assert.ok(read.contents[0].text.includes('kwb_vector_add_f32'));
    await assert.rejects(client.readResource({ uri: 'kwb://specs/nope' }), /Resource not found: kwb:\/\/specs\/nope/);
  });

  await step('the optimise prompt sets up the loop with the spec attached', async () => {
    const p = await client.getPrompt({ name: 'optimise', arguments: { op: 'vector_add', device: 'cpu' } });
    assert.match(p.messages[0].content.text, /submit_kernel/);
    assert.equal(p.messages[1].content.resource.uri, 'kwb://specs/vector_add');
    const c = await client.complete({ ref: { type: 'ref/prompt', name: 'optimise' }, argument: { name: 'op', value: 'vec' } });
    assert.deepEqual(c.completion.values, ['vector_add']);
  });

  await client.close();
  console.log(`${passed} passed, 0 failed`);
} catch (e) {
  console.error(e);
  console.error(`daemon log (tail):\n${daemon.log().slice(-4000)}`);
  console.log(`${passed} passed, 1 failed`);
  process.exitCode = 1;
} finally {
  await daemon.stop();
}
