#!/usr/bin/env python3
"""Fails when a tracked source file has more than 400 lines.

A file holds one thing that its name says (docs/architecture.md "Modules"); past 400 lines it
holds several, and is split along its seams. Source files are .cpp .hpp .h .cu .py .js, tests
included; not under node_modules, and not the tests' data (tests/compat/v*/ snapshots, fixtures).

Usage: check_file_sizes.py SOURCE_DIR. Files come from `git ls-files` (tracked files); without
git, every file under SOURCE_DIR except .git, node_modules and build trees. Exit 0 clean, 1 with
each file and its count.
"""
import os
import re
import subprocess
import sys

MAX_LINES = 400
SUFFIXES = (".cpp", ".hpp", ".h", ".cu", ".py", ".js")
SKIP_DIRS = {".git", "node_modules"}
# The tests' data: frozen snapshots of the compatibility gate and fixtures of any test.
DATA = re.compile(r"^tests/compat/v\d+/|(^|/)fixtures?/")


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True).stdout
        return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if x not in SKIP_DIRS
                       and not os.path.exists(os.path.join(d, x, "CMakeCache.txt"))]
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
        return files


def is_source(rel):
    return rel.endswith(SUFFIXES) and "node_modules" not in rel.split("/") and not DATA.search(rel)


def line_count(path):
    with open(path, "rb") as f:
        data = f.read()
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    large = []
    checked = 0
    for rel in sorted(tracked_files(root)):
        path = os.path.join(root, rel)
        if not is_source(rel) or not os.path.isfile(path):
            continue
        checked += 1
        n = line_count(path)
        if n > MAX_LINES:
            large.append((n, rel))
    if large:
        print("These source files have more than %d lines: split each along its seams, one thing per file"
              % MAX_LINES)
        print("with a name that says what it holds (docs/architecture.md \"Modules\"):")
        for n, rel in sorted(large, reverse=True):
            print("%s: %d lines" % (rel, n))
        return 1
    print("%d source files in %s, none over %d lines" % (checked, root, MAX_LINES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
