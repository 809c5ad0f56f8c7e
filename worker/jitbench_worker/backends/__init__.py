"""Backend registry: one file per adapter, one line per backend here. This is
jitbench's one catalog of backends: `python -m jitbench_worker.catalog` prints
it and the C++ side embeds that output at build time (src/config/catalog.cc).

Each entry: the adapter's factory (None for a backend another worker runs),
a one-line summary, whether it compiles at run time (a JIT, weighed against a
baseline), and its baseline: the same framework without the JIT on the same
device ("" for NumPy)."""

from . import jax_, numba_, numpy_, python_, tensorflow_, torch_, triton_

_REGISTRY = {
    "python": (python_.PythonAdapter, "plain Python loops (no JIT, no vectorisation)", False, ""),
    "numpy": (numpy_.NumpyAdapter, "NumPy, eager (the seed's baseline)", False, ""),
    "numba": (numba_.NumbaAdapter, "numba.njit (cache=True under warm_cache)", True, ""),
    "jax_jit_cpu": (lambda: jax_.JaxAdapter("cpu"), "jax.jit on the CPU backend", True, "jax_eager_cpu"),
    "jax_jit_gpu": (lambda: jax_.JaxAdapter("gpu"), "jax.jit on a CUDA GPU", True, "jax_eager_gpu"),
    "jax_eager_cpu": (lambda: jax_.JaxAdapter("cpu", jit=False),
                      "JAX op by op without jax.jit on the CPU (jax.jit's baseline)", False, ""),
    "jax_eager_gpu": (lambda: jax_.JaxAdapter("gpu", jit=False),
                      "JAX op by op without jax.jit on a CUDA GPU (jax_jit_gpu's baseline)", False, ""),
    "numba_parallel": (numba_.NumbaParallelAdapter, "numba.njit(parallel=True): prange loops over threads", True,
                       ""),
    "tensorflow": (lambda: tensorflow_.TensorflowAdapter("cpu"), "tf.function(jit_compile=True) (XLA) on the CPU",
                   True, ""),
    "tensorflow_gpu": (lambda: tensorflow_.TensorflowAdapter("gpu"), "tf.function(jit_compile=True) (XLA) on a GPU",
                       True, ""),
    "torch_eager": (lambda: torch_.TorchAdapter(compiled=False, platform="cpu"),
                    "eager PyTorch on the CPU (torch.compile's baseline)", False, ""),
    "torch_compile": (lambda: torch_.TorchAdapter(compiled=True, platform="cpu"),
                      "torch.compile (dynamo + inductor) on the CPU", True, "torch_eager"),
    "torch_eager_gpu": (lambda: torch_.TorchAdapter(compiled=False, platform="gpu"),
                        "eager PyTorch on a CUDA GPU (torch_compile_gpu's baseline)", False, ""),
    "torch_compile_gpu": (lambda: torch_.TorchAdapter(compiled=True, platform="gpu"),
                          "torch.compile (dynamo + inductor, Triton kernels) on a CUDA GPU", True, "torch_eager_gpu"),
    "triton": (triton_.TritonAdapter, "Triton kernels on a GPU; interpreter only (warn) without one", True,
               "torch_eager_gpu"),
    # Run by the native workers (native/), not by this package.
    "native": (None, "C++ compiled ahead of time (-O3, OpenMP), NumPy's BLAS: the no-JIT floor on the CPU", False,
               ""),
    "native_cuda": (None, "CUDA C++ compiled ahead of time (nvcc), cuBLAS: the no-JIT floor on a CUDA GPU", False,
                    ""),
}
# The worker that runs each backend not run here, what it needs ("" for
# nothing), and whether it wants a GPU.
_OTHER_WORKERS = {"native": ("native", "", False), "native_cuda": ("native_cuda", "cuda toolkit", True)}


def names():
    """The backends this package runs."""
    return [n for n, entry in _REGISTRY.items() if entry[0] is not None]


def create(name: str):
    entry = _REGISTRY.get(name)
    if entry is None or entry[0] is None:
        raise ValueError(f"unknown backend {name!r}; valid: {', '.join(names())}")
    return entry[0]()


def catalog():
    out = []
    for name, (factory, summary, jit, baseline) in _REGISTRY.items():
        if factory is None:
            worker, package, wants_gpu = _OTHER_WORKERS[name]
            writes = False  # compiled ahead of time: no compile cache
        else:
            adapter = factory()
            worker, package, wants_gpu = "python", adapter.package, adapter.wants_gpu
            writes = adapter.writes_cache_by_default
        out.append({"name": name, "package": package, "wants_gpu": wants_gpu, "summary": summary,
                    "worker": worker, "jit": jit, "baseline": baseline,
                    # The ahead-of-time cross-check of the phases (runner.aot_step).
                    "aot_crosscheck": name.startswith("jax_jit_"),
                    # Whether a cold run may write to the case's cache (jitbench checks it may not otherwise).
                    "writes_cache_by_default": writes})
    return out
