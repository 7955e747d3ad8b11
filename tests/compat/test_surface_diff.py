"""The compatibility gate's rules (tests/compat/surface_diff.py) on small fixtures and on the
snapshot in the tree: a field renamed, a route or tool removed, a type changed, an enum value
removed, a request field newly required fail; a field, route, tool or response enum value added
passes. Run by ctest (CompatSurfaceDiff); by hand: python3 -m unittest -v test_surface_diff
(in tests/compat).
"""
import copy
import json
import unittest
from pathlib import Path
from typing import Any, Dict, List

from surface_diff import breaking_changes

HERE = Path(__file__).resolve().parent


def doc(schemas: Dict[str, Any], paths: Any = None) -> Dict[str, Any]:
    return {"openapi": "3.1.0", "paths": paths or {}, "components": {"schemas": schemas}}


def ref(name: str) -> Dict[str, str]:
    return {"$ref": "#/components/schemas/" + name}


def obj(props: Dict[str, Any], required: List[str]) -> Dict[str, Any]:
    return {"type": "object", "properties": props, "required": required}


def route(request: Any = None, response: Any = None, params: Any = None, role: str = "agent") -> Dict[str, Any]:
    op: Dict[str, Any] = {"x-kwb-role": role, "parameters": params or [],
                          "responses": {"200": {"content": {"application/json": {"schema": response or {"type": "object"}}}}}}
    if request is not None:
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": request}}}
    return op


# A small API: a submission (request) and a candidate (response), with a nullable verdict and a
# recursive tree.
SUBMIT = obj({"op": {"type": "string"}, "note": {"type": "string", "maxLength": 4096},
              "backend": {"type": "string", "enum": ["cpu", "cuda"]}}, ["op"])
CANDIDATE = obj({"id": {"type": "string"}, "state": {"type": "string", "enum": ["queued", "done"]},
                 "speedup": {"type": ["number", "null"]}, "verdict": {"anyOf": [ref("Verdict"), {"type": "null"}]},
                 "children": {"type": "array", "items": ref("Candidate")}}, ["id", "state", "speedup", "verdict", "children"])
VERDICT = obj({"schema": {"const": "kwb.verdict.v1"}, "status": {"type": "string"}, "reason": {"type": "string"}},
              ["schema", "status", "reason"])
BASE = doc({"Submit": SUBMIT, "Candidate": CANDIDATE, "Verdict": VERDICT},
           {"/v1/candidates": {"post": route(ref("Submit"), ref("Candidate")),
                               "get": route(None, {"type": "array", "items": ref("Candidate")},
                                            [{"name": "op", "in": "query", "required": False,
                                              "schema": {"type": "string"}}])}})


def changed(edit) -> Dict[str, Any]:
    d = copy.deepcopy(BASE)
    edit(d)
    return d


def schemas(d: Dict[str, Any]) -> Dict[str, Any]:
    return d["components"]["schemas"]


class OpenApiRules(unittest.TestCase):
    def assertBreaks(self, new: Dict[str, Any], *fragments: str) -> None:
        breaks, _ = breaking_changes("openapi", BASE, new)
        self.assertTrue(breaks, "no break found")
        for f in fragments:
            self.assertTrue(any(f in b for b in breaks), f"{f!r} not in {breaks}")

    def assertPasses(self, new: Dict[str, Any], *added: str) -> None:
        breaks, additions = breaking_changes("openapi", BASE, new)
        self.assertEqual(breaks, [])
        for f in added:
            self.assertTrue(any(f in a for a in additions), f"{f!r} not in {additions}")

    def test_the_same_document_passes_with_nothing_added(self) -> None:
        self.assertEqual(breaking_changes("openapi", BASE, copy.deepcopy(BASE)), ([], []))

    def test_a_renamed_response_field_fails_and_an_added_one_passes(self) -> None:
        def rename(d):
            s = schemas(d)["Verdict"]
            s["properties"]["why"] = s["properties"].pop("reason")
            s["required"] = ["schema", "status", "why"]
        self.assertBreaks(changed(rename), "Verdict", ".reason: removed (or renamed)")

        def add(d):
            schemas(d)["Verdict"]["properties"]["detail"] = {"type": "string"}
        self.assertPasses(changed(add), ".detail: new")

    def test_a_renamed_request_field_fails_and_an_added_optional_one_passes(self) -> None:
        def rename(d):
            schemas(d)["Submit"]["properties"]["comment"] = schemas(d)["Submit"]["properties"].pop("note")
        self.assertBreaks(changed(rename), "request", ".note: removed (or renamed)")
        self.assertPasses(changed(lambda d: schemas(d)["Submit"]["properties"].update(tag={"type": "string"})), ".tag: new")

    def test_a_request_field_newly_required_fails(self) -> None:
        self.assertBreaks(changed(lambda d: schemas(d)["Submit"]["properties"].update(tag={"type": "string"}) or
                                  schemas(d)["Submit"]["required"].append("tag")), ".tag: a new required property")
        self.assertBreaks(changed(lambda d: schemas(d)["Submit"]["required"].append("note")), ".note: required now")

    def test_types_change_by_direction(self) -> None:
        # A response: a changed or widened type fails, a narrowed one passes.
        self.assertBreaks(changed(lambda d: schemas(d)["Verdict"]["properties"].update(status={"type": "integer"})),
                          ".status: may be integer where it was string")
        self.assertBreaks(changed(lambda d: schemas(d)["Verdict"]["properties"].update(status={"type": ["string", "null"]})),
                          ".status: may be null|string")
        self.assertPasses(changed(lambda d: schemas(d)["Candidate"]["properties"].update(speedup={"type": "number"})),
                          "now always number")
        # A request: a narrowed type or a tighter constraint fails, a wider one passes.
        self.assertBreaks(changed(lambda d: schemas(d)["Submit"]["properties"].update(op={"type": "integer"})),
                          ".op: accepts integer where it accepted string")
        self.assertBreaks(changed(lambda d: schemas(d)["Submit"]["properties"]["note"].update(maxLength=100)),
                          "maxLength 4096 -> 100")
        self.assertPasses(changed(lambda d: schemas(d)["Submit"]["properties"]["note"].update(maxLength=8192)))
        self.assertPasses(changed(lambda d: schemas(d)["Submit"]["properties"].update(op={"type": ["string", "null"]})))

    def test_enum_values(self) -> None:
        self.assertBreaks(changed(lambda d: schemas(d)["Candidate"]["properties"]["state"].update(enum=["done"])),
                          "['queued'] removed")
        self.assertPasses(changed(lambda d: schemas(d)["Candidate"]["properties"]["state"]["enum"].append("cancelled")),
                          "new values ['cancelled']")
        self.assertBreaks(changed(lambda d: schemas(d)["Submit"]["properties"]["backend"].update(enum=["cpu"])),
                          "['cuda'] removed")
        self.assertPasses(changed(lambda d: schemas(d)["Submit"]["properties"]["backend"]["enum"].append("cuda-launcher")))

    def test_routes_methods_parameters_and_roles(self) -> None:
        self.assertBreaks(changed(lambda d: d["paths"].pop("/v1/candidates")), "/v1/candidates: route removed")
        self.assertBreaks(changed(lambda d: d["paths"]["/v1/candidates"].pop("get")), "GET /v1/candidates: method removed")
        self.assertPasses(changed(lambda d: d["paths"].update({"/v1/attempts": {"get": route()}})), "/v1/attempts: new route")
        self.assertBreaks(changed(lambda d: d["paths"]["/v1/candidates"]["get"]["parameters"][0].update(name="ops")),
                          "query parameter op: removed (or renamed)")
        self.assertBreaks(changed(lambda d: d["paths"]["/v1/candidates"]["get"]["parameters"].append(
            {"name": "limit", "in": "query", "required": True, "schema": {"type": "integer"}})), "a new required parameter")
        self.assertPasses(changed(lambda d: d["paths"]["/v1/candidates"]["get"]["parameters"].append(
            {"name": "limit", "in": "query", "required": False, "schema": {"type": "integer"}})), "parameter limit: new")
        self.assertBreaks(changed(lambda d: d["paths"]["/v1/candidates"]["post"].update({"x-kwb-role": "reviewer"})),
                          "needs the reviewer role")
        self.assertBreaks(changed(lambda d: d["paths"]["/v1/candidates"]["post"]["responses"].pop("200")), "200: response removed")
        self.assertBreaks(changed(lambda d: schemas(d).pop("Submit")), "components.schemas.Submit: removed")

    def test_a_nullable_reference_and_a_recursive_schema_are_followed(self) -> None:
        # Verdict is reached through Candidate.verdict (anyOf with null), Candidate through its children.
        def drop_reason(d):
            schemas(d)["Verdict"]["properties"].pop("reason")
        breaks, _ = breaking_changes("openapi", BASE, changed(drop_reason))
        self.assertTrue(any("(Candidate).verdict (Verdict).reason: removed" in b for b in breaks), breaks)


class OtherSurfaces(unittest.TestCase):
    def verdict_doc(self, schema: str = "kwb.verdict.v1") -> Dict[str, Any]:
        return {"schema": schema, "root": ref("Verdict"), "components": {"schemas": {"Verdict": copy.deepcopy(VERDICT)}}}

    def test_a_new_verdict_version_is_a_break_of_the_old_snapshot(self) -> None:
        new = self.verdict_doc("kwb.verdict.v2")
        new["components"]["schemas"]["Verdict"]["properties"]["schema"] = {"const": "kwb.verdict.v2"}
        breaks, _ = breaking_changes("verdict", self.verdict_doc(), new)
        self.assertTrue(any("kwb.verdict.v1 -> kwb.verdict.v2" in b for b in breaks), breaks)
        self.assertTrue(any("const changed" in b for b in breaks), breaks)

    def test_mcp_tools(self) -> None:
        tool = {"inputSchema": obj({"op": {"type": "string"}, "limit": {"type": "integer"}}, ["op"]),
                "outputSchema": obj({"best": {"type": ["string", "null"]}}, ["best"])}
        old = {"tools": {"list_attempts": tool}}
        renamed = copy.deepcopy(old)
        renamed["tools"]["list_attempts"]["inputSchema"]["properties"]["max"] = \
            renamed["tools"]["list_attempts"]["inputSchema"]["properties"].pop("limit")
        self.assertTrue(any("MCP list_attempts input.limit: removed" in b for b in breaking_changes("mcp", old, renamed)[0]))
        gone = {"tools": {}}
        self.assertIn("MCP tool list_attempts: removed (or renamed)", breaking_changes("mcp", old, gone)[0])
        more = copy.deepcopy(old)
        more["tools"]["get_lineage"] = tool
        more["tools"]["list_attempts"]["outputSchema"]["properties"]["latest"] = {"type": "string"}
        self.assertEqual(breaking_changes("mcp", old, more)[0], [])

    def test_cli_outputs(self) -> None:
        old = {"commands": {"kwb list --json": {"type": "array", "items": ref("Candidate")}},
               "components": {"schemas": {"Candidate": CANDIDATE, "Verdict": VERDICT}}}
        self.assertIn("kwb list --json: no longer documented (removed or renamed)",
                      breaking_changes("cli", old, {"commands": {}, "components": old["components"]})[0])
        narrowed = copy.deepcopy(old)
        narrowed["components"]["schemas"]["Candidate"]["properties"]["id"] = {"type": "integer"}
        self.assertTrue(breaking_changes("cli", old, narrowed)[0])


class TheSnapshotInTheTree(unittest.TestCase):
    """The same rules on tests/compat/v1: a field renamed in a test branch fails, one added passes."""

    @classmethod
    def setUpClass(cls) -> None:
        folder = HERE / "v1"
        cls.snap = {kind: json.loads((folder / name).read_text()) for kind, name in
                    {"openapi": "openapi.json", "verdict": "verdict.schema.json", "mcp": "mcp_tools.json",
                     "cli": "cli_json.json"}.items()}

    def test_each_snapshot_is_compatible_with_itself(self) -> None:
        for kind, s in self.snap.items():
            self.assertEqual(breaking_changes(kind, s, copy.deepcopy(s)), ([], []), kind)

    def test_a_verdict_field_renamed_fails_on_every_surface_that_shows_it(self) -> None:
        for kind in ("openapi", "verdict", "cli"):
            new = copy.deepcopy(self.snap[kind])
            v = new["components"]["schemas"]["Verdict"]
            v["properties"]["reason_text"] = v["properties"].pop("reason")
            v["required"] = [r if r != "reason" else "reason_text" for r in v["required"]]
            breaks, _ = breaking_changes(kind, self.snap[kind], new)
            self.assertTrue(any(".reason: removed (or renamed)" in b for b in breaks), (kind, breaks))

    def test_a_verdict_field_added_passes(self) -> None:
        for kind in ("openapi", "verdict", "cli"):
            new = copy.deepcopy(self.snap[kind])
            new["components"]["schemas"]["Verdict"]["properties"]["hint"] = {"type": "string"}
            breaks, additions = breaking_changes(kind, self.snap[kind], new)
            self.assertEqual(breaks, [], kind)
            self.assertTrue(any(".hint: new" in a for a in additions), (kind, additions))

    def test_a_route_removed_and_a_lineage_field_retyped_fail(self) -> None:
        new = copy.deepcopy(self.snap["openapi"])
        new["paths"].pop("/v1/attempts")
        new["components"]["schemas"]["AttemptNode"]["properties"]["best"] = {"type": "string"}
        breaks, _ = breaking_changes("openapi", self.snap["openapi"], new)
        self.assertTrue(any("/v1/attempts: route removed" in b for b in breaks), breaks)
        self.assertTrue(any(".best: may be string where it was boolean" in b for b in breaks), breaks)

    def test_the_deprecated_gpu_field_is_still_there(self) -> None:
        gpu = self.snap["openapi"]["components"]["schemas"]["Devices"]["properties"]["gpus"]["items"]["properties"]
        self.assertTrue(gpu["device_class"].get("deprecated"))
        self.assertIn("device_id", gpu)
        new = copy.deepcopy(self.snap["openapi"])
        new["components"]["schemas"]["Devices"]["properties"]["gpus"]["items"]["properties"].pop("device_class")
        self.assertTrue(breaking_changes("openapi", self.snap["openapi"], new)[0], "dropping it is a break")


if __name__ == "__main__":
    unittest.main()
