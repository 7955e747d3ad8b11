// Serves `kwb mcp` (stdio) on a loopback HTTP endpoint, so that the conformance suite — which
// tests servers over Streamable HTTP only — can test the stdio server's messages. Every JSON-RPC
// message is `kwb mcp`'s, byte for byte; the bridge only carries them and adds what a stdio
// server has no say in: the HTTP status of the answer (as the 2026-07-28 HTTP binding maps
// JSON-RPC errors), the 2026-07-28 request headers' check against the body, and one process
// per 2025-11-25 session (a stdio process is one session; DELETE ends it).
//   node stdio_bridge.mjs --port-file F -- KWB_MCP_COMMAND...
import { spawn } from 'node:child_process';
import http from 'node:http';
import fs from 'node:fs';
import crypto from 'node:crypto';

const sep = process.argv.indexOf('--');
const portFile = process.argv[process.argv.indexOf('--port-file') + 1];
const command = process.argv.slice(sep + 1);

class StdioProcess {
  constructor() {
    this.child = spawn(command[0], command.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
    this.pending = new Map();  // JSON id -> {onMessage}
    let buf = '';
    this.child.stdout.on('data', (d) => {
      buf += d;
      for (let nl; (nl = buf.indexOf('\n')) >= 0; buf = buf.slice(nl + 1)) this.dispatch(buf.slice(0, nl));
    });
  }
  dispatch(line) {
    const msg = JSON.parse(line);  // kwb mcp writes JSON-RPC messages only: anything else is a failure
    if (msg.method === 'notifications/progress') {
      for (const p of this.pending.values()) if (p.token !== undefined && p.token === msg.params.progressToken) p.onMessage(msg, false);
      return;
    }
    const key = JSON.stringify(msg.id ?? null);
    const p = this.pending.get(key);
    if (p) { this.pending.delete(key); p.onMessage(msg, true); }
  }
  send(msg, onMessage) {
    if (msg.id !== undefined) this.pending.set(JSON.stringify(msg.id), { onMessage, token: msg.params?._meta?.progressToken });
    this.child.stdin.write(JSON.stringify(msg) + '\n');
  }
  close() { this.child.stdin.end(); }
}

const shared = new StdioProcess();  // 2026-07-28 requests: stateless, one process serves them all
const sessions = new Map();         // Mcp-Session-Id -> StdioProcess (2025-11-25)

function statusOf(msg, modern) {
  if (!modern || !msg.error) return 200;
  return msg.error.code === -32601 ? 404 : msg.error.code === -32603 ? 500 : 400;
}

function decodeName(v) {
  const m = /^=\?base64\?(.*)\?=$/.exec(v || '');
  return m ? Buffer.from(m[1], 'base64').toString('utf8') : v;
}

function headerProblem(req, msg) {
  const meta = msg.params?._meta?.['io.modelcontextprotocol/protocolVersion'];
  const h = req.headers['mcp-protocol-version'];
  if (typeof meta !== 'string') return null;  // kwb mcp answers the malformed _meta itself
  if (!h) return 'the MCP-Protocol-Version header is required';
  if (h !== meta) return `MCP-Protocol-Version header '${h}' does not match _meta's '${meta}'`;
  if (req.headers['mcp-method'] !== msg.method) return `Mcp-Method header does not match the body's method '${msg.method}'`;
  const field = msg.method === 'resources/read' ? 'uri' : ['tools/call', 'prompts/get'].includes(msg.method) ? 'name'
              : ['tasks/get', 'tasks/update', 'tasks/cancel'].includes(msg.method) ? 'taskId' : null;
  if (field && typeof msg.params?.[field] === 'string' && decodeName(req.headers['mcp-name']) !== msg.params[field])
    return `Mcp-Name header does not match the body's params.${field}`;
  return null;
}

const server = http.createServer((req, res) => {
  // The daemon's rule (mcp/http_endpoint.cpp): Host localhost or an IP, Origin loopback or own.
  const origin = req.headers.origin, hostName = (req.headers.host || '').replace(/:\d+$/, '');
  const hostOk = /^(localhost|\[.*\]|[0-9.]+)$/.test(hostName);
  if (!hostOk || (origin && !/^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(origin) && origin !== `http://${req.headers.host}`)) {
    res.writeHead(403, { 'Content-Type': 'application/json' });
    return res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message: `Forbidden: Origin ${origin}` } }));
  }
  const sid = req.headers['mcp-session-id'];
  if (req.method === 'DELETE' && sid) {
    const p = sessions.get(sid);
    if (!p) { res.writeHead(404); return res.end(); }
    sessions.delete(sid); p.close();
    res.writeHead(204); return res.end();
  }
  if (req.method !== 'POST') { res.writeHead(405, { Allow: 'POST, DELETE' }); return res.end(); }
  let body = '';
  req.on('data', (d) => { body += d; });
  req.on('end', () => {
    let msg;
    try { msg = JSON.parse(body); } catch {
      res.writeHead(400, { 'Content-Type': 'application/json' });
      return res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } }));
    }
    const hv = req.headers['mcp-protocol-version'];
    const modern = hv === '2026-07-28' || (hv && hv !== '2025-11-25' && !sid) ||
                   (!sid && msg.params?._meta?.['io.modelcontextprotocol/protocolVersion'] !== undefined && msg.method !== 'initialize');
    let proc = shared, newSession = null;
    if (!modern) {
      if (msg.method === 'initialize') { newSession = crypto.randomUUID(); proc = new StdioProcess(); sessions.set(newSession, proc); }
      else if (!sid) { res.writeHead(400); return res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32600, message: 'no Mcp-Session-Id' } })); }
      else if (!(proc = sessions.get(sid))) { res.writeHead(404); return res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32600, message: 'Session not found' } })); }
    } else {
      const problem = headerProblem(req, msg);
      if (problem) {
        res.writeHead(400, { 'Content-Type': 'application/json' });
        return res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32020, message: `Header mismatch: ${problem}` } }));
      }
    }
    if (msg.id === undefined) { proc.send(msg); res.writeHead(202); return res.end(); }
    const sse = msg.method === 'tools/call' && msg.params?._meta?.progressToken !== undefined &&
                (req.headers.accept || '').includes('text/event-stream');
    if (sse) res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    proc.send(msg, (out, final) => {
      if (sse) {
        res.write(`event: message\ndata: ${JSON.stringify(out)}\n\n`);
        if (final) res.end();
        return;
      }
      if (!final) return;
      const headers = { 'Content-Type': 'application/json' };
      if (newSession && !out.error) headers['Mcp-Session-Id'] = newSession;
      res.writeHead(statusOf(out, modern), headers);
      res.end(JSON.stringify(out));
    });
  });
});

server.listen(0, '127.0.0.1', () => fs.writeFileSync(portFile, String(server.address().port)));
process.on('SIGTERM', () => { shared.close(); for (const p of sessions.values()) p.close(); server.close(); process.exit(0); });
