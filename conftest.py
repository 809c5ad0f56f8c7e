"""pytest's set-up for every test folder of the repository: tests/ (the
harness, end to end, with its own fixtures in tests/conftest.py) and
worker/tests/ (the worker's in-process tests). Here: ROOT, and the test tiers
(tests/tiers.py), so that `pytest` from the repository root, `pytest tests
worker/tests` (scripts/test.sh) and `pytest worker/tests` alone all see them."""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tests"))  # tiers, and tests/conftest.py's helpers for `from conftest import ...`

import tiers  # noqa: E402
from tiers import _tier_guard  # noqa: E402, F401 (autouse: a quick test that imports a framework fails)


# The test tiers (tests/tiers.py): `--tier quick` is scripts/test.sh --quick.
def pytest_addoption(parser):
    tiers.addoption(parser)


def pytest_configure(config):
    tiers.configure(config)


def pytest_ignore_collect(collection_path, config):
    return tiers.ignore_collect(collection_path, config)


def pytest_collection_modifyitems(config, items):
    tiers.modifyitems(config, items)


def pytest_collection_finish(session):
    tiers.check_collection(session.config)
