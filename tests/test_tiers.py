"""Every test module is in one tier (tests/tiers.py), and the quick tier's
guard notices a framework import."""

import os
import shutil
import subprocess
import sys

import pytest

import tiers
from conftest import ROOT

pytestmark = pytest.mark.quick

TESTS = ROOT / "tests"


def test_every_test_module_is_in_exactly_one_tier():
    modules = sorted([*TESTS.glob("test_*.py"), *(ROOT / "worker" / "tests").glob("test_*.py")])
    assert len(modules) > 40 and any(p.parent.parent.name == "worker" for p in modules)
    wrong = {p.name: sorted(tiers.module_tier(p)) for p in modules if len(tiers.module_tier(p)) != 1}
    assert not wrong, f"give each a module-level pytestmark of one tier (tests/tiers.py): {wrong}"


def test_a_module_in_no_tier_is_refused_before_anything_runs(tmp_path):
    shutil.copy(ROOT / "conftest.py", tmp_path / "conftest.py")  # the tiers' hooks
    shutil.copy(TESTS / "tiers.py", tmp_path / "tiers.py")
    shutil.copytree(TESTS / "tier_guard", tmp_path / "tier_guard")
    (tmp_path / "test_unmarked.py").write_text("def test_x():\n    assert True\n")
    (tmp_path / "test_marked.py").write_text("import pytest\npytestmark = pytest.mark.quick\n\n"
                                             "def test_y():\n    assert True\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                         capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert run.returncode == 4, run.stdout + run.stderr  # a usage error: nothing ran
    assert "test modules in no tier: test_unmarked.py" in run.stdout + run.stderr
    assert tiers.module_tier(tmp_path / "test_unmarked.py") == set()
    assert tiers.module_tier(tmp_path / "test_marked.py") == {"quick"}


def test_the_quick_tiers_guard_records_a_framework_a_process_imports(tmp_path):
    fake = tmp_path / "site" / "numba"  # an importable package by a guarded name
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    log = tmp_path / "tier.log"
    env = dict(os.environ, JITBENCH_TEST_TIER_LOG=str(log),
               PYTHONPATH=os.pathsep.join([str(TESTS / "tier_guard"), str(tmp_path / "site")]))
    subprocess.run([sys.executable, "-c", "import numpy"], env=env, check=True, timeout=60)
    assert not log.exists() or log.read_text() == ""
    subprocess.run([sys.executable, "-c", "import numba"], env=env, check=True, timeout=60)
    assert log.read_text().startswith("numba pid ")
    # A framework that is not installed costs nothing and is not recorded.
    log.unlink()
    code = ("import sys, tier_guard\ntier_guard.install(sys.argv[1])\nsys.path[:] = [sys.argv[2]]\n"
            "try:\n    import jax\nexcept ImportError:\n    pass\n")
    subprocess.run([sys.executable, "-c", code, str(log), str(tmp_path / "empty")],
                   env=dict(os.environ, PYTHONPATH=str(TESTS / "tier_guard")), check=True, timeout=60)
    assert not log.exists()
