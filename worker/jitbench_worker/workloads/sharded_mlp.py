"""An MLP of width n under jit with NamedSharding over a 2 x 4 (data x model)
mesh of forced host devices (JAX transforms guide): the batch is split over
"data", the hidden units over "model", and XLA inserts the collectives. The
single-device variant runs the same program on one device of the same 8-device
process. Returns the MLP's output."""

from . import _nets

BATCH, D_IN, D_OUT, MESH = 256, 64, 16, (2, 4)
ENV = {"XLA_FLAGS": "--xla_force_host_platform_device_count=8"}


def make(sharded):
    def make_inputs(n, dtype, seed):
        import numpy as np

        rng = np.random.default_rng(seed)
        t = _nets.ftype(np, dtype)
        p = _nets.mlp_params(rng, D_IN, n, D_OUT, t)
        return p, rng.standard_normal((BATCH, D_IN)).astype(t)

    def reference(inputs):
        import numpy as np

        return _nets.mlp_forward(np, _nets.as64(inputs[0]), inputs[1].astype(np.float64))[0]

    def check(out, inputs, n, dtype, seed, ctx=None):
        return _nets.judge(out, inputs, dtype, ctx, reference, "float64 NumPy forward pass"), \
            {"width": n, "mesh": list(MESH) if sharded else [1, 1]}

    def build_jax(adapter, n, dtype):
        jax, jnp = adapter.jax, adapter.jnp
        f = adapter.jit(lambda p, x: _nets.mlp_forward(jnp, p, x)[0])
        if not sharded:
            f.memory_probe = lambda *a: _nets.compiled_memory(adapter, f, a)
            return f
        if jax.device_count() < 8:
            from ..backends.base import Unsupported

            raise Unsupported(f"a 2 x 4 mesh needs 8 devices, JAX sees {jax.device_count()}")
        if n % MESH[1]:
            from ..backends.base import Unsupported

            raise Unsupported(f"width {n} does not split over {MESH[1]} model shards")
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

        import numpy as np

        mesh = Mesh(np.array(jax.devices()[:8]).reshape(MESH), ("data", "model"))
        specs = {"w1": P(None, "model"), "b1": P("model"), "w2": P("model", None), "b2": P()}

        def call(p, x):
            p = {k: jax.device_put(v, NamedSharding(mesh, specs[k])) for k, v in p.items()}
            return f(p, jax.device_put(x, NamedSharding(mesh, P("data", None))))

        return call

    return {"make_inputs": make_inputs, "check": check, "ENV": ENV, "IMPLEMENTATIONS": {"jax": build_jax}}
