"""The short-loop workloads: each runs and verifies on every CPU backend that
has the construct here, and each check fails a wrong answer, including one
that matches the reference's shape but not its physics or convergence."""

import json
import sys

import numpy as np
import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "worker"))

from jitbench_worker import backends, workloads  # noqa: E402

pytestmark = pytest.mark.quick

LOOPS = ("mlp_train", "likelihood_fit", "ode_rk4", "transformer_block")


def numpy_out(name, n, dtype="f64"):
    w = workloads.get(name)
    inputs = w.make_inputs(n, dtype, 0)
    adapter = backends.create("numpy")
    adapter.import_framework(dtype, None)
    return w, inputs, adapter.to_numpy(w.IMPLEMENTATIONS["numpy"](adapter, n, dtype)(*inputs))


def jax_out(name, n, dtype="f64"):
    w = workloads.get(name)
    inputs = w.make_inputs(n, dtype, 0)
    adapter = backends.create("jax_eager_cpu")
    adapter.import_framework(dtype, None)
    adapter.init_device()
    fn = w.IMPLEMENTATIONS["jax"](adapter, n, dtype)
    return w, inputs, adapter.to_numpy(fn(*(adapter.to_device(x) for x in inputs)))


@pytest.mark.parametrize("name,n", [("mlp_train", 16), ("likelihood_fit", 16), ("ode_rk4", 32)])
def test_a_right_answer_passes_and_a_perturbed_one_fails(name, n):
    w, inputs, out = numpy_out(name, n)
    verify, info = w.check(out, inputs, n, "f64", 0)
    assert verify["ok"], verify
    wrong = tuple(np.asarray(a) * (1 + 1e-4) for a in out)
    assert not w.check(wrong, inputs, n, "f64", 0)[0]["ok"]


@pytest.mark.heavy("jax")
def test_transformer_gradient_is_checked_in_every_direction():
    w, inputs, out = jax_out("transformer_block", 8)
    assert w.check(out, inputs, 8, "f64", 0)[0]["ok"]
    loss, *grads = out
    # The right loss with one parameter's gradient off by 1%: the directional derivatives catch it.
    grads[3] = grads[3] * 1.01
    verdict = w.check((loss, *grads), inputs, 8, "f64", 0)[0]
    assert not verdict["ok"] and verdict["metric"] == "relative_error"


def test_ode_that_agrees_with_no_physics_fails_on_the_invariant():
    w, inputs, out = numpy_out("ode_rk4", 8)
    # Doubling every prey count breaks conservation of the Lotka-Volterra invariant.
    verdict = w.check((out[0] * 2, out[1]), inputs, 8, "f64", 0)[0]
    assert not verdict["ok"]


def test_a_fit_stopped_early_is_not_converged():
    w, inputs, out = numpy_out("likelihood_fit", 16)
    mu, gamma, nll = out
    verdict = w.check((mu, np.ones_like(gamma), nll), inputs, 16, "f64", 0)[0]
    assert not verdict["ok"]


def test_a_loss_curve_that_does_not_fall_fails():
    w, inputs, out = numpy_out("mlp_train", 16)
    *params, losses = out
    flat = np.full_like(losses, losses[0])
    verdict = w.check((*params, flat), inputs, 16, "f64", 0)[0]
    assert not verdict["ok"] and "did not go down" in verdict["message"], verdict


@pytest.mark.heavy("jax, numba, tensorflow")
def test_loops_verify_on_every_cpu_backend_that_has_them(jitbench):
    cases = "mlp_train_32_f32,likelihood_fit_16_f32,ode_rk4_64_f32,transformer_block_16_f32"
    backends_ = "numpy,numba,jax_jit_cpu,jax_eager_cpu,tensorflow,tensorflow_eager"
    res = jitbench("run", "--cases", cases, "--backends", backends_, "--cold-runs", "1", "--warm-iters", "2")
    index = res.index()
    statuses = {c["case"]: (c["status"], c.get("reason")) for c in index["cases"]}
    implemented = {"mlp_train": {"numpy", "jax", "tensorflow"}, "likelihood_fit": {"numpy", "jax", "tensorflow"},
                   "ode_rk4": {"numpy", "numba", "jax", "tensorflow"}, "transformer_block": {"jax", "tensorflow"}}
    for case_id, (status, reason) in statuses.items():
        backend = next(b for b in backends_.split(",") if case_id.startswith(b + "_") and
                       case_id[len(b) + 1:].split("_")[0] in ("mlp", "likelihood", "ode", "transformer"))
        workload = next(w for w in LOOPS if w in case_id)
        framework = backend.split("_")[0]
        if framework in implemented[workload]:
            assert status == "ok", (case_id, status, reason)
        else:
            assert status == "warn" and reason.startswith("unsupported"), (case_id, status, reason)
    analysis = json.loads((res.out / "analysis.json").read_text())
    loop_cases = {r["case"] for r in analysis["loops"]}
    assert "jax_jit_cpu_ode_rk4_64_f32" in loop_cases and "tensorflow_transformer_block_16_f32" in loop_cases
    pairs = {(r["jit_case"], r["eager_case"]) for r in analysis["break_even"]}
    assert ("tensorflow_mlp_train_32_f32", "tensorflow_eager_mlp_train_32_f32") in pairs
    assert ("jax_jit_cpu_likelihood_fit_16_f32", "jax_eager_cpu_likelihood_fit_16_f32") in pairs
    assert ("numba_ode_rk4_64_f32", "numpy_ode_rk4_64_f32") in pairs
