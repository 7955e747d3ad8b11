// A candidate: live stage progress (the SSE stream), the verdict per workload with its noise
// and the comparison with the incumbent, the roofline plot, the histograms of its samples
// (view_samples.js), diagnostics at their source lines, the side-by-side diff against the
// incumbent, compiler facts and the resources beside the incumbent's (view_resources.js), the
// review buttons, and the tree of
// attempts it belongs to (view_lineage.js).
import { get, text, post, events } from './api.js';
import { h, clear, ns, num, ratio, params, when } from './dom.js';
import { roofline } from './plot.js';
import { sideBySide, fileNames } from './diff.js';
import { highlightLine, highlightLines } from './highlight.js';
import { lineageSection } from './view_lineage.js';
import { resourcesSection } from './view_resources.js';
import { fetchSamples, samplesSection } from './view_samples.js';

const STAGES = ['analyze', 'compile', 'validate', 'benchmark', 'decide'];
const TERMINAL = new Set(['done', 'cancelled']);

function stageList() {
  const items = Object.fromEntries(STAGES.map((s) => [s, h('li', { class: 'stage', 'data-stage': s, 'data-status': 'waiting' },
    h('span', { class: 'stage-name' }, s), h('span', { class: 'stage-detail' }, 'waiting'))]));
  const progress = h('p', { id: 'progress', class: 'muted', role: 'status' });
  const list = h('ol', { class: 'stages', id: 'stages', 'aria-label': 'Evaluation stages' }, Object.values(items));
  const apply = (ev) => {
    const d = ev.data || {};
    if (ev.kind === 'stage' && items[d.stage]) {
      const li = items[d.stage];
      // A stage once done stays done (a replayed or relayed start never moves it back).
      if (!d.finished && li.dataset.status === 'done') return;
      li.dataset.status = d.finished ? 'done' : 'running';
      li.lastChild.textContent = d.finished ? (d.detail || 'done') : 'running';
    } else if (ev.kind === 'progress') {
      // Per workload (validate, benchmark), or a note of the decide stage's judge ({stage, detail}).
      progress.textContent = d.workload === undefined ? `${d.stage}: ${d.detail ?? ''}` :
        `${d.stage}: ${d.workload} (${d.kind})` + (d.samples ? `, ${d.samples} samples` : '') +
        (d.count ? `, ${(d.index ?? 0) + 1} of ${d.count}` : '');
    } else if (ev.kind === 'verdict') {
      progress.textContent = `verdict: ${d.status}` + (d.comparison === 'pending' ? ' · comparison with the incumbent running' : '');
    } else if (ev.kind === 'comparison') {
      progress.textContent = `decision: ${d.promotable ? 'promotable' : 'not promotable'}: ${d.reason ?? ''}`;
    }
  };
  return { node: h('section', { 'aria-labelledby': 'h-stages' }, h('h2', { id: 'h-stages' }, 'Stages'), list, progress), apply };
}

function pctOf(w) {
  const r = w.roofline || {};
  const parts = [];
  if (r.pct_bw !== null && r.pct_bw !== undefined) parts.push(num(r.pct_bw, 1, '% bw'));
  if (r.pct_flops !== null && r.pct_flops !== undefined) parts.push(num(r.pct_flops, 1, '% flops'));
  return parts.join(' · ') || '—';
}

function verdictTable(v) {
  const bench = v.workloads.filter((w) => w.kind === 'bench');
  const rows = bench.map((w) => {
    const t = w.time || {}, c = w.comparison;
    return h('tr', { 'data-workload': w.name },
      h('th', { scope: 'row' }, w.name), h('td', {}, params(w.params)),
      h('td', { class: 'n median' }, ns(t.median_ns)), h('td', { class: 'n stdev' }, num(t.stdev_pct, 2, '%')),
      h('td', { class: 'n samples' }, t.samples ?? '—'), h('td', { class: 'n' }, pctOf(w)),
      h('td', { class: 'n vs-incumbent' }, ratio(w.vs_incumbent)),
      h('td', { class: 'n interval' }, c ? `[${num(c.low, 3)}, ${num(c.high, 3)}] at ${num(Math.floor((c.confidence ?? 0) * 1000) / 10, 1, '%')}` : '—'),
      h('td', { class: `label lbl-${c ? c.label : 'none'}` }, c ? c.label : '—'),
      h('td', { class: 'n' }, ratio(w.vs_baseline)));
  });
  const tests = v.workloads.filter((w) => w.kind !== 'bench');
  const wrong = tests.filter((w) => !w.correct);
  return h('section', { 'aria-labelledby': 'h-verdict' },
    h('h2', { id: 'h-verdict' }, 'Verdict'),
    h('p', { class: `verdict-status st-${v.status}`, id: 'verdict-status' }, v.status),
    h('p', { id: 'verdict-reason' }, v.reason),
    h('p', { class: 'muted' }, `${v.device} · ${v.toolchain}`),
    h('p', {}, `Geomean against the incumbent: ${ratio(v.summary?.geomean_vs_incumbent)}; `,
      `beats it: ${v.summary?.beats_incumbent === null || v.summary?.beats_incumbent === undefined ? 'not compared' : v.summary.beats_incumbent ? 'yes' : 'no'}`,
      v.summary?.decision ? ` (${v.summary.decision.reason})` : ''),
    h('table', { class: 'data', id: 'verdict-table' },
      h('caption', {}, 'Bench workloads: median, noise and the interleaved comparison with the incumbent (ratio > 1: faster)'),
      h('thead', {}, h('tr', {}, ['Workload', 'Params', 'Median', 'Stdev', 'Samples', 'Roofline', 'vs incumbent',
        'Interval', 'Label', 'vs baseline'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, rows)),
    h('p', { id: 'tests-summary' }, `${tests.length - wrong.length} of ${tests.length} test workloads correct`,
      wrong.length ? ` (wrong: ${wrong.map((w) => w.name).join(', ')})` : ''));
}

function rooflineSection(v) {
  const bench = v.workloads.filter((w) => w.kind === 'bench' && w.time && w.roofline);
  const points = [];
  for (const w of bench) {
    const bytes = w.roofline.bytes, flops = w.roofline.flops;
    const intensity = bytes > 0 ? flops / bytes : 0;
    const cand = w.time.median_ns;
    points.push({ workload: w.name, who: 'candidate', intensity, flops_per_s: flops / (cand * 1e-9) });
    const inc = w.comparison?.incumbent_ns ?? (w.vs_incumbent ? cand * w.vs_incumbent : null);
    if (inc) points.push({ workload: w.name, who: 'incumbent', intensity, flops_per_s: flops / (inc * 1e-9) });
  }
  const roofs = [];
  for (const r of bench[0]?.feedback?.roofline || [])
    if (r.bytes_per_s) roofs.push({ label: `${r.peaks === 'data_sheet' ? 'data sheet' : 'calibrated'}: ${(r.bytes_per_s / 1e9).toFixed(1)} GB/s` +
      (r.flops_per_s ? `, ${(r.flops_per_s / 1e12).toFixed(2)} Tflop/s` : ''), bytes_per_s: r.bytes_per_s, flops_per_s: r.flops_per_s });
  const plotted = points.filter((p) => p.intensity > 0 && p.flops_per_s > 0);
  return h('section', { 'aria-labelledby': 'h-roofline' }, h('h2', { id: 'h-roofline' }, 'Roofline'),
    plotted.length ? roofline(points, roofs, `Roofline of ${v.candidate}: a point per bench workload for the candidate and the incumbent`)
                   : h('p', {}, 'No bench workload with flops to place on a roofline.'),
    plotted.length < points.length ? h('p', { class: 'muted' }, 'Workloads without flops (pure data movement) are not on the plot.') : null);
}

// Nsight Compute's profile of each bench workload and the sanitizer's outcome (docs/profiles.md).
function profileSection(v) {
  const pct = (x) => (x === null || x === undefined ? '—' : `${num(x, 0)}%`);
  const rows = [];
  for (const w of v.workloads.filter((x) => x.kind === 'bench'))
    for (const k of w.feedback?.profile || [])
      rows.push(h('tr', {}, h('th', { scope: 'row' }, w.name), h('td', {}, k.kernel),
        h('td', { class: 'n' }, pct(k.dram_sol_pct)), h('td', { class: 'n' }, pct(k.sm_sol_pct)),
        h('td', { class: 'n' }, `${pct(k.achieved_occupancy_pct)} of ${pct(k.theoretical_occupancy_pct)}${k.occupancy_limiter ? ` (${k.occupancy_limiter})` : ''}`),
        h('td', {}, h('ul', { class: 'findings' }, (k.findings || []).map((f) => h('li', {}, f))))));
  if (!v.profile && !v.sanitizer) return null;
  return h('section', { 'aria-labelledby': 'h-profile' }, h('h2', { id: 'h-profile' }, 'Profile and sanitizer'),
    v.profile ? h('p', { id: 'profile-status' }, `Profile: ${v.profile.status}: ${v.profile.reason}`) : null,
    rows.length ? h('table', { class: 'data', id: 'profile-table' },
      h('caption', {}, 'Nsight Compute, per bench workload and kernel: speed of light, occupancy and what to do'),
      h('thead', {}, h('tr', {}, ['Workload', 'Kernel', 'DRAM', 'SM', 'Occupancy', 'Findings'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, rows)) : null,
    v.sanitizer ? h('p', { id: 'sanitizer-status' }, `compute-sanitizer: ${v.sanitizer.status}: ${v.sanitizer.reason}`) : null);
}

function diagnosticsSection(v, source) {
  const lines = source.split('\n');
  const items = (v.diagnostics || []).map((d) => {
    const at = d.line > 0 && d.line <= lines.length ? d.line : null;
    return h('li', { class: `diag sev-${d.severity}` },
      h('span', { class: 'diag-where' }, `${d.file}:${d.line}:${d.col}`), ' ',
      h('span', { class: 'diag-sev' }, d.severity), d.rule ? h('span', { class: 'muted' }, ` [${d.rule}]`) : '', ' ', d.message,
      at ? h('pre', { class: 'diag-source' }, h('span', { class: 'ln' }, String(at)), highlightLine(lines[at - 1])[0]) : null);
  });
  return h('section', { 'aria-labelledby': 'h-diag' }, h('h2', { id: 'h-diag' }, 'Diagnostics'),
    items.length ? h('ul', { class: 'diags', id: 'diagnostics' }, items) : h('p', {}, 'None.'));
}

function diffSection(d) {
  const rows = sideBySide(d.diff);
  const names = fileNames(d.diff);
  let openL = false, openR = false;
  const body = rows.map((r) => {
    if (r.kind === 'gap') return h('tr', { class: 'gap' }, h('td', { colspan: 4 }, r.text));
    const cell = (side, open) => {
      if (!side) return [[h('td', { class: 'ln' }), h('td', { class: 'code-cell empty' })], open];
      const [node, still] = highlightLine(side.text, open);
      return [[h('td', { class: 'ln' }, String(side.n)), h('td', { class: 'code-cell' }, node)], still];
    };
    const [l, sl] = cell(r.left, openL), [rr, sr] = cell(r.right, openR);
    openL = sl;
    openR = sr;
    return h('tr', { class: `row-${r.kind}` }, l, rr);
  });
  const inc = d.incumbent ? `${d.incumbent.kernel} at ${d.incumbent.commit.slice(0, 12)}` : 'no incumbent (a new kernel)';
  return h('section', { 'aria-labelledby': 'h-diff' }, h('h2', { id: 'h-diff' }, 'Diff against the incumbent'),
    h('p', {}, `Incumbent: ${inc}.`, d.same_source?.length ? ` Same source as ${d.same_source.map((x) => x.id).join(', ')}.` : ''),
    h('div', { class: 'diff-wrap', tabindex: '0', role: 'region', 'aria-label': 'Side-by-side diff' },
      h('table', { class: 'diff', id: 'diff' },
        h('caption', {}, `${names.left} → ${names.right}`),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col', colspan: 2 }, names.left || 'incumbent'),
          h('th', { scope: 'col', colspan: 2 }, names.right || 'candidate'))),
        h('tbody', {}, body))));
}

function factsSection(v) {
  const facts = v.compiler_facts || [];
  if (!facts.length) return null;
  const rows = [];
  for (const f of facts)
    for (const k of f.kernels || [])
      rows.push(h('tr', {}, h('td', {}, f.config), h('td', {}, h('code', {}, k.kernel)), h('td', { class: 'n' }, k.registers),
        h('td', { class: 'n' }, `${k.spill_store_bytes ?? 0}/${k.spill_load_bytes ?? 0}`), h('td', { class: 'n' }, k.static_smem_bytes),
        h('td', { class: 'n' }, (k.occupancy || []).map((o) => `${num(o.pct, 0, '%')} (${o.limited_by})`).join(', ') || '—'),
        h('td', {}, Object.entries(k.instructions || {}).filter(([, n]) => n).map(([n, c]) => `${n} ${c}`).join(', '))));
  return h('section', { 'aria-labelledby': 'h-facts' }, h('h2', { id: 'h-facts' }, 'Compiler facts'),
    h('table', { class: 'data', id: 'compiler-facts' },
      h('thead', {}, h('tr', {}, ['Config', 'Kernel', 'Registers', 'Spills st/ld', 'Static smem', 'Occupancy', 'Instructions']
        .map((t) => h('th', { scope: 'col' }, t)))), h('tbody', {}, rows)));
}

function reviewSection(cand, session, rerender) {
  const out = h('p', { id: 'review-result', role: 'status' });
  const parts = [h('h2', { id: 'h-review' }, 'Review')];
  if (cand.decision) {
    const d = cand.decision;
    parts.push(h('p', { id: 'decision' }, `${d.decision} ${when(d.decided_at)}: ${d.reason || ''}`,
      d.commit ? [' — commit ', h('code', { id: 'decision-commit' }, d.commit)] : ''));
  }
  if (!session.reviewer) {
    parts.push(h('p', { class: 'muted' }, 'Promoting and rejecting need a reviewer token.'));
  } else if (!cand.decision && cand.state === 'done') {
    const reason = h('input', { id: 'reject-reason', type: 'text', maxlength: 4096, placeholder: 'why not' });
    const act = async (what, body) => {
      out.textContent = `${what}…`;
      try {
        const r = await post(`/v1/candidates/${cand.id}/${what}`, body);
        out.textContent = what === 'promote' ? `Promoted: library commit ${r.commit}` : 'Rejected.';
        await rerender();
      } catch (e) {
        out.textContent = `Refused (${e.status} ${e.type}): ${e.message}`;
        out.className = 'error';
      }
    };
    parts.push(h('div', { class: 'review-controls', role: 'group', 'aria-label': 'Review decision' },
      h('button', { id: 'promote', type: 'button', class: 'primary', onclick: () => act('promote', {}) }, 'Promote'),
      h('label', { for: 'reject-reason' }, 'Reason'), reason,
      h('button', { id: 'reject', type: 'button', onclick: () => {
        if (!reason.value.trim()) { out.textContent = 'Give a reason to reject.'; reason.focus(); return; }
        act('reject', { reason: reason.value.trim() });
      } }, 'Reject')));
  }
  parts.push(out);
  return h('section', { 'aria-labelledby': 'h-review', id: 'review' }, parts);
}

export async function candidateView(view, id, session) {
  const abort = new AbortController();
  const stages = stageList();
  const header = h('div', { id: 'cand-header' });
  const body = h('div', { id: 'cand-body' });
  clear(view).append(h('h1', {}, 'Candidate ', h('code', {}, id)), header, stages.node, body);

  let badge = null;
  const drawHeader = (cand) => {
    badge = h('span', { id: 'cand-state', 'data-state': cand.state, class: `badge st-${cand.status || cand.state}` }, cand.status || cand.state);
    clear(header).append(h('p', {}, badge, ' ',
      `${cand.op}${cand.variant ? '/' + cand.variant : ''} · ${cand.backend} · `,
      h('a', { href: `#/leaderboard/${cand.op}?backend=${cand.backend}` }, 'leaderboard'),
      ` · submitted ${when(cand.created_at)}`, cand.note ? ` · ${cand.note}` : ''));
  };
  const drawAll = async () => {
    const [cand, lineage] = await Promise.all([get(`/v1/candidates/${id}`),
      get(`/v1/candidates/${id}/lineage`).catch((e) => ({ error: e }))]);
    drawHeader(cand);
    if (cand.state !== 'done' || !cand.verdict) {
      clear(body).append(reviewSection(cand, session, drawAll), lineageSection(lineage, id));
      return cand;
    }
    const v = cand.verdict;
    const [source, diff, samples] = await Promise.all([text(`/v1/candidates/${id}/source`),
      get(`/v1/candidates/${id}/diff`).catch((e) => ({ error: e })), fetchSamples(id, v)]);
    // Verdict first, decision second: while the comparison with the incumbent runs, say so.
    const pending = cand.comparison && cand.comparison.state === 'pending' ?
      h('p', { id: 'comparison-pending', class: 'muted', role: 'status' },
        'Comparison with the incumbent running: the decision follows.') : null;
    const parts = [pending, verdictTable(v), rooflineSection(v), profileSection(v), samplesSection(v, samples), diagnosticsSection(v, source),
      diff.error ? h('section', {}, h('h2', {}, 'Diff against the incumbent'), h('p', {}, diff.error.message)) : diffSection(diff),
      factsSection(v), resourcesSection(v), reviewSection(cand, session, drawAll), lineageSection(lineage, id)];
    clear(body).append(...parts.filter(Boolean));
    return cand;
  };
  const cand = await drawAll();
  // Live: the stream replays the stored events, then follows until the candidate is done and,
  // where a comparison follows its verdict, decided.
  const follow = async () => {
    let terminal = TERMINAL.has(cand.state);
    let decided = !(cand.comparison && cand.comparison.state === 'pending');
    try {
      await events(`/v1/candidates/${id}/events`, (ev) => {
        stages.apply(ev);
        if (ev.kind === 'state') {
          if (badge && !terminal) { badge.dataset.state = ev.data.state; badge.textContent = ev.data.state; }
          if (TERMINAL.has(ev.data.state) && !terminal) { terminal = true; drawAll(); }
        } else if (ev.kind === 'comparison' && !decided) {
          decided = true;
          drawAll();
        }
      }, abort.signal);
    } catch (e) {
      if (e.name !== 'AbortError') stages.apply({ kind: 'verdict', data: { status: `event stream: ${e.message}` } });
    }
  };
  follow();
  return { stop: () => abort.abort() };
}
