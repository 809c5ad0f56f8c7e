"""An artifact field has one path (docs/architecture.md, "An artifact field,
from worker to schema"): the worker's report step writes it into its result
message, jitbench keeps it (kReportKeys in src/run/classify.cc) or reads it
into the run record (results/read.cc, read_measured_times), the reader
(results/worker_report.cc) parses it, the case emitter writes it and the case
schema lists it. These tests fail when one side has a field the next lacks:
the worker writes a field nobody reads, the reader reads a field jitbench does
not keep, or the case file may carry a field its schema does not name. They
read the sources as text (no build needed); each extraction is checked to
find what it must, so that a changed spelling cannot make it find nothing."""

import ast
import json
import re

import pytest

from conftest import ROOT

pytestmark = pytest.mark.quick

RUNNER = ROOT / "worker" / "jitbench_worker" / "runner.py"
CLASSIFY = ROOT / "src" / "run" / "classify.cc"
PROTOCOL = ROOT / "src" / "run" / "protocol.cc"
READ = ROOT / "src" / "results" / "read.cc"
WORKER_REPORT = ROOT / "src" / "results" / "worker_report.cc"


def latest_case_schema():
    return max((ROOT / "schemas").glob("jitbench.case.v*.schema.json"),
               key=lambda p: int(re.search(r"\.v(\d+)\.", p.name).group(1)))


def worker_fields(source: str) -> set:
    """The top-level fields of the result message the Python worker builds:
    the keys of `result = {...}` and every `result["key"] = ...`."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name) and t.id == "result" and isinstance(node.value, ast.Dict):
                    out |= {k.value for k in node.value.keys if isinstance(k, ast.Constant)}
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == "result" \
                        and isinstance(t.slice, ast.Constant):
                    out.add(t.slice.value)
    return out


def report_keys(source: str) -> set:
    """kReportKeys: what jitbench keeps of the result message as the run's worker report."""
    body = re.search(r"kReportKeys\[\]\s*=\s*\{(.*?)\};", source, re.S)
    assert body, "kReportKeys not found in src/run/classify.cc"
    return set(re.findall(r'"(\w+)"', body.group(1)))


def function_body(source: str, signature: str) -> str:
    start = source.index(signature)
    depth, at = 0, source.index("{", start)
    for i in range(at, len(source)):
        depth += {"{": 1, "}": -1}.get(source[i], 0)
        if depth == 0:
            return source[at:i + 1]
    raise AssertionError(f"no body for {signature}")


def read_into_record(read_cc: str, classify_cc: str, protocol_cc: str) -> set:
    """Fields read off the message into the run record itself (its times, the
    mode, the harness's buckets, a Triton interpreter flag), not kept as sent."""
    times = set(re.findall(r'"(\w+)"', function_body(read_cc, "void read_measured_times(")))
    rest = re.sub(r"kReportKeys\[\]\s*=\s*\{.*?\};", "", classify_cc, flags=re.S) + protocol_cc
    return times | set(re.findall(r'"(\w+)"', rest))


def reader_keys(source: str) -> set:
    """The top-level keys parse_worker_report (and its helpers) read of the kept report."""
    patterns = [r'raw\s*,\s*"/?(\w+)', r'raw\.contains\(\s*"(\w+)"', r'raw\[\s*"(\w+)"\s*\]',
                r'"/(\w+)/[\w/]*"_json_pointer', r'counted\(\s*"/(\w+)/']
    return {k for p in patterns for k in re.findall(p, source)}


def schema_worker_fields(schema: dict) -> set:
    return set(schema["$defs"]["run"]["properties"]["worker"].get("properties", {}))


def schema_run_fields(schema: dict) -> set:
    return set(schema["$defs"]["run"]["properties"])


def test_the_extractions_find_what_they_must():
    written = worker_fields(RUNNER.read_text())
    assert {"first_call_s", "verify", "harness", "local_modules", "second_call_s", "calls_s"} <= written
    kept = report_keys(CLASSIFY.read_text())
    assert {"backend", "verify", "local_modules"} <= kept
    assert {"import_s", "total_s", "calls_s", "ttfr_includes_import", "harness", "mode"} <= read_into_record(
        READ.read_text(), CLASSIFY.read_text(), PROTOCOL.read_text())
    read = reader_keys(WORKER_REPORT.read_text())
    assert {"compiles", "cache_events", "cache_files", "sync", "memory", "verify", "local_modules",
            "instrumentation", "anatomy", "device"} <= read


def sources(**changed):
    """Every side's text, with the changes a test makes to one side."""
    texts = {"runner": RUNNER.read_text(), "classify": CLASSIFY.read_text(), "protocol": PROTOCOL.read_text(),
             "read": READ.read_text(), "worker_report": WORKER_REPORT.read_text(),
             "schema": latest_case_schema().read_text()}
    return {**texts, **changed}


def unread_fields(t) -> list:
    """Written by the worker, neither kept nor read into the run record."""
    read = report_keys(t["classify"]) | read_into_record(t["read"], t["classify"], t["protocol"])
    return sorted(worker_fields(t["runner"]) - read)


def dropped_fields(t) -> list:
    """Read by the report's reader, dropped by kReportKeys before it is kept."""
    return sorted(reader_keys(t["worker_report"]) - report_keys(t["classify"]))


def unnamed_fields(t) -> list:
    """Kept in the case file, or read into its run record, without a name in the case schema."""
    schema = json.loads(t["schema"])
    times = set(re.findall(r'"(\w+)"', function_body(t["read"], "void read_measured_times(")))
    return sorted((report_keys(t["classify"]) - schema_worker_fields(schema)) |
                  (times - schema_run_fields(schema)))


def test_every_field_the_worker_writes_is_read():
    unread = unread_fields(sources())
    assert not unread, (f"worker/jitbench_worker/runner.py writes {unread}, which jitbench neither keeps "
                        "(kReportKeys, src/run/classify.cc) nor reads into the run record: add it to "
                        "kReportKeys and the case schema's run.worker, or stop writing it")


def test_every_field_the_reader_reads_is_kept():
    dropped = dropped_fields(sources())
    assert not dropped, (f"src/results/worker_report.cc reads {dropped}, which kReportKeys "
                         "(src/run/classify.cc) drops: a measured run never has it")


def test_every_kept_field_is_named_in_the_case_schema():
    unnamed = unnamed_fields(sources())
    assert not unnamed, (f"the case file keeps {unnamed}, which {latest_case_schema().name} does not name "
                         "($defs.run.worker for kReportKeys, $defs.run for the run's times)")


# A field added on one side only fails the check of that side.
def test_a_field_the_worker_alone_writes_fails():
    runner = RUNNER.read_text().replace('"sync": {', '"new_field": 1,\n        "sync": {', 1)
    assert unread_fields(sources(runner=runner)) == ["new_field"]


def test_a_field_the_reader_alone_reads_fails():
    reader = WORKER_REPORT.read_text().replace('w.local_modules = local_modules(raw);',
                                               'w.local_modules = local_modules(raw);\n  (void)raw.contains("new_field");')
    assert dropped_fields(sources(worker_report=reader)) == ["new_field"]


def test_a_field_kept_but_not_in_the_schema_fails():
    classify = CLASSIFY.read_text().replace("kReportKeys[] = {", 'kReportKeys[] = {"new_field", ', 1)
    assert unnamed_fields(sources(classify=classify)) == ["new_field"]
    # and kept where the worker writes it: the first check is then content
    runner = RUNNER.read_text().replace('"sync": {', '"new_field": 1,\n        "sync": {', 1)
    assert unread_fields(sources(runner=runner, classify=classify)) == []
