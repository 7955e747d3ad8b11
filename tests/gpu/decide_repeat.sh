#!/bin/bash
# Decisions of the shipped CUDA kernels against themselves on the H200 (issue 14), recorded in
# docs/benchmarks/h200.md. Usage: decide_repeat.sh KWB_BIN_DIR OUT_DIR [RUNS] [OPS...]
# For each op, RUNS times: `kwb eval --compare` of a copy of the shipped kernel (a comment added,
# so another sha256) against the library's incumbent (the shipped kernel itself), both timed
# interleaved. Writes one TSV row per bench workload and run: op, run, workload, label, ratio,
# low, high, blocks, samples, promotable, decide_ms; and the verdicts as JSON.
set -euo pipefail
bin=$1; out=$2; runs=${3:-10}; shift 3 || true
ops=("$@"); [ ${#ops[@]} -gt 0 ] || ops=(vector_add softmax rmsnorm layernorm transpose row_sum)
ws=$(mktemp -d /tmp/kwb-decide-XXXXXX)
mkdir -p "$out"
printf 'op\trun\tworkload\tlabel\tratio\tlow\thigh\tblocks\tsamples\tpromotable\tdecide_ms\n' > "$out/decide.tsv"
for op in "${ops[@]}"; do
  src=$(ls kernels/$op/cuda/*.cu | head -1)
  for run in $(seq "$runs"); do
    f="$ws/${op}_copy_$run.cu"
    { cat "$src"; echo "// decide_repeat copy $run"; } > "$f"
    "$bin/kwb" eval "$f" --op "$op" --compare --no-baseline --json --workspace "$ws" > "$out/${op}_$run.json" || true
    python3 - "$out/${op}_$run.json" "$op" "$run" >> "$out/decide.tsv" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
d = (v["summary"].get("decision") or {})
for w in v["workloads"]:
    c = w.get("comparison")
    if not c: continue
    print("\t".join(str(x) for x in [sys.argv[2], sys.argv[3], w["name"], c["label"], round(c["ratio"], 4),
          round(c["low"], 4), round(c["high"], 4), c["blocks"], c["samples"], d.get("promotable"),
          round(v["summary"]["stage_ms"].get("decide", 0))]))
if not any(w.get("comparison") for w in v["workloads"]):
    print("\t".join([sys.argv[2], sys.argv[3], "-", v["status"], v["reason"][:200]]))
PY
  done
done
cat "$out/decide.tsv"
