#!/bin/bash
# Submit -> verdict latency of small cuda-form candidates on a warm daemon (issue #5), recorded in
# docs/benchmarks/h200.md. Usage: daemon_latency.sh KWB_BIN_DIR OUT_DIR [N] [BUDGET_MS] [BENCH,...]
# Starts `kwb serve --no-auth` on a fresh workspace, warms it with one submission, then submits
# N variants of kernels/vector_add/cuda/vectorized.cu (a distinct comment each, so every one is
# compiled by NVRTC, cold cubin cache) one after another with `kwb submit --wait --json`, and
# writes per-submission wall time and the verdict's stage times as TSV. BENCH names the bench
# workloads to time (e.g. n1M,n16M: submitted as --bench each); default all of them.
set -euo pipefail
bin=$1; out=$2; n=${3:-10}; budget=${4:-100}; bench=()
for w in ${5//,/ }; do bench+=(--bench "$w"); done
ws=$(mktemp -d /tmp/kwb-latency-XXXXXX)
"$bin/kwb" serve --no-auth --port 0 --port-file "$ws/port" --workspace "$ws" --time-budget-ms "$budget" \
  > "$out/daemon.log" 2>&1 &
daemon=$!
trap 'kill $daemon 2>/dev/null || true' EXIT
for _ in $(seq 600); do [ -s "$ws/port" ] && break; sleep 0.1; done
export KWB_SERVER="http://127.0.0.1:$(cat "$ws/port")"
src=${KWB_LATENCY_SOURCE:-kernels/vector_add/cuda/vectorized.cu}  # any vector_add cuda-form file
submit() {  # $1: tag -> prints "wall_ms<TAB>status<TAB>stage json"
  local f="$ws/cand_$1.cu"
  { cat "$src"; echo "// latency probe $1 $(date +%s%N)"; } > "$f"
  local t0 t1
  t0=$(date +%s%N)
  "$bin/kwb" submit "$f" --op vector_add --backend cuda "${bench[@]}" --wait --json > "$ws/v_$1.json" || true
  t1=$(date +%s%N)
  python3 - "$ws/v_$1.json" $(( (t1 - t0) / 1000000 )) <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
s = v["summary"]["stage_ms"]
print("\t".join([sys.argv[2], v["status"]] + ["%.0f" % s.get(k, 0) for k in ("analyze", "compile", "runner_start", "validate", "benchmark", "runner", "runner_setup",
                                                          "runner_calls", "runner_timing", "inputs", "reference_wait", "checks")]
                + ["%.0f" % v["summary"]["wall_ms"]]))
PY
}
echo -e "wall_ms\tstatus\tanalyze_ms\tcompile_ms\trunner_start_ms\tvalidate_ms\tbenchmark_ms\trunner_ms\trunner_setup_ms\trunner_calls_ms\trunner_timing_ms\tinputs_ms\treference_wait_ms\tchecks_ms\teval_wall_ms" > "$out/latency.tsv"
submit warm > "$out/warmup.tsv"
for i in $(seq "$n"); do submit "$i" >> "$out/latency.tsv"; done
cat "$out/warmup.tsv" "$out/latency.tsv"
