#!/usr/bin/env python3
"""Fails when an #include inside workbench/ points the wrong way between modules, or when files of
one module include each other in a cycle.

The module map is the one docs/architecture.md "Modules" draws (`core ... -> util`): a module may
include the headers of the modules after its arrow, and of theirs in turn (the arrows are
followed to the end), and its own. An include of any other module of workbench/ is an upward
(or sideways) arrow. Within a module, the includes between its files must not form a cycle.
A module folder that the map does not name is reported too, so the map cannot fall behind.

Usage: check_module_graph.py SOURCE_DIR. Files come from `git ls-files` (tracked files); without
git, every file under SOURCE_DIR/workbench. Exit 0 clean, 1 with the list.
"""
import os
import re
import subprocess
import sys

SOURCE_SUFFIXES = (".cpp", ".hpp", ".h", ".cu")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)
# Raw string literals hold generated files (workbench/package), whose #include lines are not ours.
RAW_STRING = re.compile(r'R"(?P<d>[^(\s"]{0,16})\(.*?\)(?P=d)"', re.DOTALL)
MODULE_LINE = re.compile(r"^([a-z][a-z0-9_]*)\s")


def module_map(doc_text):
    """{module: set of the modules after its arrow} from the first code block of "## Modules"."""
    section = doc_text.split("\n## Modules", 1)
    if len(section) < 2:
        return None
    block = section[1].split("```", 2)
    if len(block) < 3:
        return None
    entries = []  # [name, text of its lines]
    for line in block[1].splitlines():
        m = MODULE_LINE.match(line)
        if m:
            entries.append([m.group(1), line[m.end():]])
        elif entries:
            entries[-1][1] += " " + line
    deps = {}
    for name, text in entries:
        arrow = text.rfind("->")
        if arrow < 0:
            deps[name] = None  # no arrow: reported by the caller
            continue
        words = re.findall(r"[a-z][a-z0-9_]*", text[arrow + 2:])
        deps[name] = {w for w in words if w not in ("nothing", "private")}
    return deps


def closure(deps, name):
    seen, todo = set(), [name]
    while todo:
        for d in deps.get(todo.pop()) or ():
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


def tracked_sources(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "workbench"], capture_output=True,
                             check=True).stdout
        files = [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, _, names in os.walk(os.path.join(root, "workbench")):
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return sorted(f for f in files if f.endswith(SOURCE_SUFFIXES) and os.path.isfile(os.path.join(root, f)))


def includes_of(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = RAW_STRING.sub("", f.read())
    for m in INCLUDE.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, m.group(1)


def strongly_connected(graph):
    """Tarjan's components of more than one file (or a file that includes itself)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    with open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8") as f:
        deps = module_map(f.read())
    if not deps:
        print('docs/architecture.md has no module map (a code block under "## Modules")')
        return 1
    problems = []
    for name in sorted(n for n, d in deps.items() if d is None):
        problems.append('docs/architecture.md "Modules": %s has no arrow (-> its modules, or -> nothing)' % name)
    files = tracked_sources(root)
    modules = sorted({f.split("/")[1] for f in files if f.count("/") >= 2})
    for name in modules:
        if name not in deps:
            problems.append('workbench/%s/: a module that docs/architecture.md "Modules" does not list' % name)
    allowed = {name: closure(deps, name) | {name} for name in deps}
    graph = {}  # file -> files of the same module it includes
    for rel in files:
        parts = rel.split("/")
        if len(parts) < 3:
            continue
        module = parts[1]
        for line, target in includes_of(os.path.join(root, rel)):
            first = target.split("/", 1)[0]
            if first not in modules or not os.path.isfile(os.path.join(root, "workbench", target)):
                continue  # a system, third-party or sandbox/ header, or text of a generated file
            if first == module:
                graph.setdefault(rel, set()).add("workbench/" + target)
            elif module in allowed and first not in allowed[module]:
                problems.append("%s:%d: includes %s, but %s does not depend on %s (docs/architecture.md "
                                '"Modules")' % (rel, line, target, module, first))
    for cycle in strongly_connected(graph):
        problems.append("include cycle in workbench/%s/: %s" % (cycle[0].split("/")[1], " <-> ".join(cycle)))
    if problems:
        print("The include graph of workbench/ breaks the module map of docs/architecture.md \"Modules\"")
        print("(dependencies point inward; files of a module include each other without cycles):")
        print("\n".join(problems))
        return 1
    print("%d files of %d modules include only inward and without cycles" % (len(files), len(modules)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
