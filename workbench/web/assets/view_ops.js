// Ops overview: per op and backend (one device class each on a daemon) the incumbent, its best
// roofline % and ratio to the vendor baseline, and the op's latest candidates; then the library's
// scorecard (view_scorecard.js).
import { get } from './api.js';
import { h, clear, num, ratio } from './dom.js';
import { scorecardSection } from './view_scorecard.js';

function bestRoofline(verdict) {
  let best = null;
  for (const w of verdict?.workloads || []) {
    const r = w.roofline;
    if (!r) continue;
    const pct = Math.max(r.pct_bw ?? -1, r.pct_flops ?? -1);
    if (pct >= 0 && (best === null || pct > best)) best = pct;
  }
  return best;
}

export async function opsView(view, session) {
  const [specs, library, report] = await Promise.all([get('/v1/specs'), get('/v1/library'), get('/v1/library/report')]);
  const ops = specs.specs.map((s) => s.op).sort();
  const latest = Object.fromEntries(await Promise.all(ops.map(async (op) =>
    [op, (await get(`/v1/candidates?op=${encodeURIComponent(op)}&limit=3`)).items])));
  const verdicts = {};
  await Promise.all(library.entries.filter((e) => e.candidate).map(async (e) => {
    try { verdicts[e.candidate] = (await get(`/v1/candidates/${e.candidate}`)).verdict; } catch { /* from another workspace */ }
  }));
  const rows = [];
  for (const op of ops) {
    const entries = library.entries.filter((e) => e.op === op);
    const groups = entries.length ? entries : [{ op, backend: 'cpu', device_class: '—', kernel: null }];
    for (const e of groups) {
      const v = e.candidate ? verdicts[e.candidate] : null;
      rows.push(h('tr', {},
        h('th', { scope: 'row' }, h('a', { href: `#/leaderboard/${op}?backend=${e.backend}` }, op)),
        h('td', {}, e.variant || '—'),
        h('td', {}, `${e.backend} · ${e.device_class}`),
        h('td', {}, e.kernel ? h('code', {}, e.kernel) : 'none',
          e.candidate ? [' ', h('a', { href: `#/candidate/${e.candidate}` }, e.candidate)] : ' (seeded)'),
        h('td', { class: 'n' }, v ? num(bestRoofline(v), 1, '%') : '—'),
        h('td', { class: 'n' }, v ? ratio(v.summary?.geomean_vs_baseline) : '—'),
        h('td', {}, latest[op].length ? latest[op].map((c) =>
          h('a', { href: `#/candidate/${c.id}`, class: `badge st-${c.status || c.state}` }, c.status || c.state)) : 'none')));
    }
  }
  clear(view).append(
    h('h1', {}, 'Ops'),
    h('p', {}, `${ops.length} ops; library at commit `, h('code', {}, library.commit.slice(0, 12)), '.'),
    h('table', { class: 'data', id: 'ops' },
      h('caption', {}, 'Incumbent per op and device class, with the latest candidates'),
      h('thead', {}, h('tr', {}, ['Op', 'Variant', 'Device class', 'Incumbent', 'Best % of roofline', 'vs baseline', 'Latest candidates']
        .map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, rows)),
    scorecardSection(report));
  return null;
}
