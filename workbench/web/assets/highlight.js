// A small C++/CUDA highlighter: comments, strings, characters, preprocessor lines, numbers,
// keywords and types, as spans of classes (style.css). Line by line, carrying only whether a
// block comment is still open, so that each diff row can be highlighted on its own.
import { h } from './dom.js';

const KEYWORDS = new Set(('alignas alignof auto break case catch class const constexpr const_cast continue decltype default ' +
  'delete do dynamic_cast else enum explicit extern false for friend goto if inline mutable namespace new noexcept ' +
  'nullptr operator private protected public register reinterpret_cast return sizeof static static_assert ' +
  'static_cast struct switch template this throw true try typedef typename union using virtual volatile while ' +
  '__global__ __device__ __host__ __shared__ __constant__ __restrict__ __forceinline__ __launch_bounds__ ' +
  '__syncthreads __restrict').split(' '));
const TYPES = new Set(('void bool char short int long float double signed unsigned size_t int8_t int16_t int32_t ' +
  'int64_t uint8_t uint16_t uint32_t uint64_t float2 float4 int2 int4 half __half __nv_bfloat16 dim3 ' +
  'cudaStream_t').split(' '));

const TOKEN = /(\/\/.*$)|(\/\*)|("(?:[^"\\]|\\.)*"?)|('(?:[^'\\]|\\.)*'?)|(\b(?:0[xX][0-9a-fA-F']+|\d[\d'.]*(?:[eE][+-]?\d+)?)[uUlLfF]*\b)|([A-Za-z_]\w*)/g;

// Returns [node, inComment] for one line.
export function highlightLine(line, inComment = false) {
  const out = h('span', { class: 'code' });
  let i = 0;
  if (inComment) {
    const end = line.indexOf('*/');
    if (end < 0) return [h('span', { class: 'code' }, h('span', { class: 'tok-comment' }, line)), true];
    out.append(h('span', { class: 'tok-comment' }, line.slice(0, end + 2)));
    i = end + 2;
  }
  if (/^\s*#/.test(line.slice(i)) && i === 0) {
    out.append(h('span', { class: 'tok-pre' }, line));
    return [out, false];
  }
  TOKEN.lastIndex = i;
  let m;
  while ((m = TOKEN.exec(line))) {
    if (m.index > i) out.append(line.slice(i, m.index));
    if (m[2]) {  // a block comment opens
      const end = line.indexOf('*/', m.index + 2);
      if (end < 0) {
        out.append(h('span', { class: 'tok-comment' }, line.slice(m.index)));
        return [out, true];
      }
      out.append(h('span', { class: 'tok-comment' }, line.slice(m.index, end + 2)));
      i = TOKEN.lastIndex = end + 2;
      continue;
    }
    const t = m[0];
    let cls = null;
    if (m[1]) cls = 'tok-comment';
    else if (m[3] || m[4]) cls = 'tok-string';
    else if (m[5]) cls = 'tok-number';
    else if (KEYWORDS.has(t)) cls = 'tok-keyword';
    else if (TYPES.has(t)) cls = 'tok-type';
    out.append(cls ? h('span', { class: cls }, t) : t);
    i = m.index + t.length;
  }
  if (i < line.length) out.append(line.slice(i));
  return [out, false];
}

// Every line of a file, highlighted: an array of nodes.
export function highlightLines(lines) {
  let open = false;
  return lines.map((l) => {
    const [node, still] = highlightLine(l, open);
    open = still;
    return node;
  });
}
