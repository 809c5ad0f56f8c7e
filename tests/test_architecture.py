"""The layout docs/architecture.md describes, checked: the folders of src/ depend
on each other in one direction, exactly as its layers table says (util, config,
plan, results, run, ... commands), artifact documents are built only in export/
and read back only in results/read.cc, and no function is longer than a screen.
The Python side too: no import goes round (worker, API, bench scripts, figures), and
a measured process imports nothing of the worker's harness side (jitbench_worker/harness/)."""

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


# The Python side's import graph (worker, API, bench scripts, figures), beside
# the C++ include graph above: every import counts, a function's lazy one too
# (it runs whenever the function does), and none may go round.
PY_ROOTS = ["worker", "python", "bench", "src/report/figures"]
# What jitbench runs in processes of its own, never inside a measured one.
HARNESS_SIDE = "jitbench_worker.harness"
# Where a measured process starts: the worker's entry point, and the module a
# `jitbench measure` workload file (the shim) imports.
MEASURED_ROOTS = ["jitbench_worker.__main__", "jitbench_worker.target"]


def python_modules(root, folders):
    """{module name: file} of every .py below the folders (each folder a sys.path entry)."""
    found = {}
    for folder in folders:
        for p in sorted((root / folder).rglob("*.py")):
            parts = p.relative_to(root / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if parts and all(part.isidentifier() for part in parts):
                found[".".join(parts)] = p
    return found


def python_import_graph(root, folders):
    """{module: the modules of this tree it imports}, at any depth of the file."""
    modules = python_modules(root, folders)
    edges = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                wanted = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".") if package else []
                    up = up[:len(up) - (node.level - 1)] if node.level > 1 else up
                    base = ".".join(up + ([node.module] if node.module else []))
                wanted = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            else:
                continue
            for w in wanted:
                while w and w not in modules:  # `import a.b.c`: the deepest module of this tree it names
                    w = w.rpartition(".")[0]
                if w and w != name:
                    targets.add(w)
        edges[name] = targets
    return edges


def import_cycles(edges):
    """Every strongly connected set of two or more modules (Tarjan), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(found)


def import_closure(edges, roots):
    seen, todo = set(), list(roots)
    while todo:
        v = todo.pop()
        if v not in seen:
            seen.add(v)
            todo.extend(edges.get(v, ()))
    return seen


def test_no_python_import_goes_round():
    edges = python_import_graph(ROOT, PY_ROOTS)
    assert {"jitbench_worker.runner", "jitbench.result", "results", "jitbench_figures"} <= set(edges)
    assert import_cycles(edges) == []


def test_a_measured_process_imports_no_harness_side_module():
    """The worker's entry point and the shim's import reach nothing of
    jitbench_worker/harness/, and no module outside it imports it."""
    edges = python_import_graph(ROOT, PY_ROOTS)
    harness = {m for m in edges if m == HARNESS_SIDE or m.startswith(HARNESS_SIDE + ".")}
    assert {f"{HARNESS_SIDE}.envs", f"{HARNESS_SIDE}.target"} <= harness
    reached = import_closure(edges, MEASURED_ROOTS)
    assert {"jitbench_worker.runner", "jitbench_worker.backends", "jitbench_worker.verify"} <= reached
    assert sorted(reached & harness) == []
    # Tests of the harness side may import it; nothing else outside it may.
    outside = [m for m in edges if m not in harness and not m.rpartition(".")[2].startswith("test_")]
    assert sorted((m, t) for m in outside for t in edges[m] if t in harness) == []


def test_the_python_import_checks_see_what_they_look_for(tmp_path):
    """Circles through a lazy import, a relative import and a bare script import
    are found; one-way imports are not; the closure follows lazy imports."""
    files = {"lib/pkg/__init__.py": "",
             "lib/pkg/a.py": "from . import b\n",
             "lib/pkg/b.py": "def f():\n    from .a import g\n",  # lazy: a <-> b
             "lib/pkg/c.py": "from .sub import d\nimport os\n",
             "lib/pkg/sub/__init__.py": "",
             "lib/pkg/sub/d.py": "from .. import e\n",
             "lib/pkg/e.py": "from pkg.sub.d import x\n",  # absolute: d <-> e
             "lib/pkg/one_way.py": "from pkg import c\n",
             "scripts/s1.py": "import s2\n",
             "scripts/s2.py": "def f():\n    import s1\n"}  # s1 <-> s2, as bench's scripts import
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    edges = python_import_graph(tmp_path, ["lib", "scripts"])
    assert import_cycles(edges) == [["pkg.a", "pkg.b"], ["pkg.e", "pkg.sub.d"], ["s1", "s2"]]
    assert import_closure(edges, ["pkg.one_way"]) == {"pkg.one_way", "pkg.c", "pkg.sub.d", "pkg.e"}


def test_artifact_documents_are_written_in_export_and_read_in_results_read():
    for p in sources():
        rel = p.relative_to(SRC).as_posix()
        text = p.read_text()
        if '"schema_version"' in text:  # written in export/; read (which version a case file is) in results/read.cc
            assert rel.startswith(("export/", "validate/")) or rel == "results/read.cc", rel
        if "json::parse(" in text:
            # Text jitbench did not write goes through util/json_parse.cc (its
            # nesting bounded first); artifacts are read back only by
            # results/read.cc. The others parse recordings, the embedded catalog
            # and schemas; export/json/case_json.cc re-reads the text it is about to
            # write, to validate exactly that against the schema.
            assert rel in {"util/json_parse.cc", "results/read.cc", "run/replay.cc", "config/catalog.cc",
                           "export/json/schema.cc", "export/json/case_json.cc"}, rel


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


# The one door (issue 49): everything jitbench, its worker, its Python API and
# pytest plugin write, create, rename, remove or re-mode goes through
# src/util/fs.cc (C++) or the Python door (worker/jitbench_worker/harness/door.py, kept
# byte for byte as python/jitbench/_door.py), which never follow a link below
# the root. The few places that write by path say here why they may.
CXX_WRITES = [r"\bcreate_director(?:y|ies)\s*\(", r"\bremove_all\s*\(", r"(?:fs|filesystem)::remove\s*\(",
              r"\brename\s*\(", r"\bpermissions\s*\(", r"\bO_CREAT\b", r"\bmkdir(?:at)?\s*\(", r"\bunlink(?:at)?\s*\(",
              r"\brmdir\s*\(", r"\bofstream\b", r"\bfopen\s*\(", r"\bmk[sd]temp\s*\(", r"\bf?chmod(?:at)?\s*\(",
              r"\bsymlink(?:at)?\s*\(", r"(?<!std::)\bcopy(?:_file)?\s*\(\s*[\w.:()]+\s*,", r"\bresize_file\s*\(",
              r"\btruncate\s*\(", r"\bcreate_(?:directory_)?symlink\s*\(", r"\bcreate_hard_link\s*\(",
              r"std::(?:basic_)?fstream\b", r"\bcreat\s*\(", r"\blink(?:at)?\s*\(", r"\brenameat2?\s*\(",
              r"\bmkfifo(?:at)?\s*\(", r"\bmknod(?:at)?\s*\(", r"\bO_(?:WRONLY|RDWR|TRUNC|APPEND)\b",
              r"(?:fs|filesystem)::copy(?:_file|_symlink)?\s*\(", r"\bcopy_file\s*\(",
              r"\blast_write_time\s*\([^;()]*,", r"\b(?:utimensat|futimens|utimes|utime)\s*\("]
CXX_ALLOWED = {
    "util/fs.cc": "the door itself",
    "run/replay.h": "JITBENCH_RECORD_WORKERS=FILE: a developer's recording, a file the user names outside any root",
    "run/replay.cc": "the same recording",
}
PY_CALLS = {"makedirs", "mkdir", "rmtree", "rename", "unlink", "write_text", "write_bytes", "chmod", "copyfile",
            "copytree", "symlink", "symlink_to", "rmdir", "removedirs", "touch", "mkstemp", "mkdtemp",
            "NamedTemporaryFile", "TemporaryDirectory", "TemporaryFile", "SpooledTemporaryFile", "extractall",
            "extract", "hardlink_to", "link_to", "utime", "chown", "lchmod", "mkfifo"}
# Names that write, imported bare (`from os import replace as r`): the import itself is flagged.
PY_WRITING_IMPORTS = {"os": {"replace", "remove", "rename", "renames", "unlink", "link", "symlink", "mkdir",
                             "makedirs", "rmdir", "removedirs", "chmod", "truncate", "mkfifo", "utime", "open"},
                      "shutil": {"copy", "copy2", "copyfile", "copytree", "move", "rmtree"},
                      "tempfile": {"mkstemp", "mkdtemp", "NamedTemporaryFile", "TemporaryDirectory",
                                   "TemporaryFile", "SpooledTemporaryFile"}}
PY_QUALIFIED = {"os.replace", "os.remove", "os.link", "os.mkfifo", "os.truncate", "shutil.copy", "shutil.copy2",
                "shutil.move"}
PY_HARNESS = ["worker/jitbench_worker", "python/jitbench", "src/report/figures"]
PY_ALLOWED = {
    "worker/jitbench_worker/harness/door.py": "the door itself",
    "python/jitbench/_door.py": "the door itself",
    "worker/jitbench_worker/harness/target.py": "measure's shim and the copies it loads, written into the private directory "
                                        "(util/fs.h PrivateDir) that jitbench made for them and copies from",
    "worker/jitbench_worker/catalog.py": "--out FILE: the build's catalog (CMakeLists.txt), never at run time",
    "worker/jitbench_worker/runner.py": "JITBENCH_ANATOMY_STREAM=FILE: a test's replay file, named by the test",
    "worker/jitbench_worker/backends/jax_anatomy.py": "the profiler's own tempfile.mkdtemp directory, removed",
    "worker/jitbench_worker/backends/tf_anatomy.py": "the profiler's own tempfile.mkdtemp directory, removed",
    "src/report/figures/jitbench_figures/__main__.py": "the figures, written into the private directory "
                                                       "(PrivateDir) that jitbench made for them and copies from",
}

# One call in one file, where the rest of the file goes through the door.
PY_ALLOWED_CALLS = {
    ("python/jitbench/api.py", "tempfile.mkdtemp"): "the run's own new directory (mkdir: a fresh name, never a "
                                                    "link followed) in jitbench-out/, which the door made",
    ("python/jitbench/api.py", "tempfile.TemporaryDirectory"): "compare's CSV, written by the binary (its door) "
                                                               "into a fresh private directory, removed after",
}


def cxx_writes_outside_the_door(src):
    found = []
    for p in sorted(src.rglob("*")):
        if p.suffix not in (".h", ".cc") or p.name.endswith("_test.cc") or p.name == "test_dir.h":
            continue
        rel = p.relative_to(src).as_posix()
        if rel in CXX_ALLOWED:
            continue
        code = without_comments_and_string_text(p.read_text())
        for pattern in CXX_WRITES:
            for m in re.finditer(pattern, code):
                line = code.count("\n", 0, m.start()) + 1
                found.append(f"{rel}:{line}: {p.read_text().splitlines()[line - 1].strip()}")
    return sorted(set(found))


def _writes_by_mode(call):
    """open(path, "w"/"a"/"x"/"+") or os.open(..., O_CREAT/O_WRONLY/O_RDWR ...)."""
    name = ast.unparse(call.func)
    functions = ("open", "io.open", "gzip.open", "bz2.open", "lzma.open", "tarfile.open", "codecs.open")
    if name in functions or (name.endswith(".open") and name != "os.open"):  # a path's .open(mode): its first
        at = 1 if name in functions else 0
        mode = call.args[at] if len(call.args) > at else next((k.value for k in call.keywords if k.arg == "mode"), None)
        if mode is None:
            return False
        if not (isinstance(mode, ast.Constant) and isinstance(mode.value, str)):
            return True  # a mode the check cannot read is taken as a write
        return any(c in mode.value for c in "wax+")
    if name == "os.open":
        flags = ast.unparse(call.args[1]) if len(call.args) > 1 else ""
        # Flags in a variable, or any but reading ones, are taken as a write.
        return any(f in flags for f in ("O_CREAT", "O_WRONLY", "O_RDWR", "O_TRUNC", "O_APPEND")) or \
            "O_RDONLY" not in flags
    return False


def py_writes_outside_the_door(root, folders):
    found = []
    for folder in folders:
        for p in sorted((root / folder).rglob("*.py")):
            rel = p.relative_to(root).as_posix()
            if rel in PY_ALLOWED:
                continue
            for node in ast.walk(ast.parse(p.read_text())):
                if isinstance(node, ast.ImportFrom) and \
                        {a.name for a in node.names} & PY_WRITING_IMPORTS.get(node.module or "", set()):
                    found.append(f"{rel}:{node.lineno}: from {node.module} import ...")
                if not isinstance(node, ast.Call):
                    continue
                name = ast.unparse(node.func)
                attr = node.func.attr if isinstance(node.func, ast.Attribute) else name
                # a path's .replace(target) (one argument; str.replace takes two)
                path_replace = attr == "replace" and isinstance(node.func, ast.Attribute) and \
                    len(node.args) == 1 and not node.keywords
                if (attr in PY_CALLS and not name.startswith("_door.") and not name.startswith("door.")) \
                        or name in PY_QUALIFIED or path_replace or _writes_by_mode(node):
                    if (rel, name) not in PY_ALLOWED_CALLS:
                        found.append(f"{rel}:{node.lineno}: {name}(...)")
    return found


def test_every_write_goes_through_the_door():
    """A write, removal, rename, mkdir or chmod in src/ or the harness code
    (worker, API, pytest plugin, figures) that bypasses the door fails here."""
    assert cxx_writes_outside_the_door(SRC) == []
    assert py_writes_outside_the_door(ROOT, PY_HARNESS) == []
    door = (ROOT / "worker/jitbench_worker/harness/door.py").read_bytes()
    assert (ROOT / "python/jitbench/_door.py").read_bytes() == door, "the two Python doors differ"
    ranks = (ROOT / "worker/jitbench_worker/order_stats.py").read_bytes()
    assert (ROOT / "python/jitbench/_order_stats.py").read_bytes() == ranks, "the two order-statistic ranks differ"


def test_the_door_check_sees_what_it_looks_for(tmp_path):
    """The check above on code it must refuse, and on code it must let be."""
    src = tmp_path / "src" / "run"
    src.mkdir(parents=True)
    refused = {"a.cc": "void f() { std::filesystem::create_directories(p); }",
               "b.cc": "void f() { fs::remove_all(p, ec); }",
               "c.cc": "int f() { return ::open(p, O_WRONLY | O_CREAT, 0644); }",
               "d.cc": "void f() { std::ofstream out(p); }",
               "e.cc": "void f() { fs::permissions(p, perms::owner_all); }",
               "f.cc": "void f() { ::rename(a, b); }",
               "h.cc": "void f() { fs::create_directory_symlink(a, b); }",
               "i.cc": "void f() { ::renameat(d, a, d, b); }",
               "j.cc": "int f() { return ::open(p, O_WRONLY | O_TRUNC); }",
               "k.cc": "void f() { fs::copy_file(dir / \"x\", to); }",
               "l.cc": "void f() { fs::last_write_time(p, t); }",
               "m.cc": "void f() { ::utimensat(AT_FDCWD, p, ts, 0); }"}
    let_be = {"z.cc": "#include <fstream>\nvoid f() { std::ifstream in(p); }",
              "g.cc": 'void f() { v.erase(std::remove(v.begin(), v.end(), x), v.end()); // fs::remove_all(p)\n'
                      'say("create_directories(p)"); write_file_in(root, rel, text); std::copy(a, b, c);\n'
                      'auto t = fs::last_write_time(p); ::open(p, O_RDONLY); }'}
    for name, code in {**refused, **let_be}.items():
        (src / name).write_text(code + "\n")
    assert [line.split(":")[0] for line in cxx_writes_outside_the_door(tmp_path / "src")] == \
        [f"run/{n}" for n in sorted(refused)]
    py = tmp_path / "harness"
    py.mkdir()
    (py / "bad.py").write_text("import os, shutil, pathlib\n"
                               "shutil.rmtree(d)\nos.makedirs(d)\npathlib.Path(p).write_text('x')\n"
                               "open(p, 'w')\nos.replace(a, b)\nos.open(p, os.O_WRONLY | os.O_CREAT)\nq.rename(r)\n"
                               "pathlib.Path(p).open('a')\nflags = os.O_WRONLY\nos.open(p, flags)\n"
                               "pathlib.Path(a).replace(b)\ntempfile.mkdtemp()\nopen(p, mode)\n"
                               "from os import replace as r\ntar.extractall(d)\n")
    (py / "good.py").write_text("from . import door\nopen(p)\nopen(p, 'rb')\nos.open(p, os.O_RDONLY)\n"
                                "s.replace('a', 'b')\nitems.remove(x)\ndoor.write_file(root, rel, data)\n"
                                "pathlib.Path(p).open()\n"
                                "_door.rename(root, a, b)\nos.fdopen(fd, 'w')\n")
    assert sorted(int(f.split(":")[1]) for f in py_writes_outside_the_door(tmp_path, ["harness"])) == \
        [n for n in range(2, 17) if n != 10]  # line 10 sets a variable


ARCH_PATH = re.compile(r"`((?:src|worker|python|tests|bench|scripts|schemas|native|cmake|docs)/[^`\s]*)`")


def missing_paths(text, root):
    """The paths a doc names in backticks that the tree lacks (<name>, vN and {a,b} stand for a family:
    its folder must exist)."""
    out = []
    for path in sorted(set(ARCH_PATH.findall(text))):
        if re.search(r"[<*{]|\bvN\b", path):
            path = path[:min(path.find(c) if c in path else len(path) for c in "<*{")].rpartition("/")[0]
            if "vN" in path:
                path = path.rpartition("/")[0]
        if not (root / path).exists():
            out.append(path)
    return out


def test_every_path_architecture_md_names_exists():
    # "Where does X go" and "Where to look" answer with files: a move that leaves them naming a file no
    # longer there fails here.
    text = (ROOT / "docs" / "architecture.md").read_text()
    assert "## Where does X go" in text
    where = text.split("## Where does X go")[1].split("\n## ")[0]
    for thing in ("A backend", "A workload", "A section of summary.md or the report", "An artifact field",
                  "A command"):
        assert f"**{thing}**" in where, thing
    assert missing_paths(text, ROOT) == []


def test_the_path_check_sees_a_path_that_is_gone(tmp_path):
    (tmp_path / "src" / "commands").mkdir(parents=True)
    (tmp_path / "src" / "commands" / "run.cc").write_text("")
    text = "`src/commands/run.cc`, `src/commands/<name>.cc`, `src/commands/gone.cc`, `worker/x/<name>.py`"
    assert missing_paths(text, tmp_path) == ["src/commands/gone.cc", "worker/x"]


def test_every_command_has_a_file_of_its_own():
    # docs/architecture.md: "A command: src/commands/<name>.cc".
    text = "".join(p.read_text() for p in (SRC / "cli").glob("*.cc"))
    top = set(re.findall(r'app\.add_subcommand\("([a-z-]+)"', text))
    assert {"run", "measure", "compare", "noise", "verify", "bisect", "merge", "envs"} <= top, top
    assert sorted(c for c in top if not (SRC / "commands" / f"{c}.cc").is_file()) == []
