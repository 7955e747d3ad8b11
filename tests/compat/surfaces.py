"""The workbench's surfaces as the built binaries produce them (docs/api.md "Compatibility"):

- ``openapi``: GET /openapi.json of a real ``kwb serve`` (its ``info.version`` left out);
- ``verdict``: the verdict schema, kwb.verdict.v1: the OpenAPI components' ``Verdict`` with the
  components it refers to;
- ``mcp``: every MCP tool's input and output schema (``tools/list`` on the daemon's POST /mcp);
- ``cli``: the shape of each CLI ``--json`` output: the component schema it prints (below).

Each is a document whose ``$ref``s resolve within itself (a snapshot file of tests/compat/v*/).
``real_outputs`` runs the CLI commands against the daemon and locally, so that what they print
is held to the shapes documented for them (``conform``): the snapshot of the CLI and the verdict
is what the binaries write, not only what the document says. Standard library only.
"""
import json
import os
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any, Dict, List, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "agents"))
from daemon import BIN_DIR, SOURCE_DIR, Daemon  # noqa: E402  (tests/agents/daemon.py)

FILES = {"openapi": "openapi.json", "verdict": "verdict.schema.json", "mcp": "mcp_tools.json", "cli": "cli_json.json"}


def _ref(name: str) -> Dict[str, str]:
    return {"$ref": "#/components/schemas/" + name}


# The CLI's --json outputs (docs/api.md "The CLI clients") and the schema each prints.
CLI_OUTPUTS: Dict[str, Any] = {
    "kwb eval --json": _ref("Verdict"),
    "kwb submit --json": _ref("SubmitReply"),
    "kwb submit --wait --json": _ref("Verdict"),
    "kwb status --json": _ref("Candidate"),
    "kwb status --wait --json": _ref("Verdict"),
    "kwb list --json": {"type": "array", "items": _ref("Candidate")},
    "kwb specs --json": {"type": "array", "items": _ref("Spec")},
    "kwb specs OP --json": _ref("Spec"),
    "kwb cancel --json": _ref("CancelReply"),
    "kwb library report --json": _ref("LibraryReport"),
}


def closure(doc: Any, roots: Any) -> Dict[str, Any]:
    """The components ``roots`` refer to, transitively: {"components": {"schemas": {...}}}."""
    schemas = doc["components"]["schemas"]
    seen: Dict[str, Any] = {}
    todo = [roots]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
                name = ref.rsplit("/", 1)[1]
                if name not in seen:
                    seen[name] = schemas[name]
                    todo.append(schemas[name])
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    return {"components": {"schemas": dict(sorted(seen.items()))}}


def _mcp_tools(url: str) -> Dict[str, Any]:
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}).encode()
    req = urllib.request.Request(url + "/mcp", data=body, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"})
    with urllib.request.urlopen(req, timeout=60) as r:
        tools = json.load(r)["result"]["tools"]
    return {"tools": {t["name"]: {"inputSchema": t.get("inputSchema", {}), "outputSchema": t.get("outputSchema", {})}
                      for t in sorted(tools, key=lambda t: t["name"])}}


def from_daemon(url: str) -> Dict[str, Any]:
    """The four surfaces of the daemon at ``url`` (auth off or a token in the environment)."""
    with urllib.request.urlopen(url + "/openapi.json", timeout=60) as r:
        doc = json.load(r)
    doc.get("info", {}).pop("version", None)
    verdict_root = _ref("Verdict")
    schema_const = doc["components"]["schemas"]["Verdict"]["properties"]["schema"].get("const")
    return {
        "openapi": doc,
        "verdict": {"schema": schema_const, "root": verdict_root, **closure(doc, verdict_root)},
        "mcp": _mcp_tools(url),
        "cli": {"commands": CLI_OUTPUTS, **closure(doc, CLI_OUTPUTS)},
    }


def _kwb(args: List[str], env: Dict[str, str], ok: Tuple[int, ...] = (0,)) -> Any:
    r = subprocess.run([str(BIN_DIR / "kwb")] + args, capture_output=True, text=True, env=env, timeout=600)
    if r.returncode not in ok:
        raise RuntimeError(f"kwb {' '.join(args)} exited {r.returncode}:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout)


def real_outputs(url: str, work: Path) -> List[Tuple[str, Any]]:
    """(command, what it printed) for every entry of CLI_OUTPUTS, run for real."""
    env = dict(os.environ, KWB_SERVER=url)
    env.pop("KWB_TOKEN", None)
    kernel = (SOURCE_DIR / "kernels" / "vector_add" / "cpu" / "vectorized.cpp").read_text()
    files = {}
    for name, text in {"a": kernel + "\n// compat a\n", "b": kernel + "\n// compat b\n",
                       "wrong": kernel.replace("pa[i] + pb[i]", "pa[i] * pb[i]") + "\n// compat wrong\n"}.items():
        files[name] = work / f"{name}.cpp"
        files[name].write_text(text)
    fast = ["--op", "vector_add", "--bench", "n1M", "--json"]
    out: List[Tuple[str, Any]] = []
    submitted = _kwb(["submit", str(files["a"])] + fast, env)
    out.append(("kwb submit --json", submitted))
    out.append(("kwb submit --wait --json", _kwb(["submit", str(files["b"]), "--wait"] + fast, env, (0, 1))))
    out.append(("kwb status --wait --json", _kwb(["status", submitted["id"], "--wait", "--json"], env, (0, 1))))
    out.append(("kwb status --json", _kwb(["status", submitted["id"], "--json"], env, (0, 1))))
    out.append(("kwb list --json", _kwb(["list", "--json"], env)))
    out.append(("kwb cancel --json", _kwb(["cancel", submitted["id"], "--json"], env)))
    out.append(("kwb specs --json", _kwb(["specs", "--json"], env)))
    out.append(("kwb specs OP --json", _kwb(["specs", "vector_add", "--json"], env)))
    local = ["--workspace", str(work / "eval-ws"), "--time-budget-ms", "20"]
    out.append(("kwb eval --json", _kwb(["eval", str(files["a"])] + fast + local, env, (0, 1))))
    out.append(("kwb eval --json", _kwb(["eval", str(files["wrong"]), "--op", "vector_add", "--no-bench", "--json"] + local,
                                        env, (0, 1))))
    report = ["library", "report", "--json"] + local
    out.append(("kwb library report --json", _kwb(report, env)))  # none stored yet
    out.append(("kwb library report --json", _kwb(report + ["--measure", "--op", "vector_add", "--bench", "n1M"], env)))
    return out


def conform(value: Any, schema: Any, doc: Any, where: str) -> List[str]:
    """What of ``value`` its documented ``schema`` does not say: a wrong type, a missing required
    property, a value outside its enum, and a property it does not declare (undocumented)."""
    while isinstance(schema, dict) and "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    if not isinstance(schema, dict):
        return []
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            tries = [conform(value, b, doc, where) for b in schema[key]]
            return [] if any(not t for t in tries) else min(tries, key=len)
    if "const" in schema and value != schema["const"]:
        return [f"{where}: {value!r}, documented as {schema['const']!r}"]
    if isinstance(schema.get("enum"), list) and value not in schema["enum"]:
        return [f"{where}: {value!r} is not one of {schema['enum']}"]
    types = schema.get("type")
    types = [types] if isinstance(types, str) else types
    if types and not any(_is(value, t) for t in types):
        return [f"{where}: {type(value).__name__} {str(value)[:60]!r}, documented as {'|'.join(types)}"]
    problems: List[str] = []
    if isinstance(value, dict):
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else None
        for req in schema.get("required", []):
            if req not in value:
                problems.append(f"{where}.{req}: required by the document, missing")
        extra = schema.get("additionalProperties")
        for k, v in value.items():
            if props is not None and k in props:
                problems += conform(v, props[k], doc, f"{where}.{k}")
            elif isinstance(extra, dict):
                problems += conform(v, extra, doc, f"{where}.{k}")
            elif props is not None and extra is not True:
                problems.append(f"{where}.{k}: written, but not in the documented schema (api/openapi*_schemas.cpp)")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, v in enumerate(value[:20]):
            problems += conform(v, schema["items"], doc, f"{where}[{i}]")
    return problems


def _is(v: Any, t: str) -> bool:
    return {"null": v is None, "boolean": isinstance(v, bool), "string": isinstance(v, str),
            "integer": isinstance(v, int) and not isinstance(v, bool),
            "number": isinstance(v, (int, float)) and not isinstance(v, bool),
            "array": isinstance(v, list), "object": isinstance(v, dict)}.get(t, True)


def collect() -> Tuple[Dict[str, Any], List[str]]:
    """The current surfaces of the built binaries, and what their real CLI outputs do not conform to."""
    with tempfile.TemporaryDirectory(prefix="kwb-compat-") as tmp:
        daemon = Daemon(["--time-budget-ms", "20"], auth=False, root=Path(tmp))
        try:
            current = from_daemon(daemon.url)
            problems: List[str] = []
            for command, printed in real_outputs(daemon.url, Path(tmp)):
                problems += conform(printed, current["cli"]["commands"][command], current["cli"], command)
        finally:
            daemon.stop()
    return current, problems
