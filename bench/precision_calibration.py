"""Does each workload's TF32/bf16 tolerance hold a real TF32/bf16 computation?

Without a GPU, emulate one: every dot_general JAX traces rounds its float32
operands to the format first (round to nearest, as cuBLAS does for TF32), then
multiplies with float32 accumulation, as tensor cores do. Each workload's JAX
implementation runs under jit on the CPU with that emulation, and its own check
judges the result under the format's tolerance (verify.Context). Printed per
workload and size: the emulated error, the tolerance and its basis, and whether
the IEEE tolerance alone would have accepted it.

    .venv/bin/python bench/precision_calibration.py [tf32|bf16]

Results are written down in docs/precision.md.
"""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "worker"))

CASES = [("matmul", 1024), ("small_fits", 16), ("sgd_step", 256), ("value_and_grad_aux", 256),
         ("per_example_vmap", 64), ("rnn_scan", 256), ("rnn_unrolled", 64), ("remat_none", 16),
         ("remat_none", 256), ("sharded_mlp_single", 512), ("data_parallel_shard_map", 2)]
DROPPED = {"tf32": 13, "bf16": 16}


def emulate(jax, fmt):
    """Patches jax's dot_general so that float32 operands are rounded to fmt."""
    from jax._src.lax import lax as lax_impl

    jnp = jax.numpy
    bits = DROPPED[fmt]
    keep = (0xFFFFFFFF >> bits) << bits
    half = (1 << (bits - 1)) - 1
    original = lax_impl.dot_general

    def rounded(x):
        if x.dtype != jnp.float32:
            return x
        u = jax.lax.bitcast_convert_type(x, jnp.uint32)
        lsb = (u >> bits) & jnp.uint32(1)
        r = jax.lax.bitcast_convert_type((u + jnp.uint32(half) + lsb) & jnp.uint32(keep), jnp.float32)
        # The rounded value forward, the identity backward (the bit trick has no
        # derivative); r - x is exact, so x + (r - x) is exactly r.
        return x + jax.lax.stop_gradient(r - x)

    def dot_general(lhs, rhs, *args, **kwargs):
        return original(rounded(lhs), rounded(rhs), *args, **kwargs)

    lax_impl.dot_general = dot_general


def main(fmt="tf32"):
    from jitbench_worker import backends, verify, workloads

    adapter = backends.create("jax_jit_cpu")
    adapter.set_env("XLA_FLAGS", "--xla_force_host_platform_device_count=2")
    adapter.import_framework("f32", None)
    adapter.init_device()
    emulate(adapter.jax, fmt)
    print(f"{'workload':<24} {'n':>5} {'error':>10} {'tolerance':>10} {'IEEE tol':>9}  verdict ({fmt} emulated)")
    for name, n in CASES:
        w = workloads.get(name)
        inputs = w.make_inputs(n, "f32", 0)
        fn = w.IMPLEMENTATIONS["jax"](adapter, n, "f32")
        out = adapter.to_numpy(adapter.sync(fn(*(adapter.to_device(x) for x in inputs))))
        v, _ = w.check(out, inputs, n, "f32", 0, ctx=verify.Context("f32", fmt))
        ieee, _ = w.check(out, inputs, n, "f32", 0, ctx=verify.Context("f32", "ieee_fp32"))
        verdict = "ok" if v["ok"] else "UNVERIFIABLE" if "unverifiable" in v.get("tolerance_basis", {}) else "FAILS"
        print(f"{name:<24} {n:>5} {v['error']:>10.3g} {v['tolerance']:>10.3g} {ieee['tolerance']:>9.3g}  "
              f"{verdict}; IEEE tolerance would {'accept' if ieee['ok'] else 'reject'} it")


if __name__ == "__main__":
    main(*sys.argv[1:])
