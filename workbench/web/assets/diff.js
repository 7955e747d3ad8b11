// The daemon's unified diff (git format, GET /v1/candidates/{id}/diff) as side-by-side rows:
// {left: {n, text} | null, right: {n, text} | null, kind: 'same' | 'del' | 'add' | 'change' | 'gap'}.
export function sideBySide(unified) {
  const rows = [];
  let oldN = 0, newN = 0, dels = [], adds = [];
  const flush = () => {
    const n = Math.max(dels.length, adds.length);
    for (let i = 0; i < n; ++i) {
      const l = dels[i] ?? null, r = adds[i] ?? null;
      rows.push({ left: l, right: r, kind: l && r ? 'change' : l ? 'del' : 'add' });
    }
    dels = [];
    adds = [];
  };
  let inHunk = false;
  for (const line of unified.split('\n')) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$/.exec(line);
    if (hunk) {
      flush();
      oldN = Number(hunk[1]);
      newN = Number(hunk[2]);
      rows.push({ left: null, right: null, kind: 'gap', text: line });
      inHunk = true;
      continue;
    }
    if (!inHunk) continue;  // the header: diff --git, index, ---, +++
    if (line.startsWith('-')) dels.push({ n: oldN++, text: line.slice(1) });
    else if (line.startsWith('+')) adds.push({ n: newN++, text: line.slice(1) });
    else if (line.startsWith(' ') || line === '') {
      if (line === '' ) continue;  // the final newline of the patch
      flush();
      rows.push({ left: { n: oldN++, text: line.slice(1) }, right: { n: newN++, text: line.slice(1) }, kind: 'same' });
    } else if (line.startsWith('\\')) continue;  // \ No newline at end of file
  }
  flush();
  return rows;
}

// The two sides' file names from the diff's header (a/... b/...; /dev/null for a new file).
export function fileNames(unified) {
  const old = /^--- (?:a\/)?(.*)$/m.exec(unified), nu = /^\+\+\+ (?:b\/)?(.*)$/m.exec(unified);
  return { left: old ? old[1] : '', right: nu ? nu[1] : '' };
}
