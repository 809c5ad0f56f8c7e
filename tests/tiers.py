"""The two test tiers, and the checks that keep every test in one.

Each test module names its tier in a module-level `pytestmark`:

    pytestmark = pytest.mark.quick             # needs nothing beyond numpy
    pytestmark = pytest.mark.heavy("jax, uv")  # needs what it names

quick: the real binary with fake workers or numpy, the golden replay through
every emitter, schemas, the architecture; no framework beyond numpy, no uv
environment, no wheel, no Chromium, no Slurm, no valgrind, no nvcc.
heavy: everything else. A test of a quick module that needs more carries
`@pytest.mark.heavy("...")` itself. `scripts/test.sh --quick` runs the quick
tier (`pytest --tier quick`); the README's test command runs both. A module in
no tier is refused before anything runs (and tests/test_tiers.py fails on it),
and in a quick run a test that imports a framework fails (tier_guard/).
"""

import ast
import os
import pathlib
import sys
import tempfile

import pytest

TIERS = ("quick", "heavy")
GUARD_DIR = pathlib.Path(__file__).resolve().parent / "tier_guard"


def module_tier(path):
    """The tier marks in a test module's module-level `pytestmark` (a set; one of TIERS when well formed)."""
    tree = ast.parse(pathlib.Path(path).read_text(), str(path))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            return {n.attr for n in ast.walk(node.value) if isinstance(n, ast.Attribute) and n.attr in TIERS}
    return set()


def addoption(parser):
    parser.addoption("--tier", choices=("quick", "all"), default="all",
                     help="quick: only the tests that need nothing beyond numpy (scripts/test.sh --quick)")


def configure(config):
    config.addinivalue_line("markers", "quick: needs nothing beyond numpy (tests/tiers.py)")
    config.addinivalue_line("markers", "heavy(needs): needs a framework, uv, a wheel, Chromium, Slurm, valgrind "
                                       "or nvcc (tests/tiers.py)")
    if quick(config):
        fd, log = tempfile.mkstemp(prefix="jitbench-tier-", suffix=".log")
        os.close(fd)
        config._tier_log = log
        os.environ["JITBENCH_TEST_TIER_LOG"] = log
        old = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = str(GUARD_DIR) + (os.pathsep + old if old else "")
        sys.path.insert(0, str(GUARD_DIR))
        import tier_guard

        tier_guard.install(log)


def quick(config):
    return config.getoption("--tier") == "quick"


def ignore_collect(path, config):
    """In a quick run, modules of another tier are not even imported."""
    if quick(config) and path.name.startswith("test_") and path.suffix == ".py":
        return module_tier(path) != {"quick"} or None
    return None


def modifyitems(config, items):
    unclassified = sorted({i.nodeid.split("::")[0] for i in items
                           if not any(i.get_closest_marker(t) for t in TIERS)})
    if unclassified:
        raise pytest.UsageError(f"test modules in no tier: {', '.join(unclassified)}: give each a module-level "
                                "`pytestmark = pytest.mark.quick` or `pytest.mark.heavy(\"what it needs\")` "
                                "(tests/tiers.py)")
    if quick(config):
        heavy = [i for i in items if i.get_closest_marker("heavy")]
        if heavy:
            config.hook.pytest_deselected(items=heavy)
            items[:] = [i for i in items if not i.get_closest_marker("heavy")]


def imported_frameworks(config):
    """The lines the guard wrote since the last call (and empties the log)."""
    log = getattr(config, "_tier_log", None)
    if not log:
        return []
    with open(log, "r+") as f:
        lines = f.read().splitlines()
        f.seek(0)
        f.truncate()
    return lines


def check_collection(config):
    lines = imported_frameworks(config)
    if lines:
        raise pytest.UsageError("collecting the quick tier imported a framework (move the import into a heavy "
                                "test): " + "; ".join(lines[:3]))


@pytest.fixture(autouse=True)
def _tier_guard(request):
    yield
    lines = imported_frameworks(request.config)
    if lines:
        pytest.fail(f"{request.node.nodeid} is in the quick tier but imported a framework ({'; '.join(lines[:3])}): "
                    "mark it @pytest.mark.heavy(...) (tests/tiers.py)", pytrace=False)
