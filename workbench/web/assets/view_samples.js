// A candidate's raw samples (docs/verdict.md "Samples"): per timed bench workload a histogram of
// its samples (GET /v1/candidates/{id}/artifacts/samples, kwb.samples.v1) with its median, and,
// once the comparison with the incumbent is in, a histogram of the block pairs' ratios
// (.../artifacts/blocks, kwb.blocks.v1) with 1 and the comparison's ratio marked. Each artifact
// is asked for only where the verdict names it (summary.samples_sha256, blocks_sha256).
import { get } from './api.js';
import { h, ns, num, ratio } from './dom.js';
import { histogram } from './plot.js';

const median = (xs) => {
  const v = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return v.length ? (v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2) : null;
};

// The artifacts the verdict names, fetched; an artifact that cannot be read is an error shown
// in the section, not a failure of the page.
export async function fetchSamples(id, v) {
  const want = (sha, kind) => (sha ? get(`/v1/candidates/${id}/artifacts/${kind}`).catch((e) => ({ error: e })) : null);
  const [samples, blocks] = await Promise.all([want(v.summary?.samples_sha256, 'samples'), want(v.summary?.blocks_sha256, 'blocks')]);
  return { samples, blocks };
}

function workloadFigure(w, timed, block) {
  const t = w.time || {};
  const parts = [];
  if (timed?.samples_ns?.length)
    parts.push(histogram(timed.samples_ns, {
      title: `Samples of ${w.name}: ${timed.samples_ns.length} calls timed by ${timed.clock || 'the clock'}`,
      fmt: ns, cls: 'hist-samples', marks: [{ value: t.median_ns ?? median(timed.samples_ns), label: 'median', cls: 'mark-median' }] }));
  if (block?.ratios?.length) {
    const c = w.comparison;
    parts.push(histogram(block.ratios, {
      title: `Block ratios of ${w.name} (incumbent / candidate, > 1: faster): ${block.ratios.length} block pairs`,
      fmt: (v) => num(v, 3, '×'), cls: 'hist-ratios',
      marks: [{ value: 1, label: 'same', cls: 'mark-one' }, { value: c?.ratio ?? median(block.ratios), label: 'ratio', cls: 'mark-ratio' }] }));
  }
  if (!parts.length) return null;
  const caption = [`${w.name}: ${timed?.samples_ns?.length ?? 0} samples, median ${ns(t.median_ns)}`];
  if (block?.ratios?.length) caption.push(`; ${block.ratios.length} block pairs, ratio ${ratio(w.comparison?.ratio)}`);
  return h('figure', { class: 'samples-plot', 'data-workload': w.name }, parts, h('figcaption', {}, caption));
}

export function samplesSection(v, { samples, blocks }) {
  const parts = [h('h2', { id: 'h-samples' }, 'Samples')];
  if (!samples) {
    parts.push(h('p', { class: 'muted' }, 'No samples kept for this verdict (nothing was timed).'));
    return h('section', { 'aria-labelledby': 'h-samples' }, parts);
  }
  for (const a of [samples, blocks]) if (a?.error) parts.push(h('p', { class: 'error' }, a.error.message));
  const byName = (artifact) => new Map((artifact && !artifact.error ? artifact.workloads : []).map((w) => [w.name, w]));
  const timed = byName(samples), pairs = byName(blocks);
  const figures = v.workloads.filter((w) => w.kind === 'bench').map((w) => workloadFigure(w, timed.get(w.name), pairs.get(w.name)))
    .filter(Boolean);
  parts.push(h('p', { class: 'muted' }, 'Every timed call of each bench workload in ns' +
    (blocks && !blocks.error ? ', and the ratio of each block pair timed interleaved with the incumbent' : '') +
    ' (the 0.5th to 99.5th percentile; values beyond it are counted in the edge bars).'));
  parts.push(h('div', { class: 'hist-grid', id: 'samples' }, figures));
  return h('section', { 'aria-labelledby': 'h-samples' }, parts);
}
