"""The schemas in schemas/ are real draft 2020-12 schemas, and the contract's
'no extra keys anywhere' holds at every level of the two contract schemas."""

import json

import jsonschema
import pytest

from conftest import SCHEMAS, schema

pytestmark = pytest.mark.quick

ALL = sorted(p.name[: -len(".schema.json")] for p in SCHEMAS.glob("*.schema.json"))
CONTRACT = ["nextstat.ml_benchmark_result.v1", "nextstat.ml_benchmark_suite_result.v1"]


@pytest.mark.parametrize("name", ALL)
def test_schema_is_valid_2020_12(name):
    s = schema(name)
    assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(s)


def object_schemas(node, path="#"):
    if isinstance(node, dict):
        if node.get("type") == "object" and "properties" in node:
            yield path, node
        for k, v in node.items():
            yield from object_schemas(v, f"{path}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from object_schemas(v, f"{path}/{i}")


@pytest.mark.parametrize("name", CONTRACT)
def test_contract_forbids_extra_keys_everywhere(name):
    found = list(object_schemas(schema(name)))
    assert found
    for path, obj in found:
        assert obj.get("additionalProperties") is False, path


def test_contract_rejects_an_extra_key():
    doc = {"schema_version": "nextstat.ml_benchmark_suite_result.v1", "suite": "ml", "deterministic": False,
           "meta": {"python": "3.11", "platform": "x", "extra": 1}, "cases": [],
           "summary": {"n_cases": 0, "n_ok": 0, "n_warn": 0, "n_failed": 0, "worst_case": ""}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema(CONTRACT[1])).validate(doc)
    del doc["meta"]["extra"]
    jsonschema.Draft202012Validator(schema(CONTRACT[1])).validate(doc)
