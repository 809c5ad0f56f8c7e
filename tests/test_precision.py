"""Precision-aware verification, on the worker's own check functions: a result
computed the way a TF32 GPU computes it passes under a TF32 tolerance and fails
under an IEEE one, and a wrong result fails at every precision. TF32 products
are emulated on the CPU (operands rounded to nearest to 10 mantissa bits, as
cuBLAS does: the emulation reproduces the 0.037 error seen for remat on an
H100, docs/precision.md)."""

import json
import sys

import numpy as np
import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "worker"))

from jitbench_worker import verify, workloads  # noqa: E402

pytestmark = pytest.mark.quick


def ctx(fmt, dtype="f32"):
    return verify.Context(dtype, fmt)


def tf32_matmul(a, b):
    ra, rb = verify.round_to("tf32", a), verify.round_to("tf32", b)
    return (ra.astype(np.float64) @ rb.astype(np.float64)).astype(np.float32)


def test_rounding_to_tf32_and_bf16_keeps_the_right_bits():
    x = np.array([1 + 2 ** -10, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 2 ** -12, -3.0], dtype=np.float32)
    # 10 mantissa bits: 1 + 2^-11 is a tie that rounds to even (1), 1 + 3*2^-11 rounds up to 1 + 2^-9.
    assert verify.round_to("tf32", x).tolist() == [1 + 2 ** -10, 1.0, 1 + 2 ** -9, 1.0, -3.0]
    assert verify.round_to("bf16", np.array([1 + 2 ** -7, 1 + 2 ** -9], np.float32)).tolist() == [1 + 2 ** -7, 1.0]
    assert verify.round_to("ieee_fp32", x) is x
    f64 = np.array([1 + 2 ** -30])
    assert verify.round_to("tf32", f64) is f64


def test_float64_is_never_shortened():
    assert verify.Context("f64", "tf32").matmul == "fp64"


@pytest.mark.parametrize("n", [64, 512, 1024])
def test_matmul_tells_tf32_from_ieee_and_accepts_each_under_its_own_bound(n):
    mm = workloads.get("matmul")
    a, b = mm.make_inputs(n, "f32", 0)
    ieee = (a @ b).astype(np.float32)
    tf32 = tf32_matmul(a, b)
    assert mm.check(ieee, (a, b), n, "f32", 0, ctx=ctx("ieee_fp32"))[0]["ok"]
    assert mm.check(tf32, (a, b), n, "f32", 0, ctx=ctx("tf32"))[0]["ok"]
    assert mm.check(ieee, (a, b), n, "f32", 0, ctx=ctx("tf32"))[0]["ok"]  # IEEE is within the TF32 bound
    strict = mm.check(tf32, (a, b), n, "f32", 0, ctx=ctx("ieee_fp32"))[0]
    assert not strict["ok"] and "ieee_fp32 products" in strict["message"]


def corruptions(out, n):
    one = out.copy()
    one[n // 3, n // 5] += 1.0  # one element off by about 1/30 of a typical entry
    scaled = (out * np.float32(1.01)).astype(np.float32)
    row = out.copy()
    row[7] = 0  # a tile or row never written
    return {"one element": one, "scaled by 1.01": scaled, "a row of zeros": row, "transposed": out.T.copy()}


@pytest.mark.parametrize("fmt", ["ieee_fp32", "tf32"])
def test_a_wrong_matmul_fails_at_every_precision(fmt):
    n = 512
    mm = workloads.get("matmul")
    a, b = mm.make_inputs(n, "f32", 1)
    good = tf32_matmul(a, b) if fmt == "tf32" else (a @ b).astype(np.float32)
    for what, bad in corruptions(good, n).items():
        v = mm.check(bad, (a, b), n, "f32", 1, ctx=ctx(fmt))[0]
        assert not v["ok"], f"{what} passed under {fmt}: {v}"


def test_the_matmul_tolerance_is_stated_with_its_basis():
    mm = workloads.get("matmul")
    a, b = mm.make_inputs(256, "f32", 0)
    v = mm.check(tf32_matmul(a, b), (a, b), 256, "f32", 0, ctx=ctx("tf32"))[0]
    assert v["tolerance_basis"] == {"precision": "tf32", "basis": "matmul error bounds (docs/precision.md)",
                                    "reduction_length": 256}
    el, fro = verify.matmul_bounds("tf32", 256)
    assert (v["tolerance"], v["elementwise_tolerance"]) == (fro, el)
    assert v["error"] < v["tolerance"] / 4  # the random-rounding bound is not tight, but not loose either


def remat_tf32(inputs, n):
    """remat_none's gradient in float32 with every matmul's operands rounded to TF32."""
    ws, bs, x = inputs
    xs, hs = [x], []
    for i in range(n):
        h = np.tanh(tf32_matmul(xs[-1], ws[i]) + bs[i]).astype(np.float32)
        hs.append(h)
        xs.append((xs[-1] + h).astype(np.float32))
    g = (xs[-1] / xs[-1].size).astype(np.float32)
    gw, gb = np.zeros_like(ws), np.zeros_like(bs)
    for i in reversed(range(n)):
        dz = (g * (1 - hs[i] ** 2)).astype(np.float32)
        gw[i] = tf32_matmul(xs[i].T, dz)
        gb[i] = dz.sum(0)
        g = (g + tf32_matmul(dz, ws[i].T)).astype(np.float32)
    return gw, gb


def test_a_deep_network_in_tf32_passes_its_tf32_tolerance_and_not_the_ieee_one():
    n = 64
    w = workloads.get("remat_none")
    inputs = w.make_inputs(n, "f32", 0)
    out = remat_tf32(inputs, n)
    # One float64 reference and one TF32 sensitivity for the four verdicts, shared
    # as a case's processes share them (Context's memo): the same inputs each time.
    tf32 = ctx("tf32")
    v = w.check(out, inputs, n, "f32", 0, ctx=tf32)[0]
    assert v["ok"], v
    assert v["tolerance_basis"]["precision"] == "tf32" and v["tolerance_basis"]["sensitivity"] > 0
    ieee = verify.Context("f32", "ieee_fp32", memo={"reference": tf32.memo_values()["reference"]})
    assert not w.check(out, inputs, n, "f32", 0, ctx=ieee)[0]["ok"]
    # ... and a wrong gradient still fails under the TF32 tolerance.
    gw, gb = out
    wrong = (gw * np.float32(1.2), gb)
    assert not w.check(wrong, inputs, n, "f32", 0, ctx=tf32)[0]["ok"]
    zeroed = gw.copy()
    zeroed[n // 2] = 0
    assert not w.check((zeroed, gb), inputs, n, "f32", 0, ctx=tf32)[0]["ok"]


def test_workloads_without_a_precision_context_keep_their_ieee_tolerance():
    w = workloads.get("rnn_scan")
    inputs = w.make_inputs(16, "f32", 0)
    v_none = w.check(np.zeros(64), inputs, 16, "f32", 0)[0]
    v_ieee = w.check(np.zeros(64), inputs, 16, "f32", 0, ctx=ctx("ieee_fp32"))[0]
    assert v_none["tolerance"] == v_ieee["tolerance"] and not v_none["ok"]


@pytest.mark.parametrize("n", [100_000, 2_000_000])
def test_mc_pi_is_checked_against_the_exact_count(n):
    mc = workloads.get("mc_pi")
    exact, ambiguous = mc.exact_count(n, 0)
    f64 = int(mc._mc_pi_vectorised(np, n, mc.key_from_seed(0), np.float64))
    f32 = int(mc._mc_pi_vectorised(np, n, mc.key_from_seed(0), np.float32))
    assert f64 == exact  # float64 decides every point exactly
    assert abs(f32 - exact) <= ambiguous
    assert mc.check(f64, (), n, "f64", 0)[0]["ok"]
    assert mc.check(f32, (), n, "f32", 0)[0]["ok"]
    assert not mc.check(exact + 1, (), n, "f64", 0)[0]["ok"]
    assert not mc.check(exact + ambiguous + 1, (), n, "f32", 0)[0]["ok"]


@pytest.mark.heavy("jax")
def test_precision_is_a_recorded_case_dimension_on_the_cpu(jitbench):
    """--precision highest on the CPU: its own case ids, IEEE products recorded
    with the settings read back (JAX's jax_default_matmul_precision), and the
    precision shown in the summary; JAX's break-even uses eager JAX."""
    res = jitbench("run", "--backends", "numpy,jax_jit_cpu,jax_eager_cpu", "--cases", "matmul_64_f32",
                   "--precision", "default,highest", "--cold-runs", "1", "--warm-iters", "2")
    assert res.rc == 0, res.stderr
    ids = [c["case"] for c in res.index()["cases"]]
    assert "jax_jit_cpu_matmul_64_f32" in ids and "jax_jit_cpu_matmul_64_f32__highest" in ids
    high = res.case("jax_jit_cpu_matmul_64_f32__highest")
    assert high["config"]["precision"] == "highest"
    assert high["precision"]["requested"] == "highest"
    assert high["precision"]["matmul"] == "ieee_fp32"
    assert high["precision"]["settings"]["jax_default_matmul_precision"] == "highest"
    default = res.case("jax_jit_cpu_matmul_64_f32")
    assert default["precision"]["settings"]["jax_default_matmul_precision"] is None
    assert default["verification"]["tolerance_basis"]["precision"] == "ieee_fp32"
    # The ML-suite export keeps the contract's ids: only the default precision goes there.
    ml = json.loads((res.out / "ml" / "ml_suite.json").read_text())
    assert all("highest" not in c["case"] for c in ml["cases"])
    analysis = json.loads((res.out / "analysis.json").read_text())
    be = {b["jit_case"]: b for b in analysis["break_even"]}
    assert be["jax_jit_cpu_matmul_64_f32"]["eager_case"] == "jax_eager_cpu_matmul_64_f32"
    assert be["jax_jit_cpu_matmul_64_f32__highest"]["eager_case"] == "jax_eager_cpu_matmul_64_f32__highest"
    assert be["jax_jit_cpu_matmul_64_f32"]["baseline"] == {"kind": "same_framework", "note": None}
    summary = (res.out / "summary.md").read_text()
    section = summary.split("\n## `matmul_64_f32`\n")[1].split("\n## ")[0]  # the workload's section
    assert "Matmul precision" not in section  # IEEE fp32 for f32 everywhere: what a reader assumes, not repeated
    assert "| `jax_jit_cpu__highest` |" in section


@pytest.mark.heavy("jax")
def test_a_missing_own_baseline_is_named_when_numpy_stands_in(jitbench):
    res = jitbench("run", "--backends", "numpy,jax_jit_cpu", "--cases", "matmul_64_f32", "--cold-runs", "1",
                   "--warm-iters", "2")
    analysis = json.loads((res.out / "analysis.json").read_text())
    b = analysis["break_even"][0]
    assert b["eager_case"] == "numpy_matmul_64_f32"
    assert b["baseline"]["kind"] == "numpy" and "jax_eager_cpu" in b["baseline"]["note"]
    assert "`numpy` (no ok jax_eager_cpu case" in (res.out / "summary.md").read_text()
