// Library history: per op the commits that touched it with their trailers, and a timeline of
// the incumbent's speed over promotions (the product of the Kwb-Speedup trailers, per backend and
// device class: 1 is the first kernel of the class, 2 twice as fast).
import { get } from './api.js';
import { h, clear, when } from './dom.js';
import { timeline } from './plot.js';

function speedSeries(history) {
  const byClass = {};
  for (const c of [...history].reverse()) {  // oldest first
    const t = c.trailers || {};
    if (!t['Kwb-Candidate']) continue;
    const key = `${t['Kwb-Variant'] || ''} ${t['Kwb-Backend'] || ''} ${t['Kwb-Device-Class'] || ''}`.trim();
    const s = (byClass[key] ||= { level: 1, points: [] });
    const up = Number(t['Kwb-Speedup']);
    if (Number.isFinite(up) && up > 0) s.level *= up;
    s.points.push({ t: new Date(typeof c.time === 'number' ? c.time * 1000 : c.time), value: s.level,
                    label: `${c.commit.slice(0, 10)} ${t['Kwb-Candidate']}` });
  }
  return byClass;
}

export async function historyView(view, only, session) {
  const specs = await get('/v1/specs');
  const ops = specs.specs.map((s) => s.op).sort().filter((op) => !only || op === only);
  const libs = await Promise.all(ops.map((op) => get(`/v1/library/${op}`)));
  const sections = libs.map((lib) => {
    const series = speedSeries(lib.history);
    const charts = Object.entries(series).map(([key, s]) => h('figure', {},
      timeline(s.points, `${lib.op} ${key}: incumbent speed over promotions, relative to the first kernel`),
      h('figcaption', {}, `${lib.op} ${key}: incumbent speed relative to the first kernel (product of Kwb-Speedup)`)));
    const rows = lib.history.map((c) => h('tr', {},
      h('td', {}, h('code', {}, c.commit.slice(0, 12))),
      h('td', {}, when(typeof c.time === 'number' ? new Date(c.time * 1000).toISOString() : c.time)),
      h('td', {}, c.summary),
      h('td', {}, h('dl', { class: 'trailers' }, Object.entries(c.trailers || {}).map(([k, v]) => [h('dt', {}, k),
        h('dd', {}, k === 'Kwb-Candidate' ? h('a', { href: `#/candidate/${v}` }, v) : v)])))));
    return h('section', { 'aria-labelledby': `h-${lib.op}`, class: 'op-history', 'data-op': lib.op },
      h('h2', { id: `h-${lib.op}` }, lib.op),
      charts.length ? charts : h('p', { class: 'muted' }, 'No promotion yet: the seeded kernels are the incumbents.'),
      h('table', { class: 'data history' },
        h('caption', {}, `Library commits touching ${lib.op}`),
        h('thead', {}, h('tr', {}, ['Commit', 'Time', 'Summary', 'Trailers'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, rows)));
  });
  clear(view).append(h('h1', {}, 'Library history'), ...sections);
  return null;
}
