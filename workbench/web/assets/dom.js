// Building the page from data with DOM calls only (no HTML strings): every value is text, never markup.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

// Figures as people read them.
export function ns(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  if (v >= 1e9) return (v / 1e9).toFixed(3) + ' s';
  if (v >= 1e6) return (v / 1e6).toFixed(3) + ' ms';
  if (v >= 1e3) return (v / 1e3).toFixed(2) + ' µs';
  return v.toFixed(0) + ' ns';
}
export function num(v, digits = 2, suffix = '') {
  return v === null || v === undefined || !Number.isFinite(Number(v)) ? '—' : Number(v).toFixed(digits) + suffix;
}
export function ratio(v) { return num(v, 3, '×'); }
export function params(p) {
  return Object.entries(p || {}).map(([k, v]) => `${k}=${v}`).join(' ');
}
export function when(t) { return t ? String(t).replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC') : '—'; }
