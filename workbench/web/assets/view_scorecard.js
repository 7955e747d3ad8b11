// The library's scorecard on the ops page (GET /v1/library/report, docs/library.md "Scorecard"):
// where the figures come from, per op family the share of rows at the bar and the geomean, every
// row against the fastest other implementation with its roofs, and the rows below the bar.
import { h, ns, num, ratio, when } from './dom.js';

function pct(v) { return v === null || v === undefined ? '—' : num(v * 100, 1, '%'); }

export function scorecardSection(report) {
  const source = report.source || {};
  const bar = report.bar ?? 0.99;
  const families = (report.families || []).map((f) => h('tr', {},
    h('th', { scope: 'row' }, f.op),
    h('td', { class: 'n' }, `${f.at_bar} / ${f.compared}`),
    h('td', { class: 'n' }, pct(f.share_at_bar)),
    h('td', { class: 'n' }, ratio(f.geomean_vs_fastest)),
    h('td', { class: 'n' }, String(f.unrivalled)),
    h('td', { class: 'n' }, String(f.rows))));
  const rows = (report.rows || []).map((r) => h('tr', { class: r.vs_fastest !== null && r.vs_fastest < bar ? 'below' : null },
    h('th', { scope: 'row' }, r.op),
    h('td', {}, r.variant),
    h('td', {}, `${r.backend} · ${r.device_class}`),
    h('td', {}, r.workload),
    h('td', { class: 'n' }, ns(r.incumbent_ns)),
    h('td', {}, r.fastest ? [ns(r.fastest.ns), ' ', h('code', {}, r.fastest.name)] : '—'),
    h('td', { class: 'n' }, ratio(r.vs_fastest)),
    h('td', { class: 'n' }, num(r.roofline?.pct_bw, 1, '%')),
    h('td', { class: 'n' }, num(r.roofline?.pct_bw_sheet, 1, '%')),
    h('td', {}, r.status + (r.stale ? ' (stale)' : ''), r.status !== 'measured' && r.reason ? `: ${r.reason}` : '')));
  const below = (report.below_bar || []).map((b) =>
    h('li', {}, `${b.op}/${b.variant}/${b.backend} ${b.device_class} ${b.workload}: ${ratio(b.vs_fastest)}, `,
      `${num(b.gap_pct, 1, '%')} behind `, h('code', {}, b.fastest)));
  return h('section', { id: 'scorecard', 'aria-labelledby': 'scorecard-title' },
    h('h2', { id: 'scorecard-title' }, 'Scorecard'),
    h('p', { id: 'scorecard-source' }, `Figures ${source.kind || 'none'}: ${source.detail || ''}`,
      source.measured_at ? ` (${when(source.measured_at)})` : '',
      `. The bar: ${ratio(bar)} the fastest other implementation (vendor baselines and the library's other kernels).`),
    h('table', { class: 'data', id: 'scorecard-families' },
      h('caption', {}, 'Per op family: rows at the bar among those compared'),
      h('thead', {}, h('tr', {}, ['Op', 'At the bar', 'Share', 'Geomean vs fastest', 'Unrivalled', 'Rows']
        .map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, families)),
    h('table', { class: 'data', id: 'scorecard-rows' },
      h('caption', {}, 'Incumbent per bench workload against the fastest other implementation'),
      h('thead', {}, h('tr', {}, ['Op', 'Variant', 'Device class', 'Workload', 'Incumbent', 'Fastest other', 'vs fastest',
        '% of calibrated bandwidth', '% of data-sheet bandwidth', 'Status'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, rows)),
    h('h3', {}, `Below the bar: ${below.length || 'none'}`),
    below.length ? h('ul', { id: 'scorecard-below' }, below) : null);
}
