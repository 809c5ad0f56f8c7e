"""`jitbench bisect --git`, with no network: a toy git repository of a tiny
pure-Python package `toypkg` is made here, four commits, the third of which
makes its import sleep 0.4 s; a user workload imports it while it sets up, so
the import is what regresses. bisect must name the third commit (its id and
subject), say "no regression" over a range without the step, and refuse a
directory that is no repository, an unknown revision, and a --good that is not
an ancestor of --bad with one line."""

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, validate
from test_environments import import_workload, link_numpy_wheels

pytestmark = pytest.mark.heavy("uv environments")

WORKLOAD = import_workload("toypkg", "commit's")

# (subject, files written): the third commit is the slow one.
COMMITS = [
    ("add toypkg", {"toypkg/__init__.py": "VALUE = 1\n"}),
    ("document toypkg", {"README.md": "toypkg: a toy\n"}),
    ("load the tables at import", {"toypkg/__init__.py": "import time\n\ntime.sleep(0.4)\nVALUE = 1\n"}),
    ("tidy the readme", {"README.md": "toypkg: a toy package\n"}),
]
CASE = ["--cases", "git_import_8_f64", "--backends", "numpy", "--cold-runs", "5", "--warm-iters", "2",
        "--metric", "ttfr", "--threshold", "20"]


def git(repo, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@localhost", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@localhost")
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """The repository, its commit ids oldest first, wheels (numpy) and the workload."""
    base = tmp_path_factory.mktemp("bisect-git")
    repo = base / "toypkg"
    repo.mkdir()
    git(repo, "init", "-q")
    shas = []
    for subject, files in COMMITS:
        for path, text in files.items():
            (repo / path).parent.mkdir(parents=True, exist_ok=True)
            (repo / path).write_text(text)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", subject)
        shas.append(git(repo, "rev-parse", "HEAD"))
    wheels = base / "wheels"
    wheels.mkdir()
    link_numpy_wheels(wheels)
    workload = base / "git_import.py"
    workload.write_text(WORKLOAD)
    return {"repo": repo, "shas": shas, "wheels": wheels, "workload": workload, "cache": base / "env-cache"}


def bisect(jitbench, toy, out, *args, case=CASE, cwd=None):
    return jitbench("bisect", "--git", str(toy["repo"]), *args, *case, "--workload-path", str(toy["workload"]),
                    "--find-links", str(toy["wheels"]), "--no-index", "--out-dir", str(out),
                    env={"JITBENCH_ENV_CACHE": str(toy["cache"])}, out=False, timeout=1200, cwd=cwd)


def test_bisect_git_names_the_commit_that_made_the_import_slower(jitbench, toy, tmp_path):
    out = tmp_path / "bisect"
    shas = toy["shas"]
    # Started from inside the checkout, whose files on disk are the slow last commit's: each step must
    # still import its own commit (the workers of a pinned environment never put the start directory first).
    res = bisect(jitbench, toy, out, "--good", shas[0], "--bad", "HEAD", cwd=toy["repo"])
    assert res.rc == 0, res.stderr
    assert f"commit {shas[2]} (load the tables at import) is the first commit with the regression of ttfr" \
        in res.stdout, res.stdout
    doc = json.loads((out / "bisect.json").read_text())
    validate(doc, "jitbench.bisect.v5")
    assert doc["candidates"] == shas and (doc["good"], doc["bad"]) == (shas[0], shas[3])
    assert doc["git"] == {"repository": str(toy["repo"]), "good": shas[0], "bad": "HEAD", "first_parent": True}
    assert doc["package"] == "toypkg"
    assert doc["result"]["status"] == "found", doc["result"]
    assert (doc["result"]["first_bad"], doc["result"]["last_good"]) == (shas[2], shas[1])
    subjects = dict(zip(shas, (s for s, _ in COMMITS)))
    for step in doc["steps"]:
        assert step["commit"] == step["version"] and step["subject"] == subjects[step["commit"]], step
        assert jitbench("validate", str(out / step["dir"]), out=False).rc == 0
    # Each commit's environment: its tree exported into the environment and put on the path (no build backend),
    # the commit id in what the environment is hashed from.
    index = json.loads((out / doc["steps"][0]["dir"] / "index.json").read_text())
    sources = [s for e in index["environments"] for s in e["build"].get("sources", [])]
    assert {s["commit"] for s in sources} == {shas[0], shas[3]}, index["environments"]
    assert all(s["install"] == "path" and "no pyproject.toml" in s["why"] for s in sources), sources
    assert len({e["build"]["hash"] for e in index["environments"]}) == 2


def test_bisect_git_over_a_range_without_the_step_says_no_regression(jitbench, toy, tmp_path):
    out = tmp_path / "bisect"
    shas = toy["shas"]
    # Both ends import in 0.4 s: a threshold of 100% keeps a loaded machine's noise from reading as a step.
    res = bisect(jitbench, toy, out, "--good", shas[2], "--bad", shas[3], case=CASE[:-1] + ["100"])
    assert res.rc == 0, res.stderr
    assert "no regression of ttfr from commit" in res.stdout, res.stdout
    doc = json.loads((out / "bisect.json").read_text())
    validate(doc, "jitbench.bisect.v5")
    assert doc["result"]["status"] == "no_regression", doc["result"]
    assert [s["subject"] for s in doc["steps"]] == ["load the tables at import", "tidy the readme"]


@pytest.fixture(scope="module")
def merged(tmp_path_factory):
    """toypkg with a merged side branch: main M1, side S1 S2 (from M1), main M2, the merge of side, M3.
    Returns the repository and its commits by name."""
    repo = tmp_path_factory.mktemp("bisect-git-merge") / "toypkg"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    ids = {}

    def commit(name, path, text):
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", name)
        ids[name] = git(repo, "rev-parse", "HEAD")

    commit("M1", "toypkg/__init__.py", "VALUE = 1\n")
    git(repo, "checkout", "-q", "-b", "side")
    commit("S1", "side1.txt", "s1\n")
    commit("S2", "side2.txt", "s2\n")
    git(repo, "checkout", "-q", "main")
    commit("M2", "main2.txt", "m2\n")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    ids["merge"] = git(repo, "rev-parse", "HEAD")
    commit("M3", "main3.txt", "m3\n")
    return repo, ids


def test_bisect_git_candidates_are_the_first_parent_line_of_bad_across_a_merge(jitbench, toy, merged, tmp_path):
    repo, ids = merged
    out = tmp_path / "bisect"
    jitbench("bisect", "--git", str(repo), "--good", ids["M1"], "--bad", "main", *CASE, "--workload-path",
             str(toy["workload"]), "--find-links", str(toy["wheels"]), "--no-index", "--out-dir", str(out),
             env={"JITBENCH_ENV_CACHE": str(toy["cache"])}, out=False, timeout=1200)
    doc = json.loads((out / "bisect.json").read_text())
    assert doc["candidates"] == [ids[n] for n in ("M1", "M2", "merge", "M3")], (doc["candidates"], ids)


@pytest.mark.parametrize("what", ["not_a_repo", "inside_a_repo", "unknown_rev", "option_rev", "not_ancestor", "same",
                                  "merged_side_branch"])
def test_bisect_git_refuses_bad_inputs_with_one_line(jitbench, toy, merged, tmp_path, what):
    shas = toy["shas"]
    plain = tmp_path / "plain"
    plain.mkdir()
    repo, good, bad, expect = {
        "not_a_repo": (plain, "HEAD~1", "HEAD", "not a git repository"),
        "inside_a_repo": (toy["repo"] / "toypkg", "HEAD~1", "HEAD",
                          f"a directory inside the git repository {toy['repo']}, not its top: give --git "),
        "merged_side_branch": (merged[0], merged[1]["S2"], "main",
                               f"--good {merged[1]['S2']} is not on the first-parent line of --bad main"),
        "unknown_rev": (toy["repo"], "no-such-rev", "HEAD", "--good 'no-such-rev' is not a revision"),
        "option_rev": (toy["repo"], shas[0], "--output=x", "--bad '--output=x' is not a revision"),
        "not_ancestor": (toy["repo"], shas[2], shas[0], f"--good {shas[2]} is not an ancestor of --bad {shas[0]}"),
        "same": (toy["repo"], "HEAD", shas[3], "are the same commit"),
    }[what]
    out = tmp_path / "bisect"
    res = jitbench("bisect", "--git", str(repo), f"--good={good}", f"--bad={bad}", *CASE, "--workload-path",
                   str(toy["workload"]), "--out-dir", str(out), out=False)
    assert res.rc == 2, (res.rc, res.stderr)
    assert len(res.stderr.strip().splitlines()) == 1 and expect in res.stderr, res.stderr
    assert not out.exists()  # refused before anything is made


# A tree whose pyproject.toml names a build backend the environment has (here one in the tree itself,
# backend-path, so that nothing is downloaded) is installed with it; one whose backend is absent is put on the path.
BACKEND = '''"""A PEP 517 backend in the tree: zips toypkg/ into a py3-none-any wheel."""
import base64
import hashlib
import os
import zipfile


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    dist = "toypkg-0.1.dist-info"
    files = {}
    for root, _, names in os.walk("toypkg"):
        for n in sorted(names):
            with open(os.path.join(root, n), "rb") as f:
                files[os.path.join(root, n)] = f.read()
    files[dist + "/METADATA"] = b"Metadata-Version: 2.1\\nName: toypkg\\nVersion: 0.1\\n"
    files[dist + "/WHEEL"] = b"Wheel-Version: 1.0\\nGenerator: toy\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
    record = [p + ",sha256=" + base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode() + ","
              + str(len(d)) for p, d in files.items()]
    files[dist + "/RECORD"] = ("\\n".join(record + [dist + "/RECORD,,"]) + "\\n").encode()
    with zipfile.ZipFile(os.path.join(wheel_directory, "toypkg-0.1-py3-none-any.whl"), "w") as z:
        for p, d in files.items():
            z.writestr(p, d)
    return "toypkg-0.1-py3-none-any.whl"
'''
PYPROJECT = '''[build-system]
requires = []
build-backend = "{backend}"
backend-path = ["backend"]

[project]
name = "toypkg"
version = "0.1"
'''


@pytest.mark.parametrize("backend,install", [("toybackend", "built"), ("absentbackend", "path")])
def test_a_commit_with_a_build_backend_in_the_environment_is_installed_else_put_on_the_path(toy, tmp_path, backend,
                                                                                         install):
    repo = tmp_path / "toypkg"
    (repo / "toypkg").mkdir(parents=True)
    (repo / "backend").mkdir()
    (repo / "toypkg" / "__init__.py").write_text("VALUE = 2\n")
    (repo / "backend" / "toybackend.py").write_text(BACKEND)
    (repo / "pyproject.toml").write_text(PYPROJECT.format(backend=backend))
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "with a build backend")
    sha = git(repo, "rev-parse", "HEAD")
    sys.path.insert(0, str(ROOT / "worker"))
    from jitbench_worker.harness import envs
    record = envs.build({"name": "t", "requirements": [f"toypkg @ git+file://{repo}@{sha}"],
                         "cache_root": str(tmp_path / "cache"), "find_links": [str(toy["wheels"])], "no_index": True})
    (source,) = record["sources"]
    assert (source["commit"], source["install"]) == (sha, install), source
    installed = "toypkg" in record["packages"]  # a distribution only when the backend built it
    assert installed == (install == "built"), record["packages"]
    out = subprocess.run([record["python"], "-c", "import toypkg; print(toypkg.VALUE, toypkg.__file__)"],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=""), check=True).stdout
    assert out.startswith("2 ") and out.split()[1].startswith(record["dir"]), out


def test_bisect_git_refuses_versions_and_a_missing_target(jitbench, tmp_path):
    res = jitbench("bisect", "--good", "a", "--bad", "b", "--out-dir", str(tmp_path / "o"), out=False)
    assert res.rc == 2 and "give --package P" in res.stderr, res.stderr
    res = jitbench("bisect", "--git", str(tmp_path), "--good", "a", "--bad", "b", "--versions", "a,b",
                   "--out-dir", str(tmp_path / "o"), out=False)
    assert res.rc == 2 and "leave out --versions" in res.stderr, res.stderr


def toy_wheel(into, value):
    """A toypkg 0.9 wheel (VALUE = value) in the directory into: an installed copy of the same package."""
    import zipfile
    dist = "toypkg-0.9.dist-info"
    files = {"toypkg/__init__.py": f"VALUE = {value}\n",
             dist + "/METADATA": "Metadata-Version: 2.1\nName: toypkg\nVersion: 0.9\n",
             dist + "/WHEEL": "Wheel-Version: 1.0\nGenerator: toy\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
             dist + "/RECORD": ""}
    into.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(into / "toypkg-0.9-py3-none-any.whl", "w") as z:
        for p, d in files.items():
            z.writestr(p, d)


def test_a_commit_put_on_the_path_is_imported_before_an_installed_copy_of_the_same_package(toy, tmp_path):
    repo = tmp_path / "toypkg"
    (repo / "toypkg").mkdir(parents=True)
    (repo / "toypkg" / "__init__.py").write_text("VALUE = 2\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the commit")
    sha = git(repo, "rev-parse", "HEAD")
    toy_wheel(tmp_path / "wheels", 1)
    sys.path.insert(0, str(ROOT / "worker"))
    from jitbench_worker.harness import envs
    # toypkg from the wheel (what --install-extra toypkg gives) and the commit of toypkg.
    record = envs.build({"name": "t", "requirements": ["toypkg", f"toypkg @ git+file://{repo}@{sha}"],
                         "cache_root": str(tmp_path / "cache"),
                         "find_links": [str(toy["wheels"]), str(tmp_path / "wheels")], "no_index": True})
    assert record["packages"].get("toypkg") == "0.9", record["packages"]  # the installed copy is there
    out = subprocess.run([record["python"], "-c", "import toypkg; print(toypkg.VALUE, toypkg.__file__)"],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=""), check=True).stdout
    assert out.startswith("2 ") and out.split()[1].startswith(os.path.join(record["dir"], "src", sha)), out


def test_bisect_git_reads_the_repository_it_is_given_not_the_one_git_dir_names(jitbench, toy, tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    out = tmp_path / "bisect"
    res = jitbench("bisect", "--git", str(plain), "--good", "HEAD~1", "--bad", "HEAD", *CASE, "--workload-path",
                   str(toy["workload"]), "--out-dir", str(out), out=False,
                   env={"GIT_DIR": str(toy["repo"] / ".git"), "GIT_WORK_TREE": str(toy["repo"])})
    assert res.rc == 2 and "not a git repository" in res.stderr, res.stderr
    assert not out.exists()


def one_commit_repo(path, files):
    """A repository at path with one commit of files; its id."""
    for p, text in files.items():
        (path / p).parent.mkdir(parents=True, exist_ok=True)
        (path / p).write_text(text)
    git(path, "init", "-q")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "the commit")
    return git(path, "rev-parse", "HEAD")


def build_commit(toy, tmp_path, repo, sha):
    sys.path.insert(0, str(ROOT / "worker"))
    from jitbench_worker.harness import envs
    return envs.build({"name": "t", "requirements": [f"toypkg @ git+file://{repo}@{sha}"],
                       "cache_root": str(tmp_path / "cache"), "find_links": [str(toy["wheels"])], "no_index": True})


def test_a_commit_with_a_file_that_does_not_compile_is_still_put_on_the_path(toy, tmp_path):
    repo = tmp_path / "toypkg"
    sha = one_commit_repo(repo, {"toypkg/__init__.py": "VALUE = 3\n", "toypkg/py2_script.py": "print 'old'\n"})
    record = build_commit(toy, tmp_path, repo, sha)
    assert record["sources"][0]["install"] == "path", record["sources"]
    out = subprocess.run([record["python"], "-c", "import toypkg; print(toypkg.VALUE)"], capture_output=True,
                         text=True, env=dict(os.environ, PYTHONPATH=""), check=True).stdout
    assert out.strip() == "3"


def test_a_commit_with_a_submodule_says_so_in_its_record(toy, tmp_path):
    repo = tmp_path / "toypkg"
    one_commit_repo(repo, {"toypkg/__init__.py": "VALUE = 4\n"})
    # A gitlink, as `git submodule add` records one (the submodule's own repository is not needed to record it).
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{git(repo, 'rev-parse', 'HEAD')},vendor/lib")
    git(repo, "commit", "-q", "-m", "add a submodule")
    sha = git(repo, "rev-parse", "HEAD")
    record = build_commit(toy, tmp_path, repo, sha)
    (source,) = record["sources"]
    assert "submodules are not exported" in source["why"] and "vendor/lib" in source["why"], source


def test_git_commands_of_the_environment_builder_ignore_git_dir(toy, tmp_path, monkeypatch):
    repo = tmp_path / "toypkg"
    sha = one_commit_repo(repo, {"toypkg/__init__.py": "VALUE = 5\n"})
    monkeypatch.setenv("GIT_DIR", str(toy["repo"] / ".git"))  # another repository, without this commit
    record = build_commit(toy, tmp_path, repo, sha)
    assert record["sources"][0]["commit"] == sha


def test_a_commit_whose_package_is_found_outside_its_tree_is_unbuildable(toy, tmp_path):
    repo = tmp_path / "toypkg"
    sha = one_commit_repo(repo, {"other/__init__.py": "VALUE = 6\n"})  # no toypkg in the tree
    toy_wheel(tmp_path / "wheels", 1)
    sys.path.insert(0, str(ROOT / "worker"))
    from jitbench_worker.harness import envs
    with pytest.raises(envs.Unbuildable, match="import toypkg in the environment finds .*, not the commit's tree"):
        envs.build({"name": "t", "requirements": ["toypkg", f"toypkg @ git+file://{repo}@{sha}"],
                    "cache_root": str(tmp_path / "cache"),
                    "find_links": [str(toy["wheels"]), str(tmp_path / "wheels")], "no_index": True})


def test_an_ambiguous_short_commit_id_is_refused_naming_both(jitbench, toy, tmp_path):
    # Issue 49, defect 19: a short id that is also a branch's name resolved, silently, to the branch.
    repo = tmp_path / "amb"
    repo.mkdir()
    git(repo, "init", "-q")
    shas = []
    for k in range(3):
        (repo / "f.txt").write_text(f"{k}\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"c{k}")
        shas.append(git(repo, "rev-parse", "HEAD"))
    short = shas[2][:8]
    git(repo, "branch", short, shas[1])  # a branch named like the start of another commit's id
    out = tmp_path / "bisect"
    res = jitbench("bisect", "--git", str(repo), "--good", shas[0], "--bad", short, *CASE, "--workload-path",
                   str(toy["workload"]), "--out-dir", str(out), out=False)
    assert res.rc == 2, (res.rc, res.stderr)
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert f"--bad '{short}' is ambiguous" in res.stderr and f"refs/heads/{short}" in res.stderr
    assert shas[1][:12] in res.stderr and shas[2][:12] in res.stderr
    assert not out.exists()


def test_bisect_of_your_function_names_the_commit_that_made_its_import_slower(jitbench, toy, tmp_path):
    # `bisect file.py:fn --git REPO`: the user's own function, whose module imports the package under bisection
    # (which jitbench's own Python does not have), measured at each commit.
    target = tmp_path / "mine.py"
    target.write_text("import numpy as np\nimport toypkg\n\n\ndef make_inputs():\n    return (np.arange(8.0),)\n\n\n"
                      "def step(x):\n    return x * toypkg.VALUE\n")
    out = tmp_path / "bisect"
    shas = toy["shas"]
    res = jitbench("bisect", f"{target}:step", "--git", str(toy["repo"]), "--good", shas[1], "--bad", shas[2],
                   "--cold-runs", "5", "--warm-iters", "2", "--metric", "ttfr", "--threshold", "20",
                   "--find-links", str(toy["wheels"]), "--no-index", "--out-dir", str(out),
                   env={"JITBENCH_ENV_CACHE": str(toy["cache"])}, out=False, timeout=1200)
    assert res.rc == 0, res.stderr
    assert f"commit {shas[2]} (load the tables at import) is the first commit with the regression of ttfr" \
        in res.stdout, res.stdout
    doc = json.loads((out / "bisect.json").read_text())
    validate(doc, "jitbench.bisect.v5")
    assert doc["result"]["status"] == "found" and doc["result"]["first_bad"] == shas[2], doc["result"]
    for step in doc["steps"]:
        assert jitbench("validate", str(out / step["dir"]), out=False).rc == 0
        cases = json.loads((out / step["dir"] / "index.json").read_text())["cases"]
        assert cases and all("_step_" in c["case"] for c in cases), cases
