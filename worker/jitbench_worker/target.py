"""`jitbench measure TARGET`, the worker side: the user's own function as a
workload file (docs/user-workloads.md) that jitbench runs like any other.

TARGET is `path/to/file.py:name` (loaded by path as a module of its own, its
directory first on sys.path so that its sibling imports work) or
`package.module:name` (imported). It names a function wrapped by the user's
JIT (jax.jit, numba.njit/jit, torch.compile, tf.function) or a plain
Python/NumPy function. detect() tells which from the object alone, importing
no framework, and derives the eager callable from the same object: the JIT
backend measures the user's object as is, its baseline backend the eager one.

This module runs inside the measured process: the generated workload file
(the shim) imports Measured from it. The shim itself is written by the
harness side, jitbench_worker.harness.target.

--inputs SPEC: `module:factory`, `file.py:factory` or a bare name in TARGET's
module; the factory takes no argument and returns the argument tuple (its
arrays become NumPy on the host; the backend's adapter moves them to the
device). Default: TARGET's module-level `make_inputs`. The case's size is 1
and its dtype f64 when any floating input is float64, else f32.

--check SPEC: check(out, inputs) -> a bool, or a verify dict with at least
"ok" (docs/user-workloads.md); out and inputs are NumPy, out keeping the
result's structure. Without it the output is compared with the eager callable's
run in float64 (on float64 copies of the inputs when it accepts them, else on
the inputs as given), under the precision model's tolerance (verify.py; the
constants of the built-in JAX transform workloads): largest relative error
over the result's leaves. This holds for the eager baseline's own case too: it
is then its own precision compared with float64.

Importing this module imports no framework."""

import contextlib
import copy
import hashlib
import importlib
import importlib.machinery
import importlib.util
import os
import sys
from dataclasses import dataclass
from typing import Callable, Optional

from . import verify
from .backends import for_target, record

# Each framework's JIT backends and their eager baselines come from the backend
# records (backends.for_target): a plain function has no JIT and is measured on
# NumPy alone. The GPU backends are planned only where jitbench's device check
# sees a GPU (a workload file's CATALOG backends are narrowed so:
# docs/user-workloads.md).
# What each backend of a measured function runs, as tables name it ({fn}: the
# user's function as they named it): the JIT as the user wrapped it, the eager
# baseline as what it is -- numba's is the function without @njit, run on NumPy
# arrays, neither the `numpy` backend's library code nor the `python` floor.
JIT_WORDS = {"jax": "jax.jit", "numba": "@njit", "tensorflow": "tf.function", "torch": "torch.compile"}


def backend_labels(framework, fn):
    """{backend: what it runs} for TARGET's backends (the GPU pairs name their device)."""
    out = {}
    for backend in for_target(framework):
        gpu = " on the GPU" if record(backend).device == "gpu" else ""
        if framework == "numpy":
            out[backend] = f"{fn} (no JIT)"
        elif record(backend).jit:
            out[backend] = f"{fn} with {JIT_WORDS[framework]}{gpu}"
        elif framework == "numba":
            out[backend] = f"{fn} without @njit (Python on NumPy arrays)"
        else:
            out[backend] = f"{fn} without {JIT_WORDS[framework]}{gpu}"
    return out


# The precision model's IEEE tolerances for a computation of unknown shape: those
# of the built-in JAX transform workloads (workloads/_nets.py), relative error.
F32_REL_TOL = 2e-3
F64_REL_TOL = 1e-9


# -- finding the user's objects ---------------------------------------------------
def split(spec: str, what: str = "TARGET"):
    """'where:name' -> (where, name)."""
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name:
        raise ValueError(f"{what} {spec!r} must be path/to/file.py:name or package.module:name (a ':' before the "
                         "function's name)")
    return where, name


def is_file(where: str) -> bool:
    return where.endswith(".py") or os.sep in where or "/" in where


_FILE_MODULES = {}  # realpath -> module: a file is loaded once per process


def load_file(path: str, search_path=(), origin=None):
    """The file as a module of its own, named after its stem (a stem already
    taken gets a prefix); its directory and search_path go first on sys.path.
    origin: the user's own file that `path` is a kept copy of -- the copy's
    directory then stays off sys.path (search_path holds the originals'
    directories), and __file__ is the original's, so that the module finds
    what lies beside it where the user keeps it."""
    real = os.path.realpath(path)
    if real in _FILE_MODULES:
        return _FILE_MODULES[real]
    if not os.path.isfile(real):
        raise ValueError(f"file not found: {path} (give the path to a .py file, relative to where you run jitbench)")
    for d in reversed([os.path.dirname(origin or real), *search_path]):
        if d and os.path.isdir(d) and d not in sys.path:
            sys.path.insert(0, d)
    stem = os.path.splitext(os.path.basename(origin or real))[0]
    # The same name in every process (numba's cache files are named after it).
    name = stem if stem.isidentifier() and stem not in sys.modules else \
        f"jitbench_target_{hashlib.sha1(real.encode()).hexdigest()[:12]}"
    spec = importlib.util.spec_from_file_location(name, real, loader=importlib.machinery.SourceFileLoader(name, real))
    if spec is None:
        raise ValueError(f"cannot load {path} as a Python module: give a .py file")
    module = importlib.util.module_from_spec(spec)
    if origin:
        module.__file__ = origin
    sys.modules[name] = module  # dataclasses, pickling and numba's cache look modules up by name
    try:
        with _importing():
            spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise ValueError(f"cannot load {path}: {_one_line(exc)}") from exc
    _FILE_MODULES[real] = module
    return module


def load_module(where: str, search_path=()):
    if is_file(where):
        return load_file(where, search_path)
    for d in search_path:
        if os.path.isdir(d) and d not in sys.path:
            sys.path.append(d)  # after what is installed: an installed package wins
    try:
        with _importing():
            return importlib.import_module(where)
    except ModuleNotFoundError as exc:
        if exc.name and where.startswith(exc.name):
            raise ValueError(f"cannot import module {where!r} ({exc}): install it, run from the directory that "
                             "holds it, or name its file (path/to/file.py:name)") from exc
        raise ValueError(f"cannot import module {where!r}: {_one_line(exc)}") from exc
    except Exception as exc:
        raise ValueError(f"cannot import module {where!r}: {_one_line(exc)}") from exc


def attribute(module, name: str, spec: str, what: str = "TARGET"):
    obj = module
    for part in name.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"{what} {spec!r}: {module.__name__} has no attribute {name!r} (is it defined at "
                             "module level under that name?)")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValueError(f"{what} {spec!r} is a {type(obj).__name__}, not callable: name a function")
    return obj


def resolve(target, search_path=()):
    """The callable TARGET names ('file.py:name', 'package.module:name'), or
    TARGET itself given by reference, checked to be importable by name."""
    if not isinstance(target, str):
        target = target_of(target)
    where, name = split(target)
    return attribute(load_module(where, search_path), name, target)


def target_of(obj) -> str:
    """'module:name' (or 'file.py:name' for a script's __main__) under which a
    fresh process finds obj; ValueError saying why there is none."""
    if not callable(obj):
        raise ValueError(f"a {type(obj).__name__} is not callable: give a function")
    inner = detect(obj).eager
    qualname = getattr(inner, "__qualname__", "") or ""
    if getattr(inner, "__name__", "") == "<lambda>":
        raise ValueError("a lambda cannot be measured: a fresh process cannot import it (it has no name in its "
                         "module); define it with def at module level")
    if "<locals>" in qualname:
        raise ValueError(f"{qualname} is a closure (defined inside a function): a fresh process cannot import it; "
                         "define it at module level")
    module = sys.modules.get(getattr(inner, "__module__", None) or "")
    if module is None:
        raise ValueError(f"{qualname or obj!r}: its module is not imported, so a fresh process cannot find it")
    name = next((k for k, v in vars(module).items() if v is obj), None)
    if name is None:
        raise ValueError(f"{qualname}: no module-level name in {module.__name__} holds this object (a fresh process "
                         "could not find it); assign it to one, or give 'module:name'")
    loaded = next((path for path, m in _FILE_MODULES.items() if m is module), None)
    if loaded:  # loaded by path: found by path
        return f"{loaded}:{name}"
    if module.__name__ == "__main__":
        path = getattr(module, "__file__", None)
        if not path:
            raise ValueError(f"{name} is defined in a notebook or interactive session: a fresh process cannot "
                             "import it; move it to a .py file and import it from there")
        return f"{os.path.abspath(path)}:{name}"
    return f"{module.__name__}:{name}"


def _one_line(exc) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


# -- which framework ----------------------------------------------------------------
@dataclass(frozen=True)
class Detected:
    framework: str               # an adapter's framework (backends.for_target), a key of IMPLEMENTATIONS
    jitted: Optional[Callable]   # the user's JIT-wrapped object; None for a plain function
    eager: Callable              # the same computation without the JIT
    eager_is: str                # what `eager` is, as the verification's reference names it


def detect(obj) -> Detected:
    """From the object's type and attributes alone: no framework is imported."""
    module = type(obj).__module__ or ""

    def from_(*prefixes):
        return any(module == p or module.startswith(p + ".") for p in prefixes)

    if from_("numba") and callable(getattr(obj, "py_func", None)):
        return Detected("numba", obj, obj.py_func, "the numba function's py_func (plain Python)")
    # jax.jit's object has .lower (the ahead-of-time path); other JAX wrappers
    # with a __wrapped__ (custom_jvp) are no JIT.
    if from_("jax", "jaxlib") and callable(getattr(obj, "__wrapped__", None)) and hasattr(obj, "lower"):
        return Detected("jax", obj, obj.__wrapped__, "the un-jitted JAX function (jax.jit's __wrapped__)")
    if from_("tensorflow") and callable(getattr(obj, "python_function", None)):
        return Detected("tensorflow", obj, obj.python_function, "the tf.function's python_function, run eagerly")
    orig = getattr(obj, "__dict__", {}).get("_torchdynamo_orig_callable")  # torch.compile(function)
    if not callable(orig) and from_("torch"):
        orig = getattr(obj, "_orig_mod", None)  # torch.compile(nn.Module)
    if callable(orig):
        return Detected("torch", obj, orig, "the callable torch.compile wrapped, eager")
    return Detected("numpy", None, obj, "the function itself")


# -- values ---------------------------------------------------------------------------
def to_host(tree):
    """Arrays of any framework as NumPy, in the same structure (lists become tuples)."""
    import numpy as np

    if isinstance(tree, dict):
        return {k: to_host(v) for k, v in tree.items()}
    if isinstance(tree, (tuple, list)):
        return tuple(to_host(v) for v in tree)
    if hasattr(tree, "detach"):  # torch
        return tree.detach().cpu().numpy()
    if hasattr(tree, "numpy") and not isinstance(tree, np.ndarray):  # TensorFlow
        return np.asarray(tree.numpy())
    if hasattr(tree, "__array__") and not isinstance(tree, np.ndarray):  # JAX and the like
        return np.asarray(tree)
    return tree


def to_f64(tree):
    """Floating arrays (and complex ones) widened to 64 bits; anything else as is."""
    import numpy as np

    if isinstance(tree, dict):
        return {k: to_f64(v) for k, v in tree.items()}
    if isinstance(tree, (tuple, list)):
        return type(tree)(to_f64(v) for v in tree)
    if isinstance(tree, np.ndarray) and tree.dtype.kind == "f":
        return tree.astype(np.float64)
    if isinstance(tree, np.ndarray) and tree.dtype.kind == "c":
        return tree.astype(np.complex128)
    return tree


def leaves(tree, path=""):
    """[(path, leaf)] in a fixed order."""
    if isinstance(tree, dict):
        return [x for k in sorted(tree, key=str) for x in leaves(tree[k], f"{path}[{k!r}]")]
    if isinstance(tree, (tuple, list)):
        return [x for i, v in enumerate(tree) for x in leaves(v, f"{path}[{i}]")]
    return [(path or "out", tree)]


def dtype_of(args) -> str:
    """f64 when any floating input is float64, else f32."""
    import numpy as np

    kinds = [np.asarray(x).dtype for _, x in leaves(args) if hasattr(x, "dtype")]
    return "f64" if any(d == np.float64 or d == np.complex128 for d in kinds) else "f32"


def describe(args):
    """Each argument's type and shape: 'float32[6,5]', 'float', 'dict'."""
    return [f"{a.dtype}[{','.join(map(str, a.shape))}]" if hasattr(a, "dtype") and hasattr(a, "shape")
            else type(a).__name__ for a in args]


class Mismatch(Exception):
    """The output's structure is not the reference's."""


def leaf_error(got, want):
    """The larger of the relative 2-norm error of one leaf and its largest
    element error relative to the reference's largest magnitude (absolute
    where the reference is 0), so that one wrong element among many is not
    averaged away; equal non-finite values count as equal. Integer and
    boolean leaves must be equal; a reference with no finite value verifies
    nothing and is a Mismatch."""
    import numpy as np

    g, w = np.asarray(got), np.asarray(want)
    if g.shape != w.shape:
        raise Mismatch(f"shape {g.shape}, expected {w.shape}")
    if w.dtype.kind not in "biufc" or g.dtype.kind not in "biufc" or (w.dtype.kind in "biu" and g.dtype.kind in "biu"):
        if np.array_equal(g, w):
            return 0.0
        raise Mismatch(f"{g!r} differs from the reference's {w!r}"[:300])
    g, w = g.astype(np.result_type(g, np.float64)), w.astype(np.result_type(w, np.float64))
    if w.size and not np.isfinite(w).any():
        raise Mismatch("the reference holds no finite value: there is nothing to verify the result against")
    same = (g == w) | (np.isnan(g) & np.isnan(w))
    diff = np.abs(np.where(same, 0.0, g - w))
    finite_w = np.abs(np.where(np.isfinite(w), w, 0.0))
    num = float(np.sqrt(np.sum(diff ** 2)))
    den = float(np.sqrt(np.sum(finite_w ** 2)))
    largest = float(np.max(finite_w)) if w.size else 0.0
    worst = float(np.max(diff)) if w.size else 0.0
    return max(num / den if den > 0 else num, worst / largest if largest > 0 else worst)


def error(got, want):
    """(largest leaf error, its path) of out against the reference."""
    g, w = leaves(got), leaves(want)
    if [p for p, _ in g] != [p for p, _ in w]:
        raise Mismatch(f"the result's structure {[p for p, _ in g]} is not the reference's {[p for p, _ in w]}")
    worst = None
    for (path, a), (_, b) in zip(g, w):
        try:
            e = leaf_error(a, b)
        except Mismatch as exc:
            raise Mismatch(f"{path}: {exc}") from None
        if worst is None or not e <= worst[0]:  # NaN is the worst
            worst = (e, path)
    return worst or (0.0, "")


# -- the generated workload's behaviour ----------------------------------------------
# Set while jitbench imports a user's code (here and in every worker of a
# measure run): jitbench.measure refuses to start a measurement from inside
# one, so that a script calling it at its top level, without an
# `if __name__ == "__main__":` guard, cannot start itself again and again.
IMPORTING = "JITBENCH_IMPORTING_TARGET"


@contextlib.contextmanager
def _importing():
    before = os.environ.get(IMPORTING)
    os.environ[IMPORTING] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(IMPORTING, None)
        else:
            os.environ[IMPORTING] = before


def implemented(framework) -> dict:
    """The shim's IMPLEMENTATIONS for a framework: each implementation's name and
    whether it runs the JIT (None: as its adapter says)."""
    if framework == "numba":
        return {"numba": True, "numpy": False}
    if framework == "numpy":
        return {"numpy": False}
    return {framework: None}


class Measured:
    """What a shim delegates to: TARGET, its inputs and its check, loaded in
    the worker at setup (after the backend imported its framework)."""

    def __init__(self, spec: dict, here: str = ""):
        self.spec = spec
        self.base = os.path.dirname(os.path.abspath(here)) if here else os.getcwd()
        self.adapter = None  # the backend's adapter, kept by build() for the reference run
        self._cache = {}

    def _path(self, where):
        return where if not is_file(where) else os.path.join(self.base, where)

    def _module(self, where):
        where = where or self.spec["where"]
        path = self._path(where)
        pins = self.spec.get("sha256", {})  # by the path as the spec names it (before kept copies: its realpath)
        pinned = pins.get(where, pins.get(os.path.realpath(path))) if is_file(path) else None
        if pinned and _sha256(path) != pinned:
            raise RuntimeError(f"{path} is not the file this workload was generated from (its sha256 differs): "
                               "a resumed or replicated run measures the code it started with; run jitbench "
                               "measure again to measure the new one")
        search = self.spec.get("search_path", ())
        if is_file(path):
            return load_file(path, search, origin=self.spec.get("origins", {}).get(where))
        module = load_module(path, search)
        self._check_module_pin(where, module)
        return module

    def _check_module_pin(self, where, module):
        """A package module no distribution version or commit pins is pinned by its file's sha256."""
        pin = self.spec.get("module_sha256", {}).get(where)
        got = getattr(module, "__file__", None)
        if pin and (not got or _sha256(got) != pin):
            raise RuntimeError(f"module {where} ({got}) is not the code this workload was generated from (its "
                               "sha256 differs): run jitbench measure again to measure the new one")

    def _callable(self, key, what):
        if key not in self._cache:
            spec = self.spec[key]
            # "" for the target's own module; the target's spec is only its display name.
            where, name = spec.rpartition(":")[::2] if ":" in spec and key != "target" else ("", spec)
            name = name.rpartition(":")[2]
            self._cache[key] = attribute(self._module(where), name, spec, what)
        return self._cache[key]

    def _check_installed(self):
        """A package TARGET is measured at the version the run recorded, or not at all."""
        got = self.spec.get("provenance") or {}
        dist, version = got.get("distribution"), got.get("version")
        if not dist or not version:
            return
        import importlib.metadata as md

        try:
            here = md.version(dist)
        except md.PackageNotFoundError:
            here = None
        if here != version:
            raise RuntimeError(f"{self.spec['target']} was measured with {dist} {version}; this interpreter has "
                               f"{dist} {here or 'not installed'}: install {dist}=={version} to measure it again")

    def detected(self) -> Detected:
        if "detected" not in self._cache:
            self._check_installed()
            self._cache["detected"] = detect(self._callable("target", "TARGET"))
            found = self._cache["detected"].framework
            if found != self.spec["framework"]:
                raise RuntimeError(f"{self.spec['target']} is now {found}, not {self.spec['framework']} as when "
                                   "this workload was generated: run jitbench measure again")
        return self._cache["detected"]

    # The contract: make_inputs, IMPLEMENTATIONS, check.
    def make_inputs(self, n, dtype, seed):
        """The factory's argument tuple as host (NumPy) values; n, dtype and seed are not used."""
        if "host_inputs" not in self._cache:
            self._cache["host_inputs"] = inputs_from(self._callable("inputs", "--inputs"), self.spec["inputs"])
            self._cache["pristine"] = copy.deepcopy(self._cache["host_inputs"])  # to see a function change them
        return self._cache["host_inputs"]

    def implementations(self) -> dict:
        return {name: self._build(jit) for name, jit in implemented(self.spec["framework"]).items()}

    def _build(self, jit):
        def build(adapter, n, dtype):
            self.adapter = adapter
            d = self.detected()
            use_jit = jit if jit is not None else getattr(adapter, "use_jit", getattr(adapter, "compiled", True))
            fn = adapter.adopt(d.jitted) if use_jit else d.eager
            # The adapter moves every input to the device, a dict or tuple of arrays (a pytree of parameters)
            # included; an argument that holds no array at all (a Python scalar, a string, a flag: a
            # static_argnums size) is passed to the function as the factory gave it.
            kept = {i: x for i, x in enumerate(self.make_inputs(n, dtype, 0)) if not _holds_arrays(x)}
            if not kept:
                return fn
            wrapper = lambda *args: fn(*(kept.get(i, a) for i, a in enumerate(args)))  # noqa: E731
            # What the cross-check says it could not take apart (backends/jax_.py: aot_compile).
            wrapper.jitbench_kept = {"wraps": getattr(fn, "__name__", type(fn).__name__),
                                     "kept": {i: type(x).__name__ for i, x in kept.items()}}
            return wrapper

        return build

    def check(self, out, inputs, n, dtype, seed, ctx=None):
        info = {"target": self.spec["target"], "framework": self.spec["framework"], "inputs": describe(inputs)}
        if self.spec.get("check"):
            return self._user_check(out, inputs), info
        ctx = ctx or verify.Context(dtype)
        want, what = ctx.memo("reference", lambda: self.reference(inputs))
        info["verified_against"] = what
        try:
            err, where = error(out, want)
        except Mismatch as exc:
            return {"ok": False, "metric": "relative_error", "reference": what, "message": str(exc)}, info
        ieee = F32_REL_TOL if dtype == "f32" else F64_REL_TOL
        tol, basis = ctx.tolerance(ieee, lambda: error(self.reference(verify.round_tree(ctx.matmul, inputs))[0],
                                                       want)[0])
        v = {"ok": bool(err <= tol), "metric": "relative_error", "error": err, "tolerance": tol,
             "tolerance_basis": basis, "reference": what}
        if where:
            info["worst_leaf"] = where
        if "unverifiable" in basis:
            v["message"] = basis["unverifiable"]
        elif not v["ok"]:
            v["message"] = (f"relative error {err:.3g} of {where} against {what} exceeds {tol:.3g} "
                            f"({basis['precision']} products)")
            if _changed(to_host(inputs), self._cache.get("pristine")):
                v["message"] += ("; the function changed its inputs in place, and jitbench calls it again and again "
                                 "on the same inputs, so its result and the eager function's are of other inputs: "
                                 "give --check, or measure a function that leaves its inputs as they are")
        return v, info

    def reference(self, inputs):
        """(the eager callable's output in float64 as NumPy, what it was)."""
        detected = self.detected()
        eager, what = detected.eager, detected.eager_is
        try:
            return to_f64(to_host(self._run(eager, to_f64(inputs)))), f"{what}, float64"
        except Exception as exc:
            why = _one_line(exc)
        out = to_f64(to_host(self._run(eager, inputs)))
        return out, f"{what}, on the inputs as given (with float64 copies it raised {why})"

    def _run(self, fn, args):
        adapter = self.adapter
        with _x64(self.spec["framework"]):
            dev = tuple(adapter.to_device(x) for x in args) if adapter else tuple(args)
            out = fn(*dev)
            return adapter.sync(out) if adapter else out

    def _user_check(self, out, inputs):
        spec = self.spec["check"]
        got = self._callable("check", "--check")(out, inputs)
        where, _, name = spec.rpartition(":")
        where = os.path.basename(self.spec.get("origins", {}).get(where, where))  # the user's file, not its copy
        what = f"the user's check {where + ':' + name if where else self.spec['target'].rpartition(':')[0] + ':' + spec}"
        if isinstance(got, dict) and "ok" in got:  # what was verified is jitbench's to say, not the check's
            if not _is_bool(got["ok"]):
                return {"ok": False, "metric": "user_check", "reference": what,
                        "message": f"{what} returned ok={got['ok']!r}: it must be True or False"}
            return {"metric": "user_check", **got, "reference": what, "ok": bool(got["ok"])}
        if _is_bool(got):
            v = {"ok": bool(got), "metric": "user_check", "reference": what}
            if not got:
                v["message"] = f"{what} returned False"
            return v
        return {"ok": False, "metric": "user_check", "reference": what,
                "message": f"{what} returned a {type(got).__name__}: it must return a bool or a dict with 'ok'"}


def _holds_arrays(x) -> bool:
    """Whether an argument is an array, or a dict/list/tuple with one somewhere inside."""
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return True
    if isinstance(x, dict):
        return any(_holds_arrays(v) for v in x.values())
    if isinstance(x, (list, tuple)):
        return any(_holds_arrays(v) for v in x)
    return False


def _changed(inputs, pristine) -> bool:
    """Whether a leaf of inputs differs from the copy taken before the first call."""
    if pristine is None:
        return False
    import numpy as np

    def same(a, b):
        try:
            return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)
        except TypeError:  # not numbers: nan is no question
            return np.array_equal(np.asarray(a), np.asarray(b))

    now, then = dict(leaves(inputs)), dict(leaves(pristine))
    return now.keys() != then.keys() or any(not same(now[k], then[k]) for k in now)


def _is_bool(x):
    """True/False, or numpy's bool (np.True_, a 0-d bool array)."""
    return isinstance(x, bool) or (getattr(x, "shape", None) == () and getattr(x, "dtype", None) is not None
                                   and x.dtype.kind == "b")


def _x64(framework):
    """JAX computes float64 only with x64 on: on for the reference run."""
    if framework != "jax":
        return contextlib.nullcontext()
    import jax

    enable = getattr(jax, "enable_x64", None)
    if enable is None:  # older releases
        from jax.experimental import enable_x64 as enable
    return enable(True)


def inputs_from(factory, spec):
    try:
        args = factory()
    except Exception as exc:
        raise ValueError(f"--inputs {spec} raised {_one_line(exc)} (it is called with no arguments and returns "
                         "the argument tuple)") from exc
    if not isinstance(args, (tuple, list)):
        raise ValueError(f"--inputs {spec} returned a {type(args).__name__}: it must return the argument tuple "
                         "(return (x,) for one argument)")
    return tuple(to_host(a) for a in args)


def _sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()
