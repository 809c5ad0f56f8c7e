"""One list per name. Cache policies, precisions and run modes are listed once,
with their descriptions, beside their enums (src/config/names.cc); the worker
takes its command-line choices from a generated copy (worker/jitbench_worker/
names.py, held equal by the unit test Names.WorkerCopyIsCurrent and here by
`jitbench list`), never from a spelling of its own. `jitbench measure`'s
backends for a user's function come from the backend records."""

import ast
import subprocess
import sys

import pytest

from conftest import JITBENCH, ROOT

sys.path.insert(0, str(ROOT / "worker"))

from jitbench_worker import backends, cli, names, target  # noqa: E402

pytestmark = pytest.mark.quick


def choices(option):
    run = next(a for a in cli._parser()._subparsers._group_actions[0].choices.values() if a.prog.endswith(" run"))
    action = next(a for a in run._actions if option in a.option_strings)
    return action.choices, action.default


def test_the_worker_takes_its_choices_from_the_generated_list():
    assert choices("--cache-policy") == (list(names.CACHE_POLICIES), "cold_cache")
    assert choices("--precision") == (list(names.PRECISIONS), "default")
    assert choices("--mode") == (list(names.RUN_MODES), None)


def test_no_worker_file_spells_a_list_of_these_names():
    """A whole list spelled again (choices=[...]); a test of one or two names
    (`args.mode in ("cold", "anatomy")`) is behaviour, not a list."""
    lists = [set(names.CACHE_POLICIES), set(names.PRECISIONS), set(names.RUN_MODES)]
    found = []
    for path in sorted((ROOT / "worker" / "jitbench_worker").rglob("*.py")):
        if path.name == "names.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
                words = {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
                if any(listed <= words for listed in lists):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, f"a list of jitbench's names spelled again (take it from names.py): {found}"


def test_the_generated_list_is_what_jitbench_lists():
    out = subprocess.run([str(JITBENCH), "list"], capture_output=True, text=True, check=True).stdout
    listed = out.split("Cache policies:\n", 1)[1].splitlines()
    got = {line.split(None, 1)[0]: line.split(None, 1)[1] for line in listed if line.startswith("  ")}
    assert got == names.CACHE_POLICIES


def test_measures_backends_come_from_the_records():
    assert backends.for_target("jax") == ("jax_jit_cpu", "jax_eager_cpu", "jax_jit_gpu", "jax_eager_gpu")
    assert backends.for_target("numba") == ("numba", "numpy")
    assert backends.for_target("tensorflow") == ("tensorflow", "tensorflow_eager", "tensorflow_gpu",
                                                 "tensorflow_eager_gpu")
    assert backends.for_target("torch") == ("torch_compile", "torch_eager", "torch_compile_gpu", "torch_eager_gpu")
    assert backends.for_target("numpy") == ("numpy",)
    for framework in ("jax", "numba", "tensorflow", "torch"):
        planned = backends.for_target(framework)
        jits = planned[0::2]
        assert all(backends.record(j).jit and backends.record(j).measure for j in jits)
        assert planned[1::2] == tuple(backends.record(j).baseline for j in jits)


def test_a_new_jit_backend_marked_measure_is_planned(monkeypatch):
    registry = dict(backends._REGISTRY)
    registry["numba_parallel"] = backends.Backend(**{**registry["numba_parallel"].__dict__, "measure": True})
    monkeypatch.setattr(backends, "_REGISTRY", registry)
    assert backends.for_target("numba") == ("numba", "numpy", "numba_parallel", "numpy")


def test_labels_follow_the_records():
    assert target.backend_labels("jax", "f") == {
        "jax_jit_cpu": "f with jax.jit", "jax_eager_cpu": "f without jax.jit",
        "jax_jit_gpu": "f with jax.jit on the GPU", "jax_eager_gpu": "f without jax.jit on the GPU"}
    assert target.backend_labels("numba", "f") == {"numba": "f with @njit",
                                                   "numpy": "f without @njit (Python on NumPy arrays)"}
    assert target.backend_labels("numpy", "f") == {"numpy": "f (no JIT)"}


def test_a_plain_function_is_its_own_eager_reference():
    def plain(x):
        return x

    d = target.detect(plain)
    assert (d.framework, d.jitted, d.eager, d.eager_is) == ("numpy", None, plain, "the function itself")
