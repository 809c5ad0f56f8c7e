"""A data-parallel training step over n devices (JAX transforms guide): the
global batch is split across n forced host devices
(XLA_FLAGS=--xla_force_host_platform_device_count=n), each computes gradients
on its shard and an all-reduce (psum) averages them; pmap or shard_map.
A call runs STEPS steps; the result is checked against full-batch float64
gradient descent (equal shards make the mean of shard means the full mean)."""

from . import _nets

GLOBAL_BATCH, D_IN, HIDDEN, D_OUT, LR, STEPS = 512, 32, 128, 8, 0.1, 10


def ENV_FOR(n):
    return {"XLA_FLAGS": f"--xla_force_host_platform_device_count={n}"}


def make(style):
    def make_inputs(n, dtype, seed):
        if GLOBAL_BATCH % n:
            from ..backends.base import Unsupported

            raise Unsupported(f"the global batch {GLOBAL_BATCH} does not split over {n} devices")
        return _nets.mlp_problem(seed, dtype, GLOBAL_BATCH, D_IN, HIDDEN, D_OUT)

    def check(out, inputs, n, dtype, seed, ctx=None):
        return _nets.judge(out, inputs, dtype, ctx, lambda i: _nets.sgd_reference(i, STEPS, LR),
                           "float64 NumPy full-batch SGD"), \
            {"devices": n, "style": style, "steps": STEPS}

    def build_jax(adapter, n, dtype):
        jax, jnp = adapter.jax, adapter.jnp
        if jax.device_count() < n:
            from ..backends.base import Unsupported

            raise Unsupported(f"{n} devices asked, JAX sees {jax.device_count()}")
        devices = jax.devices()[:n]

        def loss(p, x, y):
            return _nets.mse(jnp, _nets.mlp_forward(jnp, p, x)[0], y)

        def shard_step(p, x, y):
            g = jax.lax.pmean(jax.grad(loss)(p, x, y), "d")
            return jax.tree_util.tree_map(lambda a, b: a - LR * b, p, g)

        if style == "pmap":
            step = jax.pmap(shard_step, axis_name="d", devices=devices)

            def train(p, x, y):
                pr = jax.tree_util.tree_map(lambda a: jnp.broadcast_to(a, (n, *a.shape)), p)
                xs = x.reshape(n, -1, x.shape[-1])
                ys = y.reshape(n, -1, y.shape[-1])
                for _ in range(STEPS):
                    pr = step(pr, xs, ys)
                return jax.tree_util.tree_map(lambda a: a[0], pr)
        else:
            from jax.sharding import Mesh, PartitionSpec as P

            mesh = Mesh(devices, ("d",))
            # check_vma=False: each device's grad is its shard's own, all-reduced by
            # the explicit pmean exactly as under pmap (with varying-axis checks on,
            # JAX would already sum the grad of a replicated input).
            step = adapter.jit(jax.shard_map(shard_step, mesh=mesh, in_specs=(P(), P("d"), P("d")), out_specs=P(),
                                             check_vma=False))

            def train(p, x, y):
                for _ in range(STEPS):
                    p = step(p, x, y)
                return p

        return train

    return {"make_inputs": make_inputs, "check": check, "ENV_FOR": ENV_FOR, "IMPLEMENTATIONS": {"jax": build_jax}}
