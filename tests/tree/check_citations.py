#!/usr/bin/env python3
"""Fails when a tracked file cites design or convention notes that are not in this repository.

Code comments and docs cite files of the repository (docs/architecture.md "Where the rules are
written"): a clone has no other design document, so a citation of one explains nothing. Usage:
check_citations.py SOURCE_DIR. Files come from `git ls-files` (tracked files); without git, every
file under SOURCE_DIR except .git, node_modules and build trees. Exit 0 clean, 1 with the list.
"""
import os
import re
import subprocess
import sys

# The names are assembled so that this file does not cite them itself.
_NOTES = "|".join(["DES" + "IGN", "CONVEN" + "TIONS"])
# An upper-case note name as a word ("... §6", "... \"Errors\""), or the note's file name in any case.
PATTERN = re.compile(r"\b(?:%s)\.md\b|\b(?:%s)\b" % (_NOTES, _NOTES), re.IGNORECASE)
UPPER = re.compile(r"\b(?:%s)\b" % _NOTES)
SKIP_DIRS = {".git", "node_modules"}


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


def offending_lines(text):
    for number, line in enumerate(text.splitlines(), 1):
        for m in PATTERN.finditer(line):
            # Upper-case names, or a note's file name in any case: the ordinary words in prose
            # (lower case, no ".md") are fine.
            if UPPER.fullmatch(m.group(0)) or m.group(0).lower().endswith(".md"):
                yield number, line.strip()
                break


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    me = os.path.realpath(__file__)
    own = "tests/tree/check_citations.py"  # this file spells the patterns out
    found = []
    for rel in tracked_files(root):
        if "node_modules" in rel.split("/"):
            continue
        path = os.path.join(root, rel)
        if rel == own or os.path.realpath(path) == me or not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        if b"\0" in data[:8192]:
            continue  # binary
        for number, line in offending_lines(data.decode("utf-8", "replace")):
            found.append("%s:%d: %s" % (rel, number, line[:160]))
    if found:
        print("These lines cite design or convention notes that are not in this repository. Cite a")
        print('file of the repository instead: a doc and its section in quotes, e.g.')
        print('docs/evaluation.md "Anti-cheat rules", rule 3 (docs/architecture.md "Where the rules are')
        print('written"); add the rule to docs/ in the project\'s own words where it is not written yet.')
        print("\n".join(found))
        return 1
    print("no citation of notes outside the repository in %s" % root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
