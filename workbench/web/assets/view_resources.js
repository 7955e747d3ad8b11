// The candidate's resources beside the incumbent's (docs/verdict.md "Resources"): per timed bench
// workload and kernel, registers, spills, shared memory, barriers and the theoretical occupancy
// with its limiter, the candidate's line over the incumbent's; a pair with a loss (occupancy down,
// spills up) is marked and its loss spelled out.
import { h, num } from './dom.js';

function cells(side) {
  if (!side) return [h('td', { colspan: 7, class: 'muted' }, 'no kernel to pair')];
  const o = side.occupancy;
  return [
    h('td', {}, h('code', {}, side.kernel), ` [${side.config}]`),
    h('td', { class: 'n' }, side.registers),
    h('td', { class: 'n' }, `${side.spill_store_bytes}/${side.spill_load_bytes}`),
    h('td', { class: 'n' }, `${side.static_smem_bytes} + ${side.dynamic_smem_bytes ?? '?'}`),
    h('td', { class: 'n' }, side.barriers),
    h('td', { class: 'n' }, o ? `${o.blocks_per_sm} blocks, ${o.warps_per_sm} warps (${num(o.pct, 0, '%')})` : '—'),
    h('td', {}, o ? o.limited_by || '—' : '—'),
  ];
}

// Null where the verdict has no resource diff (not compared, or a cpu candidate).
export function resourcesSection(v) {
  const r = v.summary?.resources;
  if (!r || !r.rows?.length) return null;
  const rows = [];
  for (const row of r.rows) {
    const lost = row.losses?.length > 0;
    const cls = lost ? 'res-loss' : '';
    rows.push(h('tr', { class: cls, 'data-workload': row.workload, 'data-side': 'candidate' },
      h('th', { scope: 'row', rowspan: lost ? 3 : 2 }, row.workload), h('td', {}, 'candidate'), cells(row.candidate)));
    rows.push(h('tr', { class: cls, 'data-workload': row.workload, 'data-side': 'incumbent' },
      h('td', {}, 'incumbent'), cells(row.incumbent)));
    if (lost)
      rows.push(h('tr', { class: 'res-loss res-loss-text' }, h('td', { colspan: 8 }, `Loss: ${row.losses.join('; ')}`)));
  }
  return h('section', { 'aria-labelledby': 'h-resources' }, h('h2', { id: 'h-resources' }, 'Resources against the incumbent'),
    r.losses?.length ? h('ul', { id: 'resource-losses', class: 'error' }, r.losses.map((l) => h('li', {}, l)))
                     : h('p', { id: 'resource-losses' }, 'No resource loss against the incumbent.'),
    h('table', { class: 'data', id: 'resources' },
      h('caption', {}, 'Per bench workload and kernel, each under the config it times the workload with'),
      h('thead', {}, h('tr', {}, ['Workload', 'Side', 'Kernel [config]', 'Registers', 'Spills st/ld B', 'Smem static + dyn B',
        'Barriers', 'Occupancy', 'Limiter'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, rows)));
}
