"""Backend registry: one file per adapter, one record per backend here. This
is jitbench's one catalog of backends: `python -m jitbench_worker.catalog`
prints it and the C++ side embeds that output at build time
(src/config/catalog.cc), so adding a backend is a change to Python files only.

A record says everything the core needs to know about a backend: how to make
its adapter (None for a backend another worker runs), what runs it, on which
device, whether it compiles at run time and against which baseline that
compile is weighed, whether it is its device's no-JIT floor, and what a worker
process of it costs to start (the shard planner's model)."""

import importlib
import os
from dataclasses import dataclass, field
from typing import Callable, Optional, Tuple


class _Lazy:
    """An adapter module imported when its adapter is first made: a worker
    process loads its own backend's adapter only, not all seven (the
    harness's import, docs/harness-fidelity.md)."""

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        return getattr(importlib.import_module(f"{__name__}.{self._module}"), name)


jax_, numba_, numpy_, python_, tensorflow_, torch_, triton_ = (
    _Lazy(m) for m in ("jax_", "numba_", "numpy_", "python_", "tensorflow_", "torch_", "triton_"))


@dataclass(frozen=True)
class Backend:
    summary: str
    factory: Optional[Callable] = None  # None: run by a native worker (native/)
    worker: str = "python"              # python | native | native_cuda
    device: str = "cpu"                 # cpu | gpu
    jit: bool = False                   # compiles at run time: gets a break-even against its baseline
    # The same framework without its JIT on the same device (numba's is NumPy);
    # "" for a backend that is not a JIT.
    baseline: str = ""
    # The baseline of a JIT whose own baseline has no ok case in the run (NumPy).
    default_baseline: bool = False
    floor: bool = False                 # the no-JIT floor of its device (throughput fractions)
    startup_s: float = 2.0              # a worker process's start-up: interpreter, imports, device
    cost_factor: float = 1.0            # the calls' work relative to a compiled backend (plain loops: 100)
    aot_crosscheck: bool = False        # its phases are cross-checked by an ahead-of-time compile
    # Distributions whose versions every run records (probe), beyond NumPy.
    packages: Tuple[str, ...] = field(default_factory=tuple)
    needs: str = ""                     # what a native worker needs ("" for nothing)
    # `jitbench measure` runs a user's function wrapped in this JIT on it as is,
    # and the eager function on its baseline (for_target below).
    measure: bool = False
    # Its compiler reads the OpenMP thread count, so what it compiles depends on
    # it: torch.compile's inductor writes the count into its C++ kernels.
    # Counting processes under valgrind then keep its pools as timed rather
    # than give them one thread (jitbench's run/counting.h). (TensorFlow's own
    # pools are TF_NUM_*, which counting never changes.)
    compile_reads_threads: bool = False


_JAX = ("jax", "jaxlib")
_JAX_GPU = ("jax", "jaxlib", "jax-cuda12-plugin", "jax-cuda13-plugin")
_TF = ("tensorflow", "tensorflow-cpu")
_NUMBA = ("numba", "llvmlite", "scipy")

_REGISTRY = {
    "python": Backend("plain Python loops (no JIT, no vectorisation)", lambda: python_.PythonAdapter(),
                      startup_s=0.05, cost_factor=100.0),
    "numpy": Backend("NumPy, eager (the seed's baseline)", lambda: numpy_.NumpyAdapter(), default_baseline=True,
                     startup_s=0.2, packages=("numpy", "scipy")),
    "numba": Backend("numba.njit (cache=True under warm_cache)", lambda: numba_.NumbaAdapter(), jit=True,
                     baseline="numpy", measure=True,
                     startup_s=1.0, packages=_NUMBA),
    "jax_jit_cpu": Backend("jax.jit on the CPU backend", lambda: jax_.JaxAdapter("cpu"), jit=True,
                           baseline="jax_eager_cpu", startup_s=1.5, aot_crosscheck=True, packages=_JAX,
                           measure=True),
    "jax_jit_gpu": Backend("jax.jit on a CUDA GPU", lambda: jax_.JaxAdapter("gpu"), device="gpu", jit=True,
                           baseline="jax_eager_gpu", startup_s=3.0, aot_crosscheck=True, packages=_JAX_GPU,
                           measure=True),
    "jax_eager_cpu": Backend("JAX op by op without jax.jit on the CPU (jax.jit's baseline)",
                             lambda: jax_.JaxAdapter("cpu", jit=False), startup_s=1.2, packages=_JAX),
    "jax_eager_gpu": Backend("JAX op by op without jax.jit on a CUDA GPU (jax_jit_gpu's baseline)",
                             lambda: jax_.JaxAdapter("gpu", jit=False), device="gpu", startup_s=2.5,
                             packages=_JAX_GPU),
    "numba_parallel": Backend("numba.njit(parallel=True): prange loops over threads",
                              lambda: numba_.NumbaParallelAdapter(),
                              jit=True, baseline="numpy", startup_s=1.5, packages=_NUMBA),
    "tensorflow": Backend("tf.function(jit_compile=True) (XLA) on the CPU",
                          lambda: tensorflow_.TensorflowAdapter("cpu"), jit=True, baseline="tensorflow_eager",
                          startup_s=5.0, packages=_TF, measure=True),
    "tensorflow_gpu": Backend("tf.function(jit_compile=True) (XLA) on a GPU",
                              lambda: tensorflow_.TensorflowAdapter("gpu"), device="gpu", jit=True,
                              baseline="tensorflow_eager_gpu", startup_s=7.0, packages=_TF, measure=True),
    "tensorflow_eager": Backend("TensorFlow eager, op by op without tf.function on the CPU (tensorflow's baseline)",
                                lambda: tensorflow_.TensorflowAdapter("cpu", jit=False), startup_s=4.5,
                                packages=_TF),
    "tensorflow_eager_gpu": Backend("TensorFlow eager, op by op without tf.function on a GPU "
                                    "(tensorflow_gpu's baseline)",
                                    lambda: tensorflow_.TensorflowAdapter("gpu", jit=False), device="gpu",
                                    startup_s=6.5, packages=_TF),
    "torch_eager": Backend("eager PyTorch on the CPU (torch.compile's baseline)",
                           lambda: torch_.TorchAdapter(compiled=False, platform="cpu"), startup_s=2.0,
                           packages=("torch",)),
    "torch_compile": Backend("torch.compile (dynamo + inductor) on the CPU",
                             lambda: torch_.TorchAdapter(compiled=True, platform="cpu"), jit=True,
                             baseline="torch_eager", startup_s=10.0, packages=("torch",), measure=True,
                             compile_reads_threads=True),
    "torch_eager_gpu": Backend("eager PyTorch on a CUDA GPU (torch_compile_gpu's baseline)",
                               lambda: torch_.TorchAdapter(compiled=False, platform="gpu"), device="gpu",
                               startup_s=4.0, packages=("torch",)),
    "torch_compile_gpu": Backend("torch.compile (dynamo + inductor, Triton kernels) on a CUDA GPU",
                                 lambda: torch_.TorchAdapter(compiled=True, platform="gpu"), device="gpu", jit=True,
                                 baseline="torch_eager_gpu", startup_s=12.0, packages=("torch",),
                                 measure=True),
    "triton": Backend("Triton kernels on a GPU; interpreter only (warn) without one", lambda: triton_.TritonAdapter(),
                      device="gpu", jit=True, baseline="torch_eager_gpu", startup_s=6.0,
                      packages=("triton", "torch")),
    # Run by the native workers (native/), not by this package.
    "native": Backend("C++ compiled ahead of time (-O3, OpenMP), NumPy's BLAS: the no-JIT floor on the CPU",
                      worker="native", floor=True, startup_s=0.01),
    "native_cuda": Backend("CUDA C++ compiled ahead of time (nvcc), cuBLAS: the no-JIT floor on a CUDA GPU",
                           worker="native_cuda", device="gpu", floor=True, startup_s=0.5, needs="cuda toolkit"),
}


def names():
    """The backends this package runs."""
    return [n for n, b in _REGISTRY.items() if b.factory is not None]


def record(name: str) -> Backend:
    """A backend's record (KeyError for a name that is none)."""
    return _REGISTRY[name]


def for_target(framework: str) -> tuple:
    """The backends `jitbench measure` plans for a user's function of
    `framework` (an adapter's framework: "jax", "numba", ...; "numpy" for a
    plain function), in registry order: each JIT backend marked measure whose
    adapter runs that framework, followed by its baseline; for a framework
    without one, the default baseline that runs it. Makes the candidates'
    adapters, which imports no framework."""
    out = []
    for name, b in _REGISTRY.items():
        if b.measure and b.factory().framework == framework:
            out += [name, b.baseline]
    if not out:
        out = [n for n, b in _REGISTRY.items() if b.default_baseline and b.factory().framework == framework]
    return tuple(out)


# A test-only switch, for testing scripts/gpu-verify.sh where there is no GPU:
# with JITBENCH_TEST_GPU_ON_CPU=1 each GPU backend with a CPU twin runs the
# twin's code on the CPU under its own name, and its device says so; triton
# (no twin) and native_cuda (not this package's) run as they would without a GPU. jitbench records the
# variable in the run's environment.json and refuses to publish such a run.
TEST_GPU_ON_CPU = "JITBENCH_TEST_GPU_ON_CPU"


def gpu_on_cpu() -> bool:
    return os.environ.get(TEST_GPU_ON_CPU) == "1"


def cpu_twin(name: str):
    """The CPU backend running the same code as GPU backend `name`
    (jax_jit_gpu: jax_jit_cpu, torch_compile_gpu: torch_compile), or None."""
    for twin in (name.replace("_gpu", "_cpu"), name.replace("_gpu", "")):
        if twin != name and twin in _REGISTRY and _REGISTRY[twin].factory is not None \
                and _REGISTRY[twin].device == "cpu":
            return twin
    return None


def create(name: str):
    b = _REGISTRY.get(name)
    if b is None or b.factory is None:
        raise ValueError(f"unknown backend {name!r}; valid: {', '.join(names())}")
    twin = cpu_twin(name) if b.device == "gpu" and gpu_on_cpu() else None
    if twin is None:
        return b.factory()
    adapter = _REGISTRY[twin].factory()
    adapter.name = name
    on_cpu = adapter.device
    note = f"{TEST_GPU_ON_CPU}=1: the GPU backend {name} ran {twin}'s code on the CPU (test only)"
    adapter.device = lambda: dict(on_cpu() or {}, test_only=note)
    return adapter


def packages():
    """Every distribution a backend records the version of, in catalog order."""
    out = []
    for b in _REGISTRY.values():
        out += [p for p in b.packages if p not in out]
    return out


def catalog():
    out = []
    for name, b in _REGISTRY.items():
        if b.factory is None:
            package, writes, wants_gpu = b.needs, False, b.device == "gpu"  # compiled ahead of time: no cache
            framework = ""  # runs no workload file's IMPLEMENTATIONS
        else:
            # Triton runs in its interpreter without a GPU: it is a GPU backend that does not insist on one.
            adapter = b.factory()
            package, writes, wants_gpu = adapter.package, adapter.writes_cache_by_default, adapter.wants_gpu
            framework = adapter.framework
        if b.jit and b.baseline and b.baseline not in _REGISTRY:
            raise ValueError(f"backend {name}: baseline {b.baseline!r} is not a backend")
        out.append({"name": name, "package": package, "wants_gpu": wants_gpu, "device": b.device,
                    "summary": b.summary, "worker": b.worker, "jit": b.jit, "baseline": b.baseline,
                    "default_baseline": b.default_baseline, "floor": b.floor, "startup_s": b.startup_s,
                    "cost_factor": b.cost_factor, "aot_crosscheck": b.aot_crosscheck,
                    # Whether a cold run may write to the case's cache (jitbench checks it may not otherwise).
                    "writes_cache_by_default": writes, "packages": list(b.packages),
                    # Counting processes keep its thread pools as timed (what it compiles reads them).
                    "compile_reads_threads": b.compile_reads_threads,
                    # The key of a workload's IMPLEMENTATIONS it runs (`--workload-path` alone plans by it).
                    "framework": framework})
    return out
