"""Backend registry: one file per adapter, one line per backend here."""

from . import jax_, numba_, numpy_, python_, tensorflow_, torch_, triton_

_REGISTRY = {
    "python": lambda: python_.PythonAdapter(),
    "numpy": lambda: numpy_.NumpyAdapter(),
    "numba": lambda: numba_.NumbaAdapter(),
    "numba_parallel": lambda: numba_.NumbaParallelAdapter(),
    "jax_jit_cpu": lambda: jax_.JaxAdapter("cpu"),
    "jax_jit_gpu": lambda: jax_.JaxAdapter("gpu"),
    "jax_eager_cpu": lambda: jax_.JaxAdapter("cpu", jit=False),
    "jax_eager_gpu": lambda: jax_.JaxAdapter("gpu", jit=False),
    "tensorflow": lambda: tensorflow_.TensorflowAdapter("cpu"),
    "tensorflow_gpu": lambda: tensorflow_.TensorflowAdapter("gpu"),
    "torch_eager": lambda: torch_.TorchAdapter(compiled=False, platform="cpu"),
    "torch_compile": lambda: torch_.TorchAdapter(compiled=True, platform="cpu"),
    "torch_eager_gpu": lambda: torch_.TorchAdapter(compiled=False, platform="gpu"),
    "torch_compile_gpu": lambda: torch_.TorchAdapter(compiled=True, platform="gpu"),
    "triton": lambda: triton_.TritonAdapter(),
}


def names():
    return list(_REGISTRY)


def create(name: str):
    try:
        return _REGISTRY[name]()
    except KeyError:
        raise ValueError(f"unknown backend {name!r}; valid: {', '.join(_REGISTRY)}") from None
