// A candidate's lineage (GET /v1/candidates/{id}/lineage, docs/api.md "Lineage"): the tree of
// attempts it belongs to through their parent links, each a link to its page with its status,
// its speed against the incumbent and its note; the verified best, the latest and this one marked.
import { h, ratio } from './dom.js';

function nodeItem(n, current) {
  const marks = [];
  if (n.id === current) marks.push(h('span', { class: 'badge mark-this' }, 'this'));
  if (n.best) marks.push(h('span', { class: 'badge mark-best' }, 'best'));
  if (n.latest) marks.push(h('span', { class: 'badge mark-latest' }, 'latest'));
  const status = n.status || n.state;
  const line = h('div', { class: 'attempt' },
    h('a', { href: `#/candidate/${n.id}` }, h('code', {}, n.id)), ' ',
    h('span', { class: `st-${status}` }, status),
    n.geomean_vs_incumbent !== null && n.geomean_vs_incumbent !== undefined ? ` · ${ratio(n.geomean_vs_incumbent)} vs incumbent` : '',
    n.promotable ? ' · promotable' : '', ' ', marks,
    n.note ? h('span', { class: 'muted' }, ` ${n.note}`) : '',
    n.reason ? h('div', { class: 'attempt-reason muted' }, n.reason) : '');
  return h('li', { 'data-id': n.id, 'data-best': String(!!n.best), 'data-latest': String(!!n.latest) }, line,
    n.children?.length ? h('ul', { class: 'lineage' }, n.children.map((c) => nodeItem(c, current))) : null);
}

export function lineageSection(lineage, current) {
  const parts = [h('h2', { id: 'h-lineage' }, 'Lineage')];
  if (lineage.error) {
    parts.push(h('p', { class: 'muted' }, lineage.error.message));
  } else {
    parts.push(h('p', { class: 'muted' }, `${lineage.count} attempt(s) through their parent links` +
      (lineage.truncated ? ` (the newest ${lineage.count} of ${lineage.total})` : '') + '; best: ' +
      (lineage.best || 'none accepted yet') + '; latest: ' + (lineage.latest || '—')));
    parts.push(h('ul', { class: 'lineage', id: 'lineage' }, lineage.roots.map((r) => nodeItem(r, current))));
  }
  return h('section', { 'aria-labelledby': 'h-lineage' }, parts);
}
