"""The Python SDK's response types (agents/python/kwb/types.py) agree with the daemon's OpenAPI
document (issue 17, point 2): every field of every TypedDict is a property of the schema the
daemon documents for that reply (nested types follow the schema's $ref, items and
additionalProperties), every property a schema requires is a field of the SDK type, and every
TypedDict of the module is checked (a new one must be mapped here).

The document is the one a running `kwb serve` serves at /openapi.json (no auth needed).

Run by ctest (tests/CMakeLists.txt: AgentSdkTypes); by hand:
    KWB_TEST_BIN_DIR=build/bin python3 -m unittest discover -s tests/agents -p 'test_sdk_types.py' -v
"""
import json
import typing
import unittest
import urllib.request
from typing import Any, Dict, List, Optional, Set, Tuple

from daemon import Daemon  # also puts agents/python on sys.path

from kwb import types as sdk_types

# SDK type -> (component schema, path inside it): "[]" is an array's items.
ROOTS: Dict[str, Tuple[str, Tuple[str, ...]]] = {
    "Submission": ("SubmitReply", ()),
    "Verdict": ("Verdict", ()),
    "Candidate": ("Candidate", ()),
    "CandidatePage": ("CandidateList", ()),
    "Event": ("Event", ()),
    "EventsPage": ("EventPage", ()),
    "CancelResult": ("CancelReply", ()),
    "ProfileQueued": ("ProfileReply", ()),
    "Diff": ("Diff", ()),
    "Promotion": ("Promoted", ()),
    "Rejection": ("Rejected", ()),
    "Leaderboard": ("Leaderboard", ()),
    "ReviewQueue": ("ReviewQueue", ()),
    "Library": ("Library", ()),
    "LibraryReport": ("LibraryReport", ()),
    "Retime": ("RetimeReply", ()),
    "Spec": ("Spec", ()),
    "SpecAdded": ("SpecAdded", ()),
    "AnalysisRules": ("Rules", ()),
    "Health": ("Health", ()),
    "Device": ("Devices", ("devices", "[]")),
    "DeviceClass": ("Devices", ("device_classes", "[]")),
    "CreatedToken": ("TokenCreated", ()),
    "TokenInfo": ("TokenList", ("tokens", "[]")),
    "RevokedToken": ("TokenRevoked", ()),
    "Gpu": ("Devices", ("gpus", "[]")),
    "Lineage": ("Lineage", ()),
    "Attempts": ("Attempts", ()),
}


# Fields the SDK adds on the client side (not in the daemon's reply).
CLIENT_SIDE: Dict[str, Set[str]] = {
    "Submission": {"replayed", "idempotency_key"},  # from the Idempotent-Replay header and the key it sent
}


def is_typeddict(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, dict) and hasattr(t, "__annotations__") and hasattr(t, "__total__")


class Checker:
    def __init__(self, doc: Dict[str, Any]) -> None:
        self.schemas: Dict[str, Any] = doc["components"]["schemas"]
        self.problems: List[str] = []
        self.checked: Set[str] = set()
        self.active: Set[str] = set()

    def resolve(self, s: Any) -> Any:
        """A schema with $ref followed and a nullable anyOf reduced to its one non-null branch."""
        while isinstance(s, dict):
            if "$ref" in s:
                s = self.schemas[s["$ref"].rsplit("/", 1)[-1]]
            elif "anyOf" in s:
                branches = [b for b in s["anyOf"] if b.get("type") != "null"]
                if len(branches) != 1:
                    return s
                s = branches[0]
            else:
                return s
        return s

    def walk(self, s: Any, path: Tuple[str, ...], where: str) -> Any:
        for step in path:
            s = self.resolve(s)
            s = s["items"] if step == "[]" else s["properties"][step]
            where += step if step == "[]" else "." + step
        return s

    def check(self, td: Any, schema: Any, where: str) -> None:
        name = td.__name__
        if name in self.active:  # a recursive type (AttemptNode.children): checked where it began
            return
        self.checked.add(name)
        self.active.add(name)
        try:
            self.check_fields(td, schema, where)
        finally:
            self.active.discard(name)

    def check_fields(self, td: Any, schema: Any, where: str) -> None:
        name = td.__name__
        schema = self.resolve(schema)
        props = schema.get("properties") if isinstance(schema, dict) else None
        hints = typing.get_type_hints(td)
        if props is None:
            self.problems.append(f"{name}: the OpenAPI schema at {where} declares no properties "
                                 f"(the SDK type has {sorted(hints)})")
            return
        for field, ann in hints.items():
            if field in CLIENT_SIDE.get(name, set()):
                continue
            if field not in props:
                self.problems.append(f"{name}.{field}: not a property of the OpenAPI schema at {where} "
                                     f"(it has: {', '.join(sorted(props))})")
                continue
            self.check_annotation(ann, props[field], f"{where}.{field}")
        for req in schema.get("required", []):
            if req not in hints:
                self.problems.append(f"{name}: lacks the field '{req}' that the OpenAPI schema at {where} requires")

    def check_annotation(self, ann: Any, schema: Any, where: str) -> None:
        if is_typeddict(ann):
            self.check(ann, schema, where)
            return
        origin, args = typing.get_origin(ann), typing.get_args(ann)
        if origin is typing.Union:
            for a in args:
                if a is not type(None):
                    self.check_annotation(a, schema, where)
        elif origin in (list, List):
            s = self.resolve(schema)
            if is_typeddict(args[0]) and "items" not in s:
                self.problems.append(f"{where}: the SDK has a list of {args[0].__name__}, the schema no array items")
            elif "items" in s:
                self.check_annotation(args[0], s["items"], where + "[]")
        elif origin in (dict, Dict) and len(args) == 2 and args[1] is not Any:
            s = self.resolve(schema)
            if isinstance(s.get("additionalProperties"), dict):
                self.check_annotation(args[1], s["additionalProperties"], where + "{}")
            elif isinstance(s.get("properties"), dict):  # a map with known keys ("test", "bench")
                for key, value in s["properties"].items():
                    self.check_annotation(args[1], value, f"{where}.{key}")
            elif is_typeddict(args[1]) or typing.get_origin(args[1]) is not None:
                self.problems.append(f"{where}: the SDK has a map of {args[1]}, the schema no "
                                     "additionalProperties schema")


class SdkTypesAgreeWithOpenApi(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        daemon = Daemon()
        try:
            with urllib.request.urlopen(daemon.url + "/openapi.json", timeout=30) as r:
                cls.doc = json.load(r)
        finally:
            daemon.remove()

    def test_every_sdk_type_matches_its_schema(self) -> None:
        checker = Checker(self.doc)
        for td_name, (schema_name, path) in ROOTS.items():
            td = getattr(sdk_types, td_name, None)
            self.assertTrue(is_typeddict(td), f"kwb.types.{td_name} is mapped here but not a TypedDict of the SDK")
            self.assertIn(schema_name, checker.schemas, f"no component schema {schema_name} for {td_name}")
            where = schema_name
            schema = checker.walk(checker.schemas[schema_name], path, where)
            checker.check(td, schema, where + "".join(p if p == "[]" else "." + p for p in path))
        self.assertEqual(checker.problems, [], "\n".join(checker.problems))
        # Every TypedDict kwb.types offers: its own or those of the kwb.response_types modules it re-exports.
        every = {n for n, v in vars(sdk_types).items() if is_typeddict(v) and v.__module__.startswith("kwb.")}
        self.assertGreater(len(every), 50, "kwb.types offers fewer TypedDicts than it should: " + ", ".join(sorted(every)))
        unchecked = sorted(every - checker.checked)
        self.assertEqual(unchecked, [], "TypedDicts of kwb.types that no schema reaches: map them in ROOTS "
                                        "(or reach them through a field of a mapped type)")

    def test_the_checker_sees_a_field_the_schema_lacks(self) -> None:
        # The check itself can fail: a type with a field the schema does not have is reported.
        class Bogus(typing.TypedDict):  # type: ignore[misc]
            id: str
            no_such_field: int

        checker = Checker(self.doc)
        checker.check(Bogus, checker.schemas["SubmitReply"], "SubmitReply")
        self.assertTrue(any("Bogus.no_such_field" in p for p in checker.problems), checker.problems)


if __name__ == "__main__":
    unittest.main()
