// Tasks (docs/mcp.md "Tasks") against `kwb serve`'s POST /mcp, or `kwb mcp` over stdio
// (--stdio), with agent tokens:
//   2025-11-25 through the official TypeScript client's task API (@modelcontextprotocol/sdk,
//     pinned: client.experimental.tasks — callToolStream, getTask, getTaskResult, listTasks,
//     cancelTask), with the SDK's strict capability checks on;
//   2026-07-28 (the io.modelcontextprotocol/tasks extension) as raw JSON-RPC, since the pinned
//     SDK speaks 2025-11-25 only: over HTTP with the revision's headers, over stdio as lines.
// A task is a candidate of the caller's token: another token's candidate is no task of it.
// Also log messages (notifications/message): after logging/setLevel (2025-11-25), with _meta's
// logLevel (2026-07-28), and none without.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
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
const ID = /^c-[0-9a-f]{16}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;
const good = fs.readFileSync(path.join(sourceDir, 'kernels/vector_add/cpu/vectorized.cpp'), 'utf8');
const submitArgs = (note) => ({ op: 'vector_add', source: good, bench: ['n1M'], note });

// 2026-07-28 requests, stateless: each carries its revision and capabilities in _meta.
function modernWire(token) {
  const meta = (tasks, logLevel) => ({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                                       'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { 'io.modelcontextprotocol/tasks': {} } } : {},
                                       ...(logLevel ? { 'io.modelcontextprotocol/logLevel': logLevel } : {}) });
  let nextId = 1;
  if (!overStdio) {
    return {
      async call(method, params, { tasks = true, name, logLevel } = {}) {
        const body = { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: meta(tasks, logLevel) } };
        const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
                          'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': method };
        const routed = name ?? params.name ?? params.taskId;
        if (routed !== undefined) headers['Mcp-Name'] = routed;
        const res = await fetch(`${daemon.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });
        if (!(res.headers.get('content-type') || '').startsWith('text/event-stream'))
          return { http: res.status, notifications: [], ...(await res.json()) };
        const messages = (await res.text()).split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
        return { http: res.status, notifications: messages.filter((m) => m.id === undefined), ...messages.at(-1) };
      },
      close: async () => {},
      kill: () => {},
    };
  }
  const child = spawn(kwb, ['mcp', '--server', daemon.url], { env: { ...process.env, KWB_TOKEN: token }, stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map();
  let notifications = [];  // since the last call (the test makes one call at a time)
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const msg = JSON.parse(line);
    if (msg.id === undefined) notifications.push(msg);
    else if (waiting.has(msg.id)) { waiting.get(msg.id)({ ...msg, notifications }); waiting.delete(msg.id); }
  });
  return {
    kill: () => child.kill(),
    call(method, params, { tasks = true, logLevel } = {}) {
      const id = nextId++;
      notifications = [];
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta(tasks, logLevel) } }) + '\n');
      });
    },
    close: () => new Promise((resolve) => { child.once('exit', resolve); child.stdin.end(); }),
  };
}

async function restSubmit(token, note) {
  const res = await fetch(`${daemon.url}/v1/candidates`, {
    method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(submitArgs(note)),
  });
  assert.equal(res.status, 202);
  return (await res.json()).id;
}
const restGet = async (token, target) => (await fetch(`${daemon.url}${target}`, { headers: { Authorization: `Bearer ${token}` } })).json();

let client = null, wire = null;
try {
  const agent = daemon.token('agent'), other = daemon.token('agent');
  const transport = overStdio
    ? new StdioClientTransport({ command: kwb, args: ['mcp', '--server', daemon.url], env: { ...process.env, KWB_TOKEN: agent }, stderr: 'inherit' })
    : new StreamableHTTPClientTransport(new URL(`${daemon.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${agent}` } } });
  client = new Client({ name: 'kwb-tasks-test', version: '1.0.0' }, { enforceStrictCapabilities: true });
  await client.connect(transport);
  const long = { timeout: 300000 };

  await step('2025-11-25: the server declares tasks for tools/call, tasks/list and tasks/cancel', async () => {
    const caps = client.getServerCapabilities();
    assert.deepEqual(caps.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
  });

  await step('2025-11-25: submit_kernel is the one tool with execution.taskSupport optional', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.filter((t) => t.execution).map((t) => [t.name, t.execution.taskSupport]), [['submit_kernel', 'optional']]);
  });

  let taskId = null;
  await step('2025-11-25: callToolStream submits as a task, polls it to completed and reads the verdict as its result', async () => {
    const seen = [];
    for await (const m of client.experimental.tasks.callToolStream({ name: 'submit_kernel', arguments: submitArgs('tasks test') },
                                                                    CallToolResultSchema, { ...long, task: { ttl: 60000 } }))
      seen.push(m);
    const created = seen[0];
    assert.equal(created.type, 'taskCreated', JSON.stringify(seen[0]));
    taskId = created.task.taskId;
    assert.match(taskId, ID);
    assert.equal(created.task.status, 'working');
    assert.equal(created.task.ttl, null);            // candidates are kept for good
    assert.equal(created.task.pollInterval, 1000);
    assert.match(created.task.createdAt, ISO);
    assert.match(created.task.lastUpdatedAt, ISO);
    const statuses = seen.filter((m) => m.type === 'taskStatus').map((m) => m.task.status);
    assert.equal(statuses.at(-1), 'completed', JSON.stringify(statuses));
    assert.ok(statuses.slice(0, -1).every((s) => s === 'working'), JSON.stringify(statuses));
    const last = seen.at(-1);
    assert.equal(last.type, 'result', JSON.stringify(last));
    assert.equal(last.result.structuredContent.id, taskId);
    assert.equal(last.result.structuredContent.status, 'accepted', text(last.result));
    assert.ok(text(last.result).startsWith(`accepted: ${taskId} vector_add/f32 (cpu)`), text(last.result));
    assert.deepEqual(last.result._meta['io.modelcontextprotocol/related-task'], { taskId });
  });

  await step('2025-11-25: tasks/get and tasks/result of the completed task; the REST candidate is the same', async () => {
    const t = await client.experimental.tasks.getTask(taskId);
    assert.equal(t.status, 'completed');
    assert.match(t.statusMessage, /^accepted: correct on /);
    const r = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    assert.equal(r.structuredContent.status, 'accepted');
    const rest = await restGet(agent, `/v1/candidates/${taskId}`);
    assert.equal(rest.status, 'accepted');
    assert.equal(rest.mine, true);
    assert.equal(rest.created_at, t.createdAt);
  });

  await step("2025-11-25: another token's candidate is not a task of this token", async () => {
    const theirs = await restSubmit(other, 'tasks test: another token');
    assert.equal((await restGet(agent, `/v1/candidates/${theirs}`)).mine, false);
    assert.equal((await restGet(other, `/v1/candidates/${theirs}`)).mine, true);
    await assert.rejects(client.experimental.tasks.getTask(theirs),
                         (e) => e.code === -32602 && /is a candidate another token submitted, not a task of this token/.test(e.message));
    await assert.rejects(client.experimental.tasks.cancelTask(theirs), (e) => e.code === -32602);
    const { tasks } = await client.experimental.tasks.listTasks();
    assert.ok(tasks.some((t) => t.taskId === taskId), JSON.stringify(tasks));
    assert.ok(!tasks.some((t) => t.taskId === theirs), JSON.stringify(tasks));
    const mine = await restGet(agent, '/v1/candidates?mine=true');
    assert.deepEqual(mine.items.map((c) => c.id), tasks.map((t) => t.taskId));
  });

  await step('2025-11-25: tasks/cancel cancels the candidate; a second cancel is refused as terminal', async () => {
    const created = await client.request({ method: 'tools/call', params: { name: 'submit_kernel', arguments: submitArgs('tasks test: cancel') } },
                                         (await import('@modelcontextprotocol/sdk/types.js')).CreateTaskResultSchema, { task: {} });
    const id = created.task.taskId;
    assert.match(created._meta['io.modelcontextprotocol/model-immediate-response'], new RegExp(`^submitted ${id}`));
    const cancelled = await client.experimental.tasks.cancelTask(id);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal((await client.experimental.tasks.getTask(id)).status, 'cancelled');
    const rest = await restGet(agent, `/v1/candidates/${id}`);
    assert.ok(rest.state === 'cancelled' || rest.cancel_requested === true, JSON.stringify(rest));
    await assert.rejects(client.experimental.tasks.cancelTask(id),
                         (e) => e.code === -32602 && /already in terminal status 'cancelled'/.test(e.message));
    const r = await client.experimental.tasks.getTaskResult(id, CallToolResultSchema);
    assert.deepEqual(r._meta['io.modelcontextprotocol/related-task'], { taskId: id });
  });

  await step('2025-11-25: a tool without task support, an unknown task and a bad cursor are JSON-RPC errors', async () => {
    await assert.rejects(client.callTool({ name: 'get_verdict', arguments: { id: taskId } }, CallToolResultSchema, { task: {} }),
                         (e) => e.code === -32601 && /get_verdict does not run as a task/.test(e.message));
    await assert.rejects(client.experimental.tasks.getTask('c-0000000000000000'), (e) => e.code === -32602 && /Task not found/.test(e.message));
    await assert.rejects(client.experimental.tasks.getTask('nope'), (e) => e.code === -32602);
    await assert.rejects(client.experimental.tasks.listTasks('x'), (e) => e.code === -32602 && /invalid cursor/.test(e.message));
    // A submission the REST API refuses creates no task: the error says why.
    await assert.rejects(client.callTool({ name: 'submit_kernel', arguments: { op: 'vector_add', source: good, bench: ['nope'] } },
                                         CallToolResultSchema, { task: {} }),
                         (e) => e.code === -32602 && /submit_kernel: HTTP 4\d\d .*\(no task was created\)/.test(e.message));
  });

  await step('2025-11-25: tasks/result with a progressToken follows the working task: a progress notification per event, then notifications/tasks/status', async () => {
    const created = await client.request({ method: 'tools/call', params: { name: 'submit_kernel', arguments: submitArgs('tasks test: result progress') } },
                                         (await import('@modelcontextprotocol/sdk/types.js')).CreateTaskResultSchema, { task: {} });
    const id = created.task.taskId;
    const progress = [], statuses = [];
    const { TaskStatusNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
    client.setNotificationHandler(TaskStatusNotificationSchema, (n) => statuses.push(n.params));
    const r = await client.experimental.tasks.getTaskResult(id, CallToolResultSchema, { ...long, onprogress: (p) => progress.push(p) });
    assert.equal(r.structuredContent.status, 'accepted', text(r));
    assert.deepEqual(r._meta['io.modelcontextprotocol/related-task'], { taskId: id });
    // (Not the last ones: the SDK hands progress to onprogress a microtask late and drops what
    // arrives in the same read as the response, so the verdict's own notification may be lost.)
    assert.ok(progress.some((p) => /^state compiling/.test(p.message)), JSON.stringify(progress));
    assert.ok(progress.some((p) => /^compile done/.test(p.message)), JSON.stringify(progress));
    for (let i = 1; i < progress.length; ++i) assert.ok(progress[i].progress > progress[i - 1].progress);
    assert.ok(progress.every((p) => p._meta?.['io.modelcontextprotocol/related-task']?.taskId === id), JSON.stringify(progress[0]));
    // The status change it waited for, announced before the result.
    assert.deepEqual(statuses.map((t) => [t.taskId, t.status]), [[id, 'completed']]);
  });

  await step('2025-11-25: after logging/setLevel, a call that follows a candidate logs its events at that level and above', async () => {
    const logs = [];
    const { LoggingMessageNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
    await client.setLoggingLevel('notice');
    const r = await client.callTool({ name: 'get_verdict', arguments: { id: taskId, wait_s: 5 } }, undefined, long);
    assert.equal(r.structuredContent.status, 'accepted');
    assert.ok(logs.length >= 1, 'no log messages');
    assert.ok(logs.every((l) => l.logger === 'kwb' && ['notice', 'warning', 'error'].includes(l.level)), JSON.stringify(logs));
    const verdict = logs.find((l) => l.data.event?.kind === 'verdict');
    assert.equal(verdict.level, 'notice');
    assert.equal(verdict.data.candidate, taskId);
    assert.match(verdict.data.message, /^verdict accepted: /);
  });

  await step('2025-11-25: the non-task form still answers with progress notifications', async () => {
    const progress = [];
    const r = await client.callTool({ name: 'submit_kernel', arguments: submitArgs('tasks test: progress') }, undefined,
                                    { ...long, resetTimeoutOnProgress: true, onprogress: (p) => progress.push(p) });
    assert.equal(r.structuredContent.status, 'accepted', text(r));
    assert.equal(progress[0].message, `submitted ${r.structuredContent.id}`);
    assert.ok(progress.some((p) => /^state benchmarking/.test(p.message)), JSON.stringify(progress));
  });
  await client.close();
  client = null;

  wire = modernWire(agent);
  await step('2026-07-28: server/discover declares the tasks extension (and no 2025-11-25 tasks capability)', async () => {
    const r = await wire.call('server/discover', {});
    assert.deepEqual(r.result.capabilities.extensions, { 'io.modelcontextprotocol/tasks': {} });
    assert.equal(r.result.capabilities.tasks, undefined);
  });

  let modernId = null;
  await step('2026-07-28: a submit_kernel that would wait, with the extension, answers a flat CreateTaskResult', async () => {
    const r = await wire.call('tools/call', { name: 'submit_kernel', arguments: { ...submitArgs('tasks test: 2026'), wait_s: 120 } });
    assert.equal(r.result.resultType, 'task', JSON.stringify(r));
    modernId = r.result.taskId;
    assert.match(modernId, ID);
    assert.equal(r.result.status, 'working');
    assert.equal(r.result.ttlMs, null);
    assert.equal(r.result.pollIntervalMs, 1000);
    for (const legacy of ['task', 'ttl', 'pollInterval', 'result']) assert.ok(!(legacy in r.result), legacy);
  });

  await step('2026-07-28: without the extension, tasks/* are -32021 and submit_kernel answers in the call', async () => {
    const g = await wire.call('tasks/get', { taskId: modernId }, { tasks: false });
    assert.equal(g.error.code, -32021, JSON.stringify(g));
    assert.deepEqual(g.error.data.requiredCapabilities, { extensions: { 'io.modelcontextprotocol/tasks': {} } });
    if (!overStdio) assert.equal(g.http, 400);
    const s = await wire.call('tools/call', { name: 'submit_kernel', arguments: { ...submitArgs('tasks test: 2026 sync'), wait_s: 0 } }, { tasks: false });
    assert.equal(s.result.resultType, 'complete');
    assert.match(s.result.structuredContent.id, ID);
  });

  await step('2026-07-28: tasks/get polls to completed with the tool result inlined', async () => {
    let t;
    for (;;) {
      t = (await wire.call('tasks/get', { taskId: modernId })).result;
      assert.equal(t.resultType, 'complete');
      if (t.status !== 'working') break;
      await new Promise((r) => setTimeout(r, t.pollIntervalMs));
    }
    assert.equal(t.status, 'completed', JSON.stringify(t));
    assert.equal(t.result.structuredContent.status, 'accepted', JSON.stringify(t.result));
    assert.equal(t.result._meta?.['io.modelcontextprotocol/related-task'], undefined);
  });

  await step('2026-07-28: _meta logLevel asks one request for log messages; without it there are none', async () => {
    const quiet = await wire.call('tools/call', { name: 'get_verdict', arguments: { id: modernId, wait_s: 5 } });
    assert.equal(quiet.result.structuredContent.status, 'accepted');
    assert.deepEqual(quiet.notifications, []);
    const r = await wire.call('tools/call', { name: 'get_verdict', arguments: { id: modernId, wait_s: 5 } }, { logLevel: 'debug' });
    assert.equal(r.result.structuredContent.status, 'accepted');
    const logs = r.notifications.filter((n) => n.method === 'notifications/message').map((n) => n.params);
    assert.ok(logs.some((l) => l.level === 'debug' && l.data.event?.kind === 'stage'), JSON.stringify(logs));
    assert.ok(logs.some((l) => l.level === 'info' && l.data.event?.kind === 'state'), JSON.stringify(logs));
    assert.ok(logs.some((l) => l.level === 'notice' && l.data.event?.kind === 'verdict' && l.data.candidate === modernId), JSON.stringify(logs));
    const bad = await wire.call('tools/call', { name: 'get_verdict', arguments: { id: modernId } }, { logLevel: 'loud' });
    assert.equal(bad.error.code, -32602);
    assert.match(bad.error.message, /logLevel: expected one of debug, info/);
  });

  await step('2026-07-28: tasks/cancel and tasks/update are empty acks; tasks/result does not exist; unknown ids are -32602', async () => {
    const c = await wire.call('tasks/cancel', { taskId: modernId });  // terminal: the same ack (idempotent)
    assert.deepEqual(Object.keys(c.result).filter((k) => k !== '_meta'), ['resultType']);
    const u = await wire.call('tasks/update', { taskId: modernId, inputResponses: {} });
    assert.equal(u.result.resultType, 'complete');
    const r = await wire.call('tasks/result', { taskId: modernId });
    assert.equal(r.error.code, -32601);
    const n = await wire.call('tasks/get', { taskId: 'c-0000000000000000' });
    assert.equal(n.error.code, -32602);
    if (!overStdio) {
      const m = await wire.call('tasks/get', { taskId: modernId }, { name: 'c-1111111111111111' });
      assert.equal(m.http, 400);
      assert.equal(m.error.code, -32020, JSON.stringify(m));
    }
  });
  await wire.close();
  wire = null;

  console.log(`${passed} passed, 0 failed`);
} catch (e) {
  console.error(e);
  console.error(`daemon log (tail):\n${daemon.log().slice(-4000)}`);
  console.log(`${passed} passed, 1 failed`);
  process.exitCode = 1;
} finally {
  // A failed step leaves a `kwb mcp` child with its stdin open: end it, so the test ends too.
  wire?.kill();
  await client?.close().catch(() => {});
  await daemon.stop();
}
