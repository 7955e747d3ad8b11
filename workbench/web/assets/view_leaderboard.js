// Leaderboard of an op and backend: accepted candidates ranked by the daemon (GET
// /v1/leaderboard/{op}: sort, decision filter, offset pages), or, for another verdict status, the
// candidates with that status newest first (GET /v1/candidates, pages by `before`).
import { get } from './api.js';
import { h, clear, ratio, when } from './dom.js';

const PAGE = 25;
const STATUSES = ['accepted', 'incorrect', 'compile_error', 'rejected', 'sandbox_violation', 'time_limit',
                  'memory_limit', 'output_limit', 'crashed', 'no_device', 'error'];

function link(op, q) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== null && v !== '') p.set(k, v);
  return `#/leaderboard/${op}?${p}`;
}

function select(id, label, value, options, onChange) {
  return [h('label', { for: id }, label),
    h('select', { id, onchange: (e) => onChange(e.target.value) },
      options.map(([v, t]) => h('option', { value: v, selected: v === value }, t)))];
}

export async function leaderboardView(view, op, q, session) {
  const state = {
    backend: q.get('backend') || 'cpu', status: q.get('status') || 'accepted', decision: q.get('decision') || '',
    sort: q.get('sort') || 'speedup', offset: Number(q.get('offset') || 0), before: q.get('before') || '',
  };
  const go = (change) => {
    const target = link(op, { ...state, offset: 0, before: '', ...change });
    if (location.hash === target) return;
    document.body.dataset.ready = 'false';  // until the new view is drawn (app.js)
    location.hash = target;
  };
  const controls = h('div', { class: 'controls', role: 'group', 'aria-label': 'Leaderboard filters' },
    select('lb-backend', 'Backend', state.backend, [['cpu', 'cpu'], ['cuda', 'cuda'], ['cuda-launcher', 'cuda-launcher']],
      (v) => go({ backend: v })),
    select('lb-status', 'Status', state.status, STATUSES.map((s) => [s, s]), (v) => go({ status: v })),
    state.status === 'accepted'
      ? select('lb-decision', 'Decision', state.decision, [['', 'any'], ['pending', 'pending'], ['promoted', 'promoted'],
        ['rejected', 'rejected']], (v) => go({ decision: v }))
      : null);
  let table, pager, summary;
  if (state.status === 'accepted') {
    const p = new URLSearchParams({ limit: PAGE, offset: state.offset, sort: state.sort, backend: state.backend });
    if (state.decision) p.set('decision', state.decision);
    const board = await get(`/v1/leaderboard/${encodeURIComponent(op)}?${p}`);
    const sortButton = (key, text) => h('button', {
      type: 'button', class: 'sort', 'aria-pressed': state.sort === key ? 'true' : 'false',
      'aria-label': `Sort by ${text}`, onclick: () => go({ sort: key }),
    }, text, state.sort === key ? ' ▼' : '');
    table = h('table', { class: 'data', id: 'leaderboard' },
      h('caption', {}, `Accepted ${op} candidates on ${state.backend}, ${state.sort === 'newest' ? 'newest' : 'fastest against the incumbent'} first`),
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, '#'), h('th', { scope: 'col' }, 'Candidate'), h('th', { scope: 'col' }, 'Author'),
        h('th', { scope: 'col', 'aria-sort': state.sort === 'speedup' ? 'descending' : 'none' }, sortButton('speedup', 'Geomean vs incumbent')),
        h('th', { scope: 'col' }, 'Beats incumbent'), h('th', { scope: 'col' }, 'Decision'),
        h('th', { scope: 'col', 'aria-sort': state.sort === 'newest' ? 'descending' : 'none' }, sortButton('newest', 'Finished')),
        h('th', { scope: 'col' }, 'Note'))),
      h('tbody', {}, board.candidates.map((c, i) => h('tr', {},
        h('td', { class: 'n' }, state.offset + i + 1),
        h('td', {}, h('a', { href: `#/candidate/${c.id}` }, c.id),
          c.same_source_as ? h('span', { class: 'muted' }, ` same source as ${c.same_source_as}`) : null,
          c.bench_subset ? h('span', { class: 'badge' }, 'bench subset') : null),
        h('td', {}, c.author || '—'),
        h('td', { class: 'n' }, ratio(c.geomean_vs_incumbent)),
        h('td', {}, c.beats_incumbent === null ? '—' : c.beats_incumbent ? 'yes' : 'no'),
        h('td', {}, c.decision || 'pending'),
        h('td', {}, when(c.finished_at)),
        h('td', {}, c.note || '')))));
    summary = h('p', { id: 'lb-summary' }, `${board.total} accepted candidates, ${board.distinct_sources} distinct sources; rows ${board.total ? state.offset + 1 : 0}–${state.offset + board.candidates.length}.`);
    pager = h('nav', { class: 'pager', 'aria-label': 'Pages' },
      h('button', { type: 'button', disabled: state.offset === 0, onclick: () => go({ sort: state.sort, decision: state.decision, offset: Math.max(0, state.offset - PAGE) }) }, 'Previous page'),
      h('button', { type: 'button', disabled: !board.next, onclick: () => go({ sort: state.sort, decision: state.decision, offset: state.offset + PAGE }) }, 'Next page'));
  } else {
    const p = new URLSearchParams({ op, status: state.status, limit: PAGE });
    if (state.before) p.set('before', state.before);
    const list = await get(`/v1/candidates?${p}`);
    const items = list.items.filter((c) => c.backend === state.backend);
    table = h('table', { class: 'data', id: 'leaderboard' },
      h('caption', {}, `${op} candidates with status ${state.status}, newest first`),
      h('thead', {}, h('tr', {}, ['Candidate', 'Backend', 'Finished', 'Note'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, items.map((c) => h('tr', {},
        h('td', {}, h('a', { href: `#/candidate/${c.id}` }, c.id)), h('td', {}, c.backend),
        h('td', {}, when(c.finished_at)), h('td', {}, c.note || '')))));
    const before = list.next ? new URLSearchParams(list.next.split('?')[1]).get('before') : '';
    summary = h('p', { id: 'lb-summary' }, `${items.length} shown on this page.`);
    pager = h('nav', { class: 'pager', 'aria-label': 'Pages' },
      h('button', { type: 'button', disabled: !before, onclick: () => go({ status: state.status, before }) }, 'Older'));
  }
  clear(view).append(h('h1', {}, `Leaderboard: ${op}`), controls, summary, table, pager);
  return null;
}
