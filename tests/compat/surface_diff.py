"""The compatibility rules of the workbench's surfaces (docs/api.md "Compatibility"): what a
change to the OpenAPI document, the verdict schema, the MCP tools' schemas or the CLI's --json
shapes may do (add) and may not do (remove, rename, change a type), judged per direction:

- a *request* (a request body, a query or header parameter, an MCP tool's input) may accept more
  and never less: a property, parameter, route or method removed, a property or parameter
  newly required, a type or an enum narrowed, a constraint tightened (maxLength down, minimum
  up, a pattern changed), extra properties refused where they were taken: all break;
- a *response* (a response body, the verdict, an MCP tool's output, a CLI --json output) may
  promise more and never less: a property removed or no longer always present, a type widened
  or changed (null included), an enum value removed: all break; a new property, a new enum value,
  a property that is now always present pass.

``breaking_changes(kind, old, new)`` returns (breaks, additions), each a list of one-line
messages naming the place, for one surface (``openapi``, ``verdict``, ``mcp``, ``cli``): each
snapshot file of tests/compat/v*/ is a document whose ``$ref``s resolve within itself. Standard
library only.
"""
from typing import Any, Dict, List, Optional, Set, Tuple

REQUEST, RESPONSE = "request", "response"
_ROLES = {"": 0, "agent": 1, "reviewer": 2, "admin": 3}
_TIGHTER_IF_LOWER = ("maxLength", "maximum", "maxItems", "maxProperties", "exclusiveMaximum")
_TIGHTER_IF_HIGHER = ("minLength", "minimum", "minItems", "minProperties", "exclusiveMinimum")
_ANY = None  # a schema that says nothing of its type


class _Diff:
    def __init__(self, old_doc: Any, new_doc: Any) -> None:
        self.old_doc, self.new_doc = old_doc, new_doc
        self.breaks: List[str] = []
        self.additions: List[str] = []
        self._seen: Set[Tuple[str, str, str]] = set()  # ($ref old, $ref new, direction): recursive schemas

    # --- schemas ------------------------------------------------------------------------------

    def resolve(self, s: Any, doc: Any) -> Any:
        hops = 0
        while isinstance(s, dict) and "$ref" in s and hops < 64:
            node = doc
            for part in s["$ref"].lstrip("#/").split("/"):
                node = node.get(part, {}) if isinstance(node, dict) else {}
            s, hops = node, hops + 1
        return s if isinstance(s, dict) else {}

    def branches(self, s: Any, doc: Any) -> List[Dict[str, Any]]:
        s = self.resolve(s, doc)
        for key in ("anyOf", "oneOf"):
            if isinstance(s.get(key), list):
                out: List[Dict[str, Any]] = []
                for b in s[key]:
                    out.extend(self.branches(b, doc))
                return out
        return [s]

    @staticmethod
    def _own_types(s: Dict[str, Any]) -> Optional[Set[str]]:
        if "const" in s:
            return {_json_type(s["const"])}
        t = s.get("type")
        if isinstance(t, str):
            return {t}
        if isinstance(t, list):
            return set(t)
        if isinstance(s.get("enum"), list):
            return {_json_type(v) for v in s["enum"]}
        if "properties" in s or "additionalProperties" in s:
            return {"object"}
        if "items" in s:
            return {"array"}
        return _ANY

    def types(self, s: Any, doc: Any) -> Optional[Set[str]]:
        out: Set[str] = set()
        for b in self.branches(s, doc):
            t = self._own_types(b)
            if t is _ANY:
                return _ANY
            out |= t
        return out

    @staticmethod
    def enum(s: Dict[str, Any]) -> Optional[List[Any]]:
        if "const" in s:
            return [s["const"]]
        return s.get("enum") if isinstance(s.get("enum"), list) else None

    def schema(self, old: Any, new: Any, direction: str, where: str) -> None:
        key = (str(old.get("$ref")) if isinstance(old, dict) else "", str(new.get("$ref")) if isinstance(new, dict) else "",
               direction)
        if key[0] != "None" and key[1] != "None":
            if key in self._seen:
                return
            self._seen.add(key)
        name = _ref_name(old)
        if name:  # the component, for whoever reads the message
            where = f"{where} ({name})"
        old_t, new_t = self.types(old, self.old_doc), self.types(new, self.new_doc)
        if direction == REQUEST:
            if new_t is not _ANY and (old_t is _ANY or not _covers(new_t, old_t)):
                self.breaks.append(f"{where}: accepts {_show(new_t)} where it accepted {_show(old_t)}")
                return
        else:
            if old_t is not _ANY and (new_t is _ANY or not _covers(old_t, new_t)):
                self.breaks.append(f"{where}: may be {_show(new_t)} where it was {_show(old_t)}")
                return
            if old_t is not _ANY and new_t is not _ANY and new_t < old_t:
                self.additions.append(f"{where}: now always {_show(new_t)} (was {_show(old_t)})")
        # Pair the branches by type (a nullable reference: its object branch, and null).
        new_branches = self.branches(new, self.new_doc)
        for ob in self.branches(old, self.old_doc):
            nb = next((b for b in new_branches if _overlap(self._own_types(ob), self._own_types(b))), None)
            if nb is not None:
                self.node(ob, nb, direction, where)

    def node(self, old: Dict[str, Any], new: Dict[str, Any], direction: str, where: str) -> None:
        old_e, new_e = self.enum(old), self.enum(new)
        if old_e is not None:
            if new_e is None:
                if direction == RESPONSE:
                    self.breaks.append(f"{where}: no longer one of {old_e}")
            else:
                gone = [v for v in old_e if v not in new_e]
                if gone:
                    self.breaks.append(f"{where}: {'value' if len(gone) == 1 else 'values'} {gone} removed"
                                       f"{' (const changed)' if 'const' in old or 'const' in new else ''}")
                added = [v for v in new_e if v not in old_e]
                if added and direction == RESPONSE:
                    self.additions.append(f"{where}: new values {added}")
                elif added:
                    self.additions.append(f"{where}: accepts the values {added} too")
        elif new_e is not None and direction == REQUEST:
            self.breaks.append(f"{where}: now only one of {new_e}")
        if direction == REQUEST:
            self.constraints(old, new, where)
        self.properties(old, new, direction, where)
        if isinstance(old.get("items"), dict) and isinstance(new.get("items"), dict):
            self.schema(old["items"], new["items"], direction, where + "[]")
        old_ap, new_ap = old.get("additionalProperties"), new.get("additionalProperties")
        if isinstance(old_ap, dict) and isinstance(new_ap, dict):
            self.schema(old_ap, new_ap, direction, where + "{}")
        if direction == REQUEST and old_ap is not False and new_ap is False and ("properties" in old or old_ap):
            self.breaks.append(f"{where}: refuses properties it did not declare, which it took")

    def constraints(self, old: Dict[str, Any], new: Dict[str, Any], where: str) -> None:
        for k in _TIGHTER_IF_LOWER:
            if k in new and (k not in old or new[k] < old[k]):
                self.breaks.append(f"{where}: {k} {old.get(k, 'none')} -> {new[k]} (accepts less)")
        for k in _TIGHTER_IF_HIGHER:
            if k in new and (k not in old or new[k] > old[k]):
                self.breaks.append(f"{where}: {k} {old.get(k, 'none')} -> {new[k]} (accepts less)")
        if "pattern" in new and new.get("pattern") != old.get("pattern"):
            self.breaks.append(f"{where}: pattern {old.get('pattern')!r} -> {new['pattern']!r}")

    def properties(self, old: Dict[str, Any], new: Dict[str, Any], direction: str, where: str) -> None:
        old_p = old.get("properties") if isinstance(old.get("properties"), dict) else {}
        new_p = new.get("properties") if isinstance(new.get("properties"), dict) else {}
        old_r, new_r = set(old.get("required") or []), set(new.get("required") or [])
        for name, s in old_p.items():
            if name not in new_p:
                self.breaks.append(f"{where}.{name}: removed (or renamed)")
            else:
                self.schema(s, new_p[name], direction, f"{where}.{name}")
        for name in new_p:
            if name not in old_p:
                if direction == REQUEST and name in new_r:
                    self.breaks.append(f"{where}.{name}: a new required property of a request")
                else:
                    self.additions.append(f"{where}.{name}: new")
        if direction == REQUEST:
            for name in sorted((new_r - old_r) & set(old_p)):
                self.breaks.append(f"{where}.{name}: required now")
        else:
            for name in sorted((old_r - new_r) & set(new_p)):
                self.breaks.append(f"{where}.{name}: no longer always present")

    # --- the OpenAPI document -----------------------------------------------------------------

    def openapi(self) -> None:
        old_paths, new_paths = self.old_doc.get("paths", {}), self.new_doc.get("paths", {})
        for path, methods in old_paths.items():
            if path not in new_paths:
                self.breaks.append(f"{path}: route removed")
                continue
            for method, op in methods.items():
                if method not in new_paths[path]:
                    self.breaks.append(f"{method.upper()} {path}: method removed")
                else:
                    self.operation(op, new_paths[path][method], f"{method.upper()} {path}")
            for method in new_paths[path]:
                if method not in methods:
                    self.additions.append(f"{method.upper()} {path}: new")
        for path in new_paths:
            if path not in old_paths:
                self.additions.append(f"{path}: new route")
        old_c = self.old_doc.get("components", {}).get("schemas", {})
        new_c = self.new_doc.get("components", {}).get("schemas", {})
        for name in old_c:
            if name not in new_c:
                self.breaks.append(f"components.schemas.{name}: removed (or renamed; SDK types name them)")
        for name in new_c:
            if name not in old_c:
                self.additions.append(f"components.schemas.{name}: new")

    def operation(self, old: Dict[str, Any], new: Dict[str, Any], where: str) -> None:
        old_role, new_role = old.get("x-kwb-role", ""), new.get("x-kwb-role", "")
        if _ROLES.get(new_role, 0) > _ROLES.get(old_role, 0):
            self.breaks.append(f"{where}: needs the {new_role} role (was {old_role or 'public'})")
        old_params = {(p.get("in"), p.get("name")): p for p in old.get("parameters", [])}
        new_params = {(p.get("in"), p.get("name")): p for p in new.get("parameters", [])}
        for key, p in old_params.items():
            at = f"{where} {key[0]} parameter {key[1]}"
            if key not in new_params:
                self.breaks.append(f"{at}: removed (or renamed)")
                continue
            if new_params[key].get("required") and not p.get("required"):
                self.breaks.append(f"{at}: required now")
            self.schema(p.get("schema", {}), new_params[key].get("schema", {}), REQUEST, at)
        for key, p in new_params.items():
            if key not in old_params:
                if p.get("required"):
                    self.breaks.append(f"{where} {key[0]} parameter {key[1]}: a new required parameter")
                else:
                    self.additions.append(f"{where} {key[0]} parameter {key[1]}: new")
        old_body, new_body = old.get("requestBody"), new.get("requestBody")
        if new_body and not old_body and new_body.get("required"):
            self.breaks.append(f"{where}: a request body is required now")
        if old_body and new_body:
            if new_body.get("required") and not old_body.get("required"):
                self.breaks.append(f"{where}: the request body is required now")
            self.content(old_body.get("content", {}), new_body.get("content", {}), REQUEST, f"{where} request")
        elif old_body and not new_body:
            self.breaks.append(f"{where}: takes no request body now")
        old_resp, new_resp = old.get("responses", {}), new.get("responses", {})
        for status, r in old_resp.items():
            if status not in new_resp:
                if status.startswith("2"):
                    self.breaks.append(f"{where} {status}: response removed")
                continue
            self.content(r.get("content", {}), new_resp[status].get("content", {}), RESPONSE, f"{where} {status}")
        for status in new_resp:
            if status not in old_resp and status.startswith("2"):
                self.additions.append(f"{where} {status}: new response")

    def content(self, old: Dict[str, Any], new: Dict[str, Any], direction: str, where: str) -> None:
        for media, body in old.items():
            if media not in new:
                self.breaks.append(f"{where} {media}: media type removed")
            else:
                self.schema(body.get("schema", {}), new[media].get("schema", {}), direction, f"{where} {media}")

    # --- the other surfaces -------------------------------------------------------------------

    def verdict(self) -> None:
        if self.old_doc.get("schema") != self.new_doc.get("schema"):
            self.breaks.append(f"verdict: schema {self.old_doc.get('schema')} -> {self.new_doc.get('schema')} "
                               "(a new version is served beside the old one, never instead of it)")
        self.schema(self.old_doc.get("root", {}), self.new_doc.get("root", {}), RESPONSE, "verdict")

    def mcp(self) -> None:
        old_t, new_t = self.old_doc.get("tools", {}), self.new_doc.get("tools", {})
        for name, tool in old_t.items():
            if name not in new_t:
                self.breaks.append(f"MCP tool {name}: removed (or renamed)")
                continue
            self.schema(tool.get("inputSchema", {}), new_t[name].get("inputSchema", {}), REQUEST, f"MCP {name} input")
            self.schema(tool.get("outputSchema", {}), new_t[name].get("outputSchema", {}), RESPONSE, f"MCP {name} output")
        for name in new_t:
            if name not in old_t:
                self.additions.append(f"MCP tool {name}: new")

    def cli(self) -> None:
        old_c, new_c = self.old_doc.get("commands", {}), self.new_doc.get("commands", {})
        for command, shape in old_c.items():
            if command not in new_c:
                self.breaks.append(f"{command}: no longer documented (removed or renamed)")
            else:
                self.schema(shape, new_c[command], RESPONSE, command)
        for command in new_c:
            if command not in old_c:
                self.additions.append(f"{command}: new")


def _json_type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    return "array" if isinstance(v, list) else "object"


def _covers(wide: Set[str], narrow: Set[str]) -> bool:
    """Whether every value of types ``narrow`` is of types ``wide`` (an integer is a number)."""
    return all(t in wide or (t == "integer" and "number" in wide) for t in narrow)


def _ref_name(s: Any) -> str:
    """The component a schema refers to, directly or as the one reference of a nullable anyOf."""
    if not isinstance(s, dict):
        return ""
    if isinstance(s.get("$ref"), str):
        return s["$ref"].rsplit("/", 1)[-1]
    refs = [b["$ref"] for b in s.get("anyOf", s.get("oneOf", [])) if isinstance(b, dict) and isinstance(b.get("$ref"), str)]
    return refs[0].rsplit("/", 1)[-1] if len(refs) == 1 else ""


def _overlap(a: Optional[Set[str]], b: Optional[Set[str]]) -> bool:
    if a is _ANY or b is _ANY:
        return True
    numbers = {"integer", "number"}
    return bool(a & b) or bool(a & numbers and b & numbers)


def _show(t: Optional[Set[str]]) -> str:
    return "anything" if t is None else "|".join(sorted(t))


def breaking_changes(kind: str, old: Any, new: Any) -> Tuple[List[str], List[str]]:
    """The breaks and the additions from snapshot ``old`` to ``new`` of surface ``kind``."""
    d = _Diff(old, new)
    {"openapi": d.openapi, "verdict": d.verdict, "mcp": d.mcp, "cli": d.cli}[kind]()
    return d.breaks, d.additions
