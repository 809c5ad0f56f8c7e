"""The layout docs/architecture.md describes, checked: the folders of src/ depend
on each other in one direction, exactly as its layers table says (util, config,
plan, results, run, ... commands), artifact documents are built only in export/
and read back only in results/read.cc, and no function is longer than a screen."""

import ast
import pathlib
import re
import subprocess

import pytest

from conftest import ROOT

pytestmark = pytest.mark.quick

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
        # Free functions and the member functions defined inside a class body
        # (indented), not the blocks of statements inside either.
        if re.match(r"^\s*[A-Za-z~].*\)\s*(const\s*)?(noexcept\s*)?(override\s*)?\{\s*$", lines[i]) and \
                not re.match(r"\s*(namespace|struct|class|enum|if|for|while|switch|else|do|catch|try|return)\b",
                             lines[i]):
            start = i  # a signature over several lines counts from its first
            while start > 0:
                prev = lines[start - 1].strip()
                if not prev or prev.endswith((";", "{", "}", ":")) or prev.startswith(("//", "#", "*", "/*")):
                    break
                start -= 1
            depth, j = 0, i
            while j < len(lines):
                depth += lines[j].count("{") - lines[j].count("}")
                if depth == 0:
                    break
                j += 1
            yield lines[start].strip(), j - start + 1
            i = j
        i += 1


def test_no_function_is_longer_than_a_screen():
    long = [f"{p.relative_to(ROOT)}: {name} ({n} lines)" for p in sources()
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


def without_comments_and_string_text(text):
    """C++ source with its comments removed and every string or character
    literal's text blanked ("..." -> ""), so that neither can look like code."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(" " + "\n" * text.count("\n", i, end))  # the lines keep their numbers
            i = end
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            delim = text[i + 2:text.index("(", i)]
            end = text.find(")" + delim + '"', i)
            end = n if end < 0 else end + len(delim) + 2
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


# A JSON value assembled by hand: json::object()/array(), json{...}, json(...),
# json x = {...}, a brace literal handed to an export/*_json function, or a
# json variable that is filled in: x["key"] = ..., x[k] = ..., x.push_back(...),
# x = {...}. The json variables: those the file declares json (or auto from a
# *_json(...) or a get<json>), and the json members the headers of src/ declare
# (h.index_extra, env.manifest), reached through . or ->.
JSON = r"(?:json|ordered_json|basic_json\s*<[^>]*>)"
JSON_LITERAL = [
    rf"\b{JSON}\s*::\s*(object|array)\s*\(",
    rf"\b{JSON}\s*(\{{|\(\s*\{{|\()",
    rf"\b{JSON}\s*[&*]?\s*\w+\s*(=\s*)?\{{",  # json x = {...}, json x{...}
    r"\b\w+_json\s*\([^;]*\{\s*\{",
    # A container of JSON values (filled here, whatever it is filled with), or a function returning one by value.
    rf"(?<!get)(?<!get_if)(?<!holds_alternative)<\s*(?:nlohmann::)?{JSON}\s*[,>]",
    rf",\s*(?:nlohmann::)?{JSON}\s*>",
    rf"(?<!const )(?<!const nlohmann::)(?<![\w:<])(?:nlohmann::)?{JSON}\s+\w+\s*\([^;{{]*\)\s*(const\s*)?\{{",
]
JSON_VARIABLE = [
    rf"\b{JSON}\b\s*[&*]?\s+(\w+)",
    r"\bauto\s*[&*]?\s+(\w+)\s*=\s*(?:[\w:]+::)?\w+_json\s*\(",
    rf"\bauto\s*[&*]?\s+(\w+)\s*=\s*std::get<(?:nlohmann::)?{JSON}>",
]
JSON_FILLED = (r"{name}\s*((\[[^\]]*\]\s*|\.\s*at\s*\([^)]*\)\s*)+\+?=(?!=)|\+=|"
               r"(\[[^\]]*\]\s*)*\.\s*(push_back|emplace_back|emplace|update|insert|merge_patch)\s*\(|=\s*\{{)")


def json_built_in_commands(src):
    """Every place of src/commands/**/*.cc that assembles a JSON value, as
    'file:line: text'."""
    members = {m.group(1) for h in src.rglob("*.h")
               for m in re.finditer(JSON_VARIABLE[0], without_comments_and_string_text(h.read_text()))}
    found = []
    for p in sorted([*(src / "commands").rglob("*.cc"), *(src / "commands").rglob("*.h")]):
        if p.name.endswith("_test.cc"):
            continue
        text = p.read_text()
        code = without_comments_and_string_text(text)
        names = {m.group(1) for pattern in JSON_VARIABLE for m in re.finditer(pattern, code)}
        patterns = JSON_LITERAL + [JSON_FILLED.format(name=r"(?<![\w.>])" + re.escape(x)) for x in names] + \
            [JSON_FILLED.format(name=r"(\.|->)\s*" + re.escape(x) + r"\b") for x in members]
        for pattern in patterns:
            for m in re.finditer(pattern, code):
                line = code.count("\n", 0, m.start()) + 1
                found.append(f"{p.relative_to(src).as_posix()}:{line}: {text.splitlines()[line - 1].strip()}")
    return sorted(set(found))


def test_no_json_is_assembled_in_commands():
    """commands/ builds the typed records of results/ (index sections, bisect
    steps, registry entries); only export/*_json.cc turns them into JSON. A
    command may read JSON a worker or a probe answered with, never build it."""
    assert json_built_in_commands(SRC) == []


def test_the_json_check_sees_what_it_looks_for(tmp_path):
    """The check above on code it must refuse, and on code it must let be."""
    tmp = tmp_path / "commands"
    tmp.mkdir()
    refused = {
        "object.cc": "nlohmann::json ids = nlohmann::json::object();",
        "array.cc": "auto x = json::array();",
        "braces.cc": 'json r = {{"status", s}, {"first_bad", nullptr}};',
        "ctor.cc": 'listed.push_back(nlohmann::json(run.file));',
        "key.cc": 'void f(nlohmann::json& h) { h["shard"] = p.shard; }',
        "push.cc": 'json steps;\nvoid g() { steps.push_back(x); }',
        "auto.cc": 'auto m = environment_json(host, probe);\nvoid g() { m["ceilings"][d] = c; }',
        "member.cc": 'void f(RunHeader& h) { h.index_extra["cwd"] = cwd; }',
        "literal_arg.cc": 'auto m = environment_json(read_host_facts(), {{"executable", python}}, env, at);',
        "brace_init.cc": 'nlohmann::json x{{"a", 1}};',
        "returned.cc": 'nlohmann::json f(int s) { return {{"status", s}}; }',
        "vector.cc": 'std::vector<nlohmann::json> v;',
        "map.h": 'struct S { std::map<std::string, nlohmann::json> loaded; };',
        "ordered.cc": 'nlohmann::ordered_json o;\nvoid g() { o["k"] = 1; }',
        "at.cc": 'void f(nlohmann::json& h) { h.at("k") = 1; }',
        "plus.cc": 'void f(nlohmann::json& h) { h += 1; }',
    }
    allowed = {
        "comment.cc": '// h["shard"] = json::object();\n/* json{{"a", 1}}\n */ int x = 1;',
        "string.cc": 'say(stderr, "json::object() and x[\\"k\\"] = 1 in a message");',
        "map.cc": 'std::map<std::string, std::string> env;\nvoid g() { env["A"] = "1"; }',
        "files.cc": 'write_files_in(root, {{"report/report.html", html}});',
        "read.cc": 'const auto& p = std::get<nlohmann::json>(probe);\nbool ok = p.at("b").value("available", false);',
        "const_ref.cc": 'const nlohmann::json& manifest_of(const LoadedRun& run) { return run.manifest; }',
        "const_value.cc": 'const json doc = registry_json(entries, at);\nwrite(json_text(doc));',
        "variant.cc": 'if (std::holds_alternative<nlohmann::json>(r)) use(std::get_if<nlohmann::json>(&r));',
    }
    for name, text in {**refused, **allowed}.items():
        (tmp / name).write_text(text + "\n")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "run_info.h").write_text("struct RunHeader {\n  nlohmann::json index_extra;\n};\n")
    flagged = {line.split(":")[0].split("/")[-1] for line in json_built_in_commands(tmp.parent)}
    assert flagged == set(refused)
