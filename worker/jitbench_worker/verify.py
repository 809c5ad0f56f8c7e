"""Verification that knows the matmul precision the framework actually used.

A float32 matmul may be computed with IEEE float32 products (CPUs, torch's
default, `--precision highest`) or with its operands first rounded to a
shorter format: TF32 (10-bit mantissa) on an Ampere-or-later NVIDIA GPU for JAX
and TensorFlow by default, bf16 (7 bits) on TPUs or when asked. Every such
result is judged under a tolerance derived from the format it was computed in,
stated in the case file, never loosened silently (docs/precision.md):

- matmul: the classical bounds (Higham, Accuracy and Stability, ch. 3) with
  u_in the operand rounding and u_acc the accumulator's unit roundoff,
    every element   |C^ - C| <= ((1 + u_in)^2 (1 + g_k) - 1 + g_k(f64)) |A||B|,
                    g_k = k u_acc / (1 - k u_acc)   (worst case, any inputs)
    whole matrix    ||C^ - C||_F / ||C||_F <= 4 (sqrt(2) u_in + sqrt(k) u_acc)
                    (random rounding errors on random inputs: rounding both
                    operands contributes sqrt(2/3) u_in, k sums a random walk of
                    sqrt(k) u_acc; 4 is the safety factor). The second bound is
                    what tells a TF32 result from an IEEE one.
- every other workload: its own IEEE tolerance, or, when the operands are
  rounded, SENSITIVITY_SAFETY times the problem's own sensitivity to that
  rounding (the float64 reference recomputed from inputs rounded to the
  format), whichever is larger. bench/precision_calibration.py shows, for each
  workload, that a full TF32/bf16 emulation of the computation stays inside it.
"""

import math

# Operand rounding (round to nearest: half an ulp) and accumulator unit roundoff.
FORMATS = {
    "ieee_fp32": (0.0, 2.0 ** -24),
    "tf32": (2.0 ** -11, 2.0 ** -24),
    "bf16": (2.0 ** -8, 2.0 ** -24),
    "fp64": (0.0, 2.0 ** -53),
}
# Mantissa bits each format drops from a float32 (for rounding inputs to it).
_DROPPED_BITS = {"tf32": 13, "bf16": 16}
FROBENIUS_SAFETY = 4.0
SENSITIVITY_SAFETY = 4.0
# A relative tolerance above this accepts nearly anything: such a case is not
# verifiable at that precision, and says so instead of passing.
MAX_MEANINGFUL_TOLERANCE = 0.5
U_REFERENCE = 2.0 ** -53


def gamma(k, u):
    """Higham's gamma_k = k u / (1 - k u): the worst-case relative error of a k-term sum."""
    ku = k * u
    return ku / (1.0 - ku) if ku < 1 else math.inf


def matmul_bounds(fmt, k):
    """(elementwise bound on |C^-C| / (|A||B|), bound on the relative Frobenius error)."""
    u_in, u_acc = FORMATS[fmt]
    elementwise = (1 + u_in) ** 2 * (1 + gamma(k, u_acc)) - 1 + gamma(k, U_REFERENCE)
    frobenius = FROBENIUS_SAFETY * (math.sqrt(2.0) * u_in + math.sqrt(k) * (u_acc + U_REFERENCE))
    return elementwise, frobenius


def round_to(fmt, x):
    """A float32 array rounded to nearest in fmt (tf32/bf16), returned as float32;
    anything else (float64, ints, IEEE formats) unchanged."""
    import numpy as np

    bits = _DROPPED_BITS.get(fmt)
    if bits is None or not isinstance(x, np.ndarray) or x.dtype != np.float32:
        return x
    u = x.view(np.uint32).astype(np.uint64)
    half = np.uint64((1 << (bits - 1)) - 1)
    lsb = (u >> np.uint64(bits)) & np.uint64(1)  # ties to even
    keep = np.uint64((0xFFFFFFFF >> bits) << bits)
    return ((u + half + lsb) & keep).astype(np.uint32).view(np.float32)


def round_tree(fmt, tree):
    if isinstance(tree, dict):
        return {k: round_tree(fmt, v) for k, v in tree.items()}
    if isinstance(tree, (tuple, list)):
        return type(tree)(round_tree(fmt, v) for v in tree)
    return round_to(fmt, tree)


class Context:
    """What a workload's check needs beyond the output: the effective matmul
    format for this case, and a memo so that the first and the last output of a
    run share one float64 reference."""

    def __init__(self, dtype, matmul="ieee_fp32", requested="default", memo=None):
        self.dtype = dtype
        # float64 products are never shortened by the precision settings jitbench touches.
        self.matmul = "fp64" if dtype == "f64" else matmul
        self.requested = requested
        # memo: values the case's first process computed (shared.py), else empty.
        self._memo = dict(memo or {})
        self.computed = set()  # the keys this process computed itself

    def memo(self, key, compute):
        if key not in self._memo:
            self._memo[key] = compute()
            self.computed.add(key)
        return self._memo[key]

    def memo_values(self):
        return dict(self._memo)

    @property
    def rounds_operands(self):
        return FORMATS.get(self.matmul, (0.0, 0.0))[0] > 0

    def tolerance(self, ieee_tol, sensitivity):
        """(tolerance, how it was derived). sensitivity() -> the error of the float64
        reference recomputed from inputs rounded to the effective format."""
        if not self.rounds_operands:
            return ieee_tol, {"precision": self.matmul, "basis": "the workload's IEEE tolerance"}
        s = self.memo("sensitivity", sensitivity)
        basis = {"precision": self.matmul, "sensitivity": s,
                 "basis": f"max(IEEE tolerance {ieee_tol:g}, {SENSITIVITY_SAFETY:g} x sensitivity to {self.matmul} "
                          "operand rounding)"}
        tol = max(ieee_tol, SENSITIVITY_SAFETY * s)
        if tol > MAX_MEANINGFUL_TOLERANCE:
            # Failing every result: a check that accepts nearly anything is no check.
            basis["unverifiable"] = (f"one {self.matmul} rounding of the inputs changes the result by {s:.3g}: no "
                                     "meaningful tolerance exists at this precision (run with --precision highest)")
            return 0.0, basis
        return tol, basis


def accepts_context(check):
    """True when a workload's check(out, inputs, n, dtype, seed, ctx=...) takes a context
    (user workloads written before precision existed do not)."""
    import inspect

    try:
        return "ctx" in inspect.signature(check).parameters
    except (TypeError, ValueError):
        return False
