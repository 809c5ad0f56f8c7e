"""A small JAX training step, as a user has it: `jitbench measure
examples/your-code/train_step.py:train_step` measures it (docs/your-code.md)."""

import jax
import jax.numpy as jnp
import numpy as np


def loss(params, x, y):
    hidden = jnp.tanh(x @ params["w1"] + params["b1"])
    return jnp.mean((hidden @ params["w2"] - y) ** 2)


@jax.jit
def train_step(params, x, y):
    """One SGD step of a 2-layer MLP; returns the new parameters."""
    grads = jax.grad(loss)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)


def make_inputs():
    """The arguments of one call: parameters, a batch of 256 examples, targets."""
    rng = np.random.default_rng(0)
    params = {"w1": rng.standard_normal((32, 64)).astype(np.float32) * 0.1, "b1": np.zeros(64, np.float32),
              "w2": rng.standard_normal((64, 1)).astype(np.float32) * 0.1}
    x = rng.standard_normal((256, 32)).astype(np.float32)
    return params, x, np.sin(x.sum(axis=1, keepdims=True)).astype(np.float32)
