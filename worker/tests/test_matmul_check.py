"""The built-in matmul's check on an all-zero product (a user's zero inputs):
no relative error exists, so the absolute one is compared, never a
ZeroDivisionError."""

import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.quick


@pytest.fixture
def matmul():
    sys.path.insert(0, str(ROOT / "worker"))
    try:
        from jitbench_worker.workloads import matmul

        yield matmul
    finally:
        sys.path.remove(str(ROOT / "worker"))


def test_an_all_zero_product_is_judged_by_its_absolute_error(matmul):
    np = pytest.importorskip("numpy")
    zeros = (np.zeros((4, 4)), np.zeros((4, 4)))
    verify, _ = matmul.check(np.zeros((4, 4)), zeros, 4, "f64", 0)
    assert verify["ok"] and verify["metric"] == "absolute_frobenius_error" and verify["error"] == 0.0
    wrong, _ = matmul.check(np.ones((4, 4)), zeros, 4, "f64", 0)
    assert not wrong["ok"] and wrong["error"] == pytest.approx(4.0) and "absolute error" in wrong["message"]
