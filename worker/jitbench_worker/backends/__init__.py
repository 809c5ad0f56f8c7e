"""Backend registry: one file per adapter, one line per backend here."""

from . import jax_, numba_, numpy_, python_

_REGISTRY = {
    "python": lambda: python_.PythonAdapter(),
    "numpy": lambda: numpy_.NumpyAdapter(),
    "numba": lambda: numba_.NumbaAdapter(),
    "jax_jit_cpu": lambda: jax_.JaxAdapter("cpu"),
    "jax_jit_gpu": lambda: jax_.JaxAdapter("gpu"),
}


def names():
    return list(_REGISTRY)


def create(name: str):
    try:
        return _REGISTRY[name]()
    except KeyError:
        raise ValueError(f"unknown backend {name!r}; valid: {', '.join(_REGISTRY)}") from None
