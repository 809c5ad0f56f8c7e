"""Each quantity a workload returns is judged on its own scale: a wrong small
quantity (a signal strength, one fit of a sweep, one bias gradient) must fail
the value check even when a large one beside it (an NLL of -5000, the other
fits) is right. Pooled into one norm, each of these passed."""

import math
import sys

import numpy as np
import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "worker"))

from jitbench_worker import backends, workloads  # noqa: E402
from jitbench_worker.workloads import likelihood_fit  # noqa: E402

pytestmark = pytest.mark.quick


def numpy_out(name, n, dtype):
    w = workloads.get(name)
    inputs = w.make_inputs(n, dtype, 0)
    adapter = backends.create("numpy")
    adapter.import_framework(dtype, None)
    return w, inputs, adapter.to_numpy(w.IMPLEMENTATIONS["numpy"](adapter, n, dtype)(*inputs))


@pytest.fixture
def no_gradient_check(monkeypatch):
    """The convergence check off: what is left is the value check alone."""
    monkeypatch.setattr(likelihood_fit, "GRAD_TOL", {"f32": math.inf, "f64": math.inf})


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_the_fits_own_result_passes_the_value_check(no_gradient_check, dtype):
    w, inputs, out = numpy_out("likelihood_fit", 16, dtype)
    verdict = w.check(out, inputs, 16, dtype, 0)[0]
    assert verdict["ok"], verdict
    assert set(verdict["per_quantity"]) == {"mu", "gamma", "nll"}


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_the_unfitted_start_point_fails_the_value_check(no_gradient_check, dtype):
    w, inputs, out = numpy_out("likelihood_fit", 16, dtype)
    s, b, d, sigma = (np.asarray(v, np.float64) for v in inputs)
    gamma = np.ones(16)
    nll = likelihood_fit._nll(np.log, 1.0, gamma, s, b, d, sigma)
    verdict = w.check((np.float64(1.0), gamma, np.float64(nll)), inputs, 16, dtype, 0)[0]
    assert not verdict["ok"] and "exceeds" in verdict["message"], verdict


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("delta", [0.01, -0.01])
def test_mu_off_by_a_hundredth_fails_the_value_check(no_gradient_check, dtype, delta):
    w, inputs, out = numpy_out("likelihood_fit", 16, dtype)
    mu, gamma, nll = out
    verdict = w.check((np.asarray(mu) + delta, gamma, nll), inputs, 16, dtype, 0)[0]
    assert not verdict["ok"], verdict
    assert verdict["message"].startswith("relative error of mu"), verdict
    assert verdict["per_quantity"]["gamma"] < verdict["tolerance"] < verdict["per_quantity"]["mu"]


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_one_wrong_gamma_fails_the_value_check(no_gradient_check, dtype):
    """One bin modifier of 16 off by twice the tolerance: pooled into one norm over the gammas (about 4 x the
    modifiers' size) that is half the tolerance and passed; each gamma judged on its own scale, it fails."""
    w, inputs, out = numpy_out("likelihood_fit", 16, dtype)
    mu, gamma, nll = out
    tol = w.check(out, inputs, 16, dtype, 0)[0]["tolerance"]
    wrong = np.array(gamma, dtype=np.float64)
    wrong[5] *= 1 + 2 * tol
    pooled = float(np.linalg.norm(wrong - np.asarray(gamma, np.float64)) / np.linalg.norm(np.asarray(gamma, np.float64)))
    assert pooled < tol  # what the pooled check saw
    verdict = w.check((mu, wrong.astype(np.asarray(gamma).dtype), nll), inputs, 16, dtype, 0)[0]
    assert not verdict["ok"] and verdict["message"].startswith("relative error of gamma"), verdict
    assert verdict["per_quantity"]["gamma"] > tol > verdict["per_quantity"]["mu"]


def test_one_wrong_fit_of_a_sweep_fails():
    w, inputs, out = numpy_out("small_fits", 64, "f32")
    assert w.check(out, inputs, 64, "f32", 0)[0]["ok"]
    wrong = np.array(out, dtype=np.float64)
    wrong[17] *= 1.005  # one fit of 64 off by 0.5%: 6e-4 pooled over the sweep, under 1e-3
    verdict = w.check(wrong.astype(np.float32), inputs, 64, "f32", 0)[0]
    assert not verdict["ok"] and verdict["error"] > 4e-3, verdict


def test_one_wrong_parameter_of_a_training_run_fails():
    w, inputs, out = numpy_out("mlp_train", 16, "f32")
    assert w.check(out, inputs, 16, "f32", 0)[0]["ok"]
    *params, losses = (np.asarray(a) for a in out)
    i = w.KEYS.index("b2")
    params[i] = params[i] + 0.01 * np.linalg.norm(params[i]) / np.sqrt(params[i].size)
    verdict = w.check((*params, losses), inputs, 16, "f32", 0)[0]
    assert not verdict["ok"] and "of b2" in verdict["message"], verdict


def test_the_case_file_keeps_each_quantitys_error(jitbench):
    """per_quantity travels with the verdict into the case file (its `verification`): each gamma's worst, mu and
    the NLL, each under the tolerance the verdict states."""
    res = jitbench("run", "--backends", "numpy", "--cases", "likelihood_fit_16_f32", "--cold-runs", "1",
                   "--warm-iters", "2")
    assert res.rc == 0, res.stderr
    v = res.case("numpy_likelihood_fit_16_f32")["verification"]
    assert set(v["per_quantity"]) == {"mu", "gamma", "nll"}, v
    assert v["error"] == max(v["per_quantity"].values()) and v["error"] <= v["tolerance"], v
