// The daemon's JSON API with the token the reviewer typed. The token lives in this browser's
// localStorage and travels only as an Authorization header set by this code: no cookie, so a
// request another site makes the browser send carries no credential (docs/web.md).
const KEY = 'kwb.token';

export const token = {
  get: () => localStorage.getItem(KEY) || '',
  set: (t) => localStorage.setItem(KEY, t),
  clear: () => localStorage.removeItem(KEY),
};

export class ApiError extends Error {
  constructor(status, type, message) {
    super(message);
    this.status = status;
    this.type = type;
  }
}

function headers(extra = {}) {
  const h = { Accept: 'application/json', ...extra };
  const t = token.get();
  if (t) h.Authorization = 'Bearer ' + t;
  return h;
}

async function fail(res) {
  let type = 'http_error', message = `HTTP ${res.status}`;
  try {
    const j = await res.json();
    if (j && j.error) ({ type, message } = j.error);
  } catch { /* not JSON */ }
  return new ApiError(res.status, type, message);
}

export async function get(path) {
  const res = await fetch(path, { headers: headers(), credentials: 'omit' });
  if (!res.ok) throw await fail(res);
  return res.json();
}

export async function text(path) {
  const res = await fetch(path, { headers: headers({ Accept: 'text/plain' }), credentials: 'omit' });
  if (!res.ok) throw await fail(res);
  return res.text();
}

export async function post(path, body) {
  const res = await fetch(path, {
    method: 'POST', credentials: 'omit',
    headers: headers({ 'Content-Type': 'application/json' }),
    body: JSON.stringify(body ?? {}),
  });
  if (!res.ok) throw await fail(res);
  return res.json();
}

// Who the token is (GET /v1/whoami): its role decides which controls a page offers; the API
// decides what is allowed, whatever the page shows.
export async function whoami() {
  // Without a token, ask only whether the daemon needs one (GET /v1/health needs none): a
  // --no-auth daemon serves everyone as admin.
  if (!token.get() && (await get('/v1/health')).auth) return { signedIn: false, reviewer: false, problem: '' };
  try {
    const me = await get('/v1/whoami');
    return { signedIn: true, reviewer: me.role !== 'agent', name: me.name, role: me.role };
  } catch (e) {
    if (e.status === 401) return { signedIn: false, reviewer: false, problem: token.get() ? e.message : '' };
    throw e;
  }
}

// Server-Sent Events over fetch (EventSource cannot send an Authorization header): calls
// onEvent({id, at, kind, data}) per event until the stream ends or signal aborts.
export async function events(path, onEvent, signal) {
  const res = await fetch(path, { headers: headers({ Accept: 'text/event-stream' }), credentials: 'omit', signal });
  if (!res.ok) throw await fail(res);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let at;
    while ((at = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, at);
      buf = buf.slice(at + 2);
      const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
      if (data) onEvent(JSON.parse(data));
    }
  }
}
