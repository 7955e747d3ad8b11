#!/usr/bin/env python3
"""check_measurement_method.py on a copy of the files it reads: it passes as recorded, fails when a
method file changes without the salt, fails when the salt is bumped but not recorded, passes once
recorded."""
import os
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = sys.argv[1]
script = os.path.join(here, "check_measurement_method.py")
sys.path.insert(0, here)
import check_measurement_method as m  # noqa: E402

tmp = tempfile.mkdtemp(prefix="kwb-method-")
try:
    for f in m.METHOD_FILES + ["workbench/core/measurement_method.hpp", "tests/tree/measurement_method.json"]:
        os.makedirs(os.path.dirname(os.path.join(tmp, f)), exist_ok=True)
        if os.path.exists(os.path.join(root, f)):
            shutil.copy(os.path.join(root, f), os.path.join(tmp, f))

    def check(*extra):
        return subprocess.run([sys.executable, script, tmp] + list(extra), capture_output=True, text=True)

    assert check().returncode == 0, "as recorded: passes"
    with open(os.path.join(tmp, "workbench/eval/benchmark.cpp"), "a") as f:
        f.write("\n// a changed stopping rule\n")
    r = check()
    assert r.returncode == 1 and "workbench/eval/benchmark.cpp" in r.stdout, r.stdout
    hdr = os.path.join(tmp, "workbench/core/measurement_method.hpp")
    text = open(hdr).read()
    salt = m.salt(tmp)
    open(hdr, "w").write(text.replace('k_measurement_method = "%s"' % salt, 'k_measurement_method = "%s-next"' % salt))
    r = check()
    assert r.returncode == 1 and "record" in r.stdout, r.stdout
    assert check("--record").returncode == 0
    assert check().returncode == 0, "bumped and recorded: passes"
    print("the salt guard fails on a changed method file and on an unrecorded bump, and passes once recorded")
finally:
    shutil.rmtree(tmp)
