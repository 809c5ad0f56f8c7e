"""The layout docs/architecture.md describes, checked: the folders of src/ depend
on each other in one direction, exactly as its layers table says (util, config,
plan, results, run, ... commands), artifact documents are built only in export/
and read back only in results/read.cc, and no function is longer than a screen."""

import ast
import pathlib
import re
import subprocess

from conftest import ROOT

SRC = ROOT / "src"
MAX_LINES = 60


def sources():
    return [p for p in SRC.rglob("*") if p.suffix in (".h", ".cc") and not p.name.endswith("_test.cc")]


# Folders below commands/ are layers of their own (the engines a command calls,
# and what they share); every other folder of src/ is one layer.
def layer(parts):
    return "/".join(parts[:2]) if parts[0] == "commands" and len(parts) > 2 else parts[0]


def layers():
    return {layer(p.relative_to(SRC).parts) for p in sources() if len(p.relative_to(SRC).parts) > 1}


def include_graph():
    edges = {}
    for p in sources():
        here = layer(p.relative_to(SRC).parts)
        for inc in re.findall(r'^#include "([a-z0-9_/]+\.h)"', p.read_text(), re.M):
            there = layer(tuple(inc.split("/")))
            if there != here:
                edges.setdefault(here, set()).add(there)
    return edges


def test_the_layers_table_of_architecture_md_is_the_include_graph():
    text = (ROOT / "docs" / "architecture.md").read_text()
    table = text.split("<!-- layers-table -->")[1].split("<!-- /layers-table -->")[0]
    said = {}
    for line in table.strip().splitlines()[2:]:
        folder, includes = (c.strip() for c in line.strip("|").split("|"))
        said[folder] = set() if includes == "—" else {x.strip() for x in includes.split(",")}
    folders = layers()
    assert set(said) == folders, sorted(folders ^ set(said))
    edges = include_graph()
    assert {f: edges.get(f, set()) for f in folders} == said
    # Each folder includes only folders above it in the table.
    order = list(said)
    for f, deps in said.items():
        assert all(order.index(d) < order.index(f) for d in deps), f


def test_results_never_depends_on_analysis_and_nothing_goes_round():
    edges = include_graph()
    assert "analysis" not in edges.get("results", set())
    assert "export" not in edges.get("results", set()) | edges.get("analysis", set())
    assert edges.get("analysis", set()) <= {"results", "stats", "config", "plan", "util"}, edges.get("analysis")
    # No cycle among the folders (depth-first search for a back edge).
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in edges.get(node, ()):
            assert state.get(nxt) != "open", " -> ".join(path + [nxt])
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for node in list(edges):
        if node not in state:
            visit(node, [node])


def test_artifact_documents_are_written_in_export_and_read_in_results_read():
    for p in sources():
        rel = p.relative_to(SRC).as_posix()
        text = p.read_text()
        if '"schema_version"' in text:
            assert rel.startswith(("export/", "validate/")), rel
        if "json::parse(" in text:
            # Text jitbench did not write goes through util/json_parse.cc (its
            # nesting bounded first); artifacts are read back only by
            # results/read.cc. The others parse recordings, the embedded catalog
            # and schemas; export/case_json.cc re-reads the text it is about to
            # write, to validate exactly that against the schema.
            assert rel in {"util/json_parse.cc", "results/read.cc", "run/replay.cc", "config/catalog.cc",
                           "export/schema.cc", "export/case_json.cc"}, rel


def cpp_function_lengths(path):
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines):
        if re.match(r"^[A-Za-z].*\)\s*(const\s*)?(override\s*)?\{\s*$", lines[i]) and \
                not lines[i].startswith(("namespace", "struct", "class", "enum")):
            depth, j = 0, i
            while j < len(lines):
                depth += lines[j].count("{") - lines[j].count("}")
                if depth == 0:
                    break
                j += 1
            yield lines[i].strip(), j - i + 1
            i = j
        i += 1


def test_no_function_is_longer_than_a_screen():
    long = [f"{p.relative_to(ROOT)}: {name} ({n} lines)" for p in sources() if p.suffix == ".cc"
            for name, n in cpp_function_lengths(p) if n > MAX_LINES]
    for p in list(SRC.rglob("*.py")) + list((ROOT / "worker").rglob("*.py")):
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_LINES:
                    long.append(f"{p.relative_to(ROOT)}: {node.name} ({n} lines)")
    assert long == []


def test_no_project_file_cites_the_notes_beside_the_checkout():
    """The repository stands alone: no tracked file points into the folder of
    notes that sits beside a developer's checkout and in no clone."""
    beside = "../" + "shared"
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    citing = []
    for name in filter(None, tracked.decode().split("\0")):
        path = ROOT / name
        try:
            text = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue
        if beside in text:
            citing.append(name)
    assert citing == []
