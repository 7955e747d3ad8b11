#!/usr/bin/env python3
"""The measurement method's salt (workbench/core/measurement_method.hpp) is bumped whenever a file
that makes the method changes: how caches are flushed, which clock reads a sample, when timing
stops, how a comparison is timed and decided (docs/evaluation.md "Measurement method").

    check_measurement_method.py ROOT            fails when a fingerprinted file changed while the
                                                salt is the one recorded
    check_measurement_method.py ROOT --record   after bumping the salt: records the new salt and
                                                the files' fingerprints

The fingerprints live in tests/tree/measurement_method.json. A changed file with the same salt
means records and verdicts measured by two methods would pass for one: bump the salt (the
header says how), then --record.
"""
import hashlib
import json
import os
import re
import sys

# The files whose content is the measurement method.
METHOD_FILES = [
    "workbench/eval/benchmark.cpp",             # rounds, warm-up, verified rounds, the budget
    "workbench/eval/stats.cpp",                 # the stopping criterion and the summary
    "workbench/eval/paired_timing.cpp",         # interleaved blocks
    "workbench/eval/paired_series.cpp",         # the comparison read from the blocks
    "workbench/eval/sequential_interval.cpp",   # the interval valid under repeated looks
    "workbench/eval/paired_benchmark.cpp",      # one pass
    "workbench/eval/runner_client_timing.cpp",  # the CPU flush and clock
    "workbench/eval/thread_sched.cpp",          # a thread's waits and time on a CPU, taken out of CPU samples
    "sandbox/gpu_runner/timing_batch.cpp",      # the GPU flush and clocks
    "sandbox/gpu_runner/gpu_exec.cpp",          # the L2 flush and the persisting-L2 reset
    "workbench/library/decision.cpp",           # labels and the decision rule
    "workbench/eval/config_choice.cpp",         # choosing among tunable configs
    "workbench/eval/cuda_config_rounds.cpp",    # their round-robin blocks
    "workbench/eval/config_search.cpp",         # searching a space larger than the grid: races, aborts
    "workbench/eval/cuda_plan_search.cpp",      # ... and its timing of each config on the GPU
]


def salt(root):
    text = open(os.path.join(root, "workbench/core/measurement_method.hpp")).read()
    m = re.search(r'k_measurement_method\s*=\s*"([^"]+)"', text)
    if not m:
        sys.exit("workbench/core/measurement_method.hpp: no k_measurement_method = \"...\" found")
    return m.group(1)


def fingerprints(root):
    out = {}
    for f in METHOD_FILES:
        path = os.path.join(root, f)
        out[f] = hashlib.sha256(open(path, "rb").read()).hexdigest() if os.path.exists(path) else None
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    record = os.path.join(root, "tests/tree/measurement_method.json")
    now = {"salt": salt(root), "files": fingerprints(root)}
    if "--record" in sys.argv:
        json.dump(now, open(record, "w"), indent=1, sort_keys=True)
        open(record, "a").write("\n")
        print("recorded salt %s and %d fingerprints in %s" % (now["salt"], len(now["files"]), record))
        return 0
    was = json.load(open(record))
    if now["salt"] != was["salt"]:
        print("the salt is %s, the record says %s: after bumping it, record the fingerprints:\n"
              "  tests/tree/check_measurement_method.py . --record" % (now["salt"], was["salt"]))
        return 1
    changed = [f for f in METHOD_FILES if now["files"].get(f) != was["files"].get(f)]
    if changed:
        print("these files make the measurement method and changed while its salt stayed %s:\n  %s\n"
              "A time measured by the changed method must not pass for one measured by the old one: bump "
              "k_measurement_method in workbench/core/measurement_method.hpp (and say why there), then\n"
              "  tests/tree/check_measurement_method.py . --record\n"
              "(a change that cannot affect any measurement, e.g. a comment, is recorded the same way)"
              % (now["salt"], "\n  ".join(changed)))
        return 1
    print("measurement method %s: %d files as recorded" % (now["salt"], len(METHOD_FILES)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
