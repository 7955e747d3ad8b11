// Hand-written SVG charts: the log-log roofline and the histograms of the samples of a candidate
// page, and the timeline of the library history. Each point is an element with a class and a <title>, so it can be read
// (and counted by the browser test) without a chart library.
import { s, num } from './dom.js';

const W = 640, H = 360, M = { l: 70, r: 20, t: 16, b: 46 };

function logScale(lo, hi, a, b) {
  const l0 = Math.log10(lo), l1 = Math.log10(hi);
  return (v) => a + (Math.log10(v) - l0) / (l1 - l0) * (b - a);
}

function decades(lo, hi) {
  const out = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); ++e) out.push(10 ** e);
  return out.filter((v) => v >= lo * 0.999 && v <= hi * 1.001);
}

// Three significant digits without trailing zeros after the point ("100", "2.5", "1.25").
function digits3(v) {
  const t = v.toPrecision(3);
  return t.includes('.') && !t.includes('e') ? t.replace(/0+$/, '').replace(/\.$/, '') : String(Number(t));
}

function si(v) {
  const units = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
  for (const [u, n] of units) if (v >= u) return digits3(v / u) + n;
  if (v >= 1) return digits3(v);
  return v.toExponential(0);
}

// points: [{workload, who: 'candidate'|'incumbent', intensity, flops_per_s}]
// roofs: [{label, bytes_per_s, flops_per_s|null}]
export function roofline(points, roofs, title) {
  const pts = points.filter((p) => p.intensity > 0 && p.flops_per_s > 0);
  const xs = pts.map((p) => p.intensity), ys = pts.map((p) => p.flops_per_s);
  for (const r of roofs) if (r.flops_per_s && r.bytes_per_s) xs.push(r.flops_per_s / r.bytes_per_s);
  let xlo = Math.min(...xs) / 4, xhi = Math.max(...xs) * 4;
  const roofAt = (r, x) => Math.min(r.bytes_per_s * x, r.flops_per_s || Infinity);
  for (const r of roofs) ys.push(roofAt(r, xlo), roofAt(r, xhi));
  let ylo = Math.min(...ys) / 4, yhi = Math.max(...ys) * 2;
  if (!(xlo > 0 && Number.isFinite(xhi)) || !(ylo > 0 && Number.isFinite(yhi))) { xlo = 0.01; xhi = 100; ylo = 1e6; yhi = 1e12; }
  const x = logScale(xlo, xhi, M.l, W - M.r), y = logScale(ylo, yhi, H - M.b, M.t);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart roofline', role: 'img', 'aria-label': title });
  svg.append(s('title', {}, title));
  for (const v of decades(xlo, xhi))
    svg.append(s('line', { class: 'grid', x1: x(v), x2: x(v), y1: M.t, y2: H - M.b }),
               s('text', { class: 'tick', x: x(v), y: H - M.b + 16, 'text-anchor': 'middle' }, si(v)));
  for (const v of decades(ylo, yhi))
    svg.append(s('line', { class: 'grid', x1: M.l, x2: W - M.r, y1: y(v), y2: y(v) }),
               s('text', { class: 'tick', x: M.l - 6, y: y(v) + 4, 'text-anchor': 'end' }, si(v)));
  svg.append(s('text', { class: 'axis', x: (M.l + W - M.r) / 2, y: H - 8, 'text-anchor': 'middle' }, 'arithmetic intensity (flop/byte)'),
             s('text', { class: 'axis', x: 14, y: (M.t + H - M.b) / 2, 'text-anchor': 'middle',
                         transform: `rotate(-90 14 ${(M.t + H - M.b) / 2})` }, 'flop/s'));
  roofs.forEach((r, i) => {
    const steps = 48, d = [];
    for (let k = 0; k <= steps; ++k) {
      const xv = xlo * (xhi / xlo) ** (k / steps);
      d.push(`${k ? 'L' : 'M'}${x(xv).toFixed(1)},${y(Math.max(ylo, Math.min(yhi, roofAt(r, xv)))).toFixed(1)}`);
    }
    svg.append(s('path', { class: `roof roof-${i}`, d: d.join(' ') }, s('title', {}, r.label)));
    svg.append(s('text', { class: `roof-label roof-${i}`, x: W - M.r - 4, y: M.t + 14 + 14 * i, 'text-anchor': 'end' }, r.label));
  });
  for (const p of pts) {
    const cx = x(p.intensity), cy = y(p.flops_per_s);
    const tip = `${p.who} ${p.workload}: ${si(p.flops_per_s)}flop/s at ${num(p.intensity, 3)} flop/byte`;
    const mark = p.who === 'candidate'
      ? s('circle', { class: 'pt pt-candidate', cx, cy, r: 6, 'data-workload': p.workload })
      : s('rect', { class: 'pt pt-incumbent', x: cx - 5, y: cy - 5, width: 10, height: 10, 'data-workload': p.workload });
    mark.append(s('title', {}, tip));
    svg.append(mark);
  }
  const legend = s('g', { class: 'legend' },
    s('circle', { class: 'key-candidate', cx: M.l + 12, cy: M.t + 10, r: 5 }),
    s('text', { x: M.l + 22, y: M.t + 14 }, 'candidate'),
    s('rect', { class: 'key-incumbent', x: M.l + 96, y: M.t + 5, width: 10, height: 10 }),
    s('text', { x: M.l + 112, y: M.t + 14 }, 'incumbent'));
  svg.append(legend);
  return svg;
}

// series: [{t: Date, value, label}] — value on a log axis (speed relative to the first kernel).
export function timeline(series, title) {
  const svg = s('svg', { viewBox: `0 0 ${W} 240`, class: 'chart timeline', role: 'img', 'aria-label': title });
  svg.append(s('title', {}, title));
  const h = 240;
  if (!series.length) return svg;
  const t0 = Math.min(...series.map((p) => +p.t)), t1 = Math.max(...series.map((p) => +p.t));
  const vs = series.map((p) => p.value);
  const vlo = Math.min(1, ...vs) / 1.5, vhi = Math.max(1, ...vs) * 1.5;
  const x = (t) => (t1 === t0 ? (M.l + W - M.r) / 2 : M.l + (t - t0) / (t1 - t0) * (W - M.r - M.l));
  const y = logScale(vlo, vhi, h - M.b, M.t);
  for (const v of [vlo, 1, vhi].concat(decades(vlo, vhi)))
    svg.append(s('line', { class: 'grid', x1: M.l, x2: W - M.r, y1: y(v), y2: y(v) }),
               s('text', { class: 'tick', x: M.l - 6, y: y(v) + 4, 'text-anchor': 'end' }, num(v, 2, '×')));
  svg.append(s('text', { class: 'axis', x: (M.l + W - M.r) / 2, y: h - 8, 'text-anchor': 'middle' }, 'promotions over time'));
  const d = series.map((p, i) => `${i ? 'L' : 'M'}${x(+p.t).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ');
  svg.append(s('path', { class: 'trend', d }));
  for (const p of series) {
    const c = s('circle', { class: 'pt pt-promotion', cx: x(+p.t), cy: y(p.value), r: 5 });
    c.append(s('title', {}, `${p.label}: ${num(p.value, 3, '×')} the first kernel`));
    svg.append(c);
  }
  return svg;
}

// A small histogram of `values` (a workload's samples in ns, or its block ratios). The range is
// the values' 0.5th to 99.5th percentile, so that a few outliers do not squeeze the rest into a
// bar or two; values beyond it are counted in the edge bars (the title says how many). `fmt`
// writes a value for the axis and the bars' titles; `marks` are vertical lines
// [{value, label, cls}] (the median, a ratio of 1).
export function histogram(values, { title, fmt = (v) => num(v, 3), marks = [], cls = '' } = {}) {
  const w = 380, hgt = 150, m = { l: 12, r: 12, t: 10, b: 34 };
  const svg = s('svg', { viewBox: `0 0 ${w} ${hgt}`, class: `chart histogram ${cls}`.trim(), role: 'img', 'aria-label': title });
  svg.append(s('title', {}, title));
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (!sorted.length) return svg;
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))];
  let lo = at(0.005), hi = at(0.995);
  if (!(hi > lo)) { lo = sorted[0] * 0.999 - 1e-12; hi = sorted[sorted.length - 1] * 1.001 + 1e-12; }
  const bins = Math.max(8, Math.min(32, Math.ceil(Math.sqrt(sorted.length))));
  const counts = new Array(bins).fill(0);
  let outside = 0;
  for (const v of sorted) {
    if (v < lo || v > hi) ++outside;
    counts[Math.min(bins - 1, Math.max(0, Math.floor((v - lo) / (hi - lo) * bins)))] += 1;
  }
  const top = Math.max(...counts);
  const x = (v) => m.l + (v - lo) / (hi - lo) * (w - m.l - m.r);
  const bw = (w - m.l - m.r) / bins;
  counts.forEach((n, i) => {
    if (!n) return;
    const bh = n / top * (hgt - m.t - m.b);
    const from = lo + (hi - lo) * i / bins, to = lo + (hi - lo) * (i + 1) / bins;
    svg.append(s('rect', { class: 'bar', x: m.l + i * bw + 0.5, y: hgt - m.b - bh, width: Math.max(1, bw - 1), height: bh, 'data-count': n },
      s('title', {}, `${fmt(from)} to ${fmt(to)}: ${n}`)));
  });
  svg.append(s('line', { class: 'base', x1: m.l, x2: w - m.r, y1: hgt - m.b, y2: hgt - m.b }));
  for (const [v, anchor] of [[lo, 'start'], [hi, 'end']])
    svg.append(s('text', { class: 'tick', x: x(v), y: hgt - m.b + 14, 'text-anchor': anchor }, fmt(v)));
  marks.forEach((k, i) => {
    if (!(k.value >= lo && k.value <= hi)) return;
    svg.append(s('line', { class: `mark ${k.cls || ''}`.trim(), x1: x(k.value), x2: x(k.value), y1: m.t, y2: hgt - m.b },
      s('title', {}, `${k.label}: ${fmt(k.value)}`)));
    // The first mark's label under the axis, the next inside the plot's top edge (no overlap).
    const under = i % 2 === 0;
    svg.append(s('text', { class: `tick mark-label ${k.cls || ''}`.trim(), x: x(k.value) + (under ? 0 : 3),
      y: under ? hgt - m.b + 28 : m.t + 8, 'text-anchor': under ? 'middle' : 'start' }, `${k.label} ${fmt(k.value)}`));
  });
  if (outside) svg.append(s('text', { class: 'tick', x: w - m.r, y: hgt - 4, 'text-anchor': 'end' }, `${outside} beyond the range`));
  return svg;
}
