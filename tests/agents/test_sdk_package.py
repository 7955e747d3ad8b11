"""The Python SDK's package (agents/python): every source parses as Python 3.9, and pip installs it
with its console script, offline.

Run by ctest (tests/CMakeLists.txt: AgentSdkPackage); by hand:
    python3 -m unittest discover -s tests/agents -p 'test_sdk_package.py' -v
"""
import ast
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from daemon import SDK_DIR, SOURCE_DIR


class AgentSdkPackage(unittest.TestCase):
    def test_sources_are_python_3_9(self) -> None:
        files = sorted((SDK_DIR / "kwb").rglob("*.py")) + sorted((SOURCE_DIR / "agents" / "examples").glob("*.py"))
        self.assertTrue(files)
        for f in files:
            with self.subTest(file=f.name):
                ast.parse(f.read_text(), str(f), feature_version=(3, 9))

    def test_pip_installs_the_package_and_its_console_script(self) -> None:
        # pip, and setuptools able to build a wheel (its own bdist_wheel from 70.1, else the wheel package)
        can_build = ("import importlib.util, setuptools, sys; v = tuple(int(x) for x in setuptools.__version__.split('.')[:2]); "
                     "sys.exit(0 if v >= (70, 1) or importlib.util.find_spec('wheel') else 1)")
        probes = [[sys.executable, "-m", "pip", "--version"], [sys.executable, "-c", can_build]]
        if any(subprocess.run(p, capture_output=True).returncode != 0 for p in probes):
            self.skipTest(f"{sys.executable} cannot build packages offline: it lacks pip, setuptools or wheel "
                          "(Debian: python3-pip, which brings python3-setuptools and python3-wheel)")
        target = Path(tempfile.mkdtemp(prefix="kwb-pip-"))
        self.addCleanup(shutil.rmtree, target, True)
        build = Path(tempfile.mkdtemp(prefix="kwb-pip-src-"))  # setuptools writes build/ and *.egg-info
        self.addCleanup(shutil.rmtree, build, True)
        shutil.copytree(SDK_DIR, build / "python")
        r = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-build-isolation",
                            "--no-deps", "--disable-pip-version-check", "--target", str(target), str(build / "python")],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertTrue((target / "kwb" / "py.typed").exists())
        script = target / "bin" / "kwb-py"
        self.assertTrue(script.exists(), sorted(p.name for p in target.iterdir()))
        env = {**os.environ, "PYTHONPATH": str(target)}
        out = subprocess.run([sys.executable, str(script), "--help"], env=env, capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("promote", out.stdout)
        where = subprocess.run([sys.executable, "-c", "import kwb; print(kwb.__file__)"], env=env, cwd=str(target),
                               capture_output=True, text=True)
        self.assertTrue(where.stdout.strip().startswith(str(target)), where.stdout + where.stderr)


if __name__ == "__main__":
    unittest.main()
