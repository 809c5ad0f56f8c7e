"""What the user passes (a function, a jitted function, a string) as the
reference a fresh process imports: `package.module:name` or `file.py:name`.
jitbench measures in fresh processes, so only what such a process can import
by that reference can be measured; anything else is refused with one line."""

import inspect
import os
import pathlib
import re
import site
import sys
import sysconfig
from typing import NamedTuple, Optional

_DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
# Where a JIT wrapper keeps the user's function: numba's Dispatcher.py_func,
# torch.compile's original, tf.function's python_function, and __wrapped__
# (functools.wraps, jax.jit).
_WRAPPED_ATTRS = ("py_func", "_torchdynamo_orig_callable", "python_function", "__wrapped__")


class Reference(NamedTuple):
    text: str  # what the command line gets
    pythonpath: Optional[str]  # the directory the module was imported from (None: none needed)


def resolve(obj, what="target"):
    """The Reference of obj: a string is checked and kept; a callable is
    resolved to its module-level name. ValueError (one line) when a fresh
    process could not import it."""
    if isinstance(obj, (str, os.PathLike)):
        return Reference(check_text(os.fspath(obj), what), None)
    if not callable(obj):
        raise ValueError(f"{what}: a {type(obj).__name__} is neither a callable nor a 'module:name' string")
    inner = unwrap(obj)
    modname = getattr(obj, "__module__", None) or getattr(inner, "__module__", None)
    qualname = getattr(obj, "__qualname__", None) or getattr(inner, "__qualname__", None)
    _refuse_unimportable(obj, inner, modname, qualname, what)
    module = sys.modules.get(modname)
    if module is None:
        raise ValueError(f"{what}: {qualname}'s module {modname} is not imported here, so it cannot be resolved")
    name = _module_level_name(module, obj, inner, qualname, what)
    if modname == "__main__":
        path = getattr(module, "__file__", None)
        if not path:
            raise ValueError(f"{what}: {name} was defined in an interactive session (__main__ has no file), which a "
                             "fresh process cannot import; put it in a .py file and import it from there")
        return Reference(f"{os.path.abspath(path)}:{name}", None)
    return Reference(f"{modname}:{name}", _import_root(module, modname))


def unwrap(obj):
    """The user's own function under JIT wrappers (the object itself if none)."""
    for _ in range(16):  # wrappers of wrappers; a cycle must not hang
        inner = next((getattr(obj, a) for a in _WRAPPED_ATTRS if callable(getattr(obj, a, None))), None)
        if inner is None or inner is obj:
            return obj
        obj = inner
    return obj


def check_text(text, what):
    """A 'module:name' or 'file.py:name' string, checked for its form (and a
    file for its existence) before a process is started for it."""
    left, sep, right = text.rpartition(":")
    if not sep or not left or not _DOTTED.match(right):
        raise ValueError(f"{what}: '{text}' is not 'package.module:name' or 'path/file.py:name'")
    if left.endswith(".py"):
        if not os.path.isfile(left):
            raise ValueError(f"{what}: '{text}' names the file {left}, which does not exist")
    elif not _DOTTED.match(left):
        raise ValueError(f"{what}: '{text}': '{left}' is neither a module name nor a .py file")
    return text


def _refuse_unimportable(obj, inner, modname, qualname, what):
    if getattr(inner, "__name__", None) == "<lambda>":
        raise ValueError(f"{what}: a lambda cannot be imported by a fresh process; define it with def at module level")
    if qualname and "<locals>" in qualname:
        raise ValueError(f"{what}: {qualname} is defined inside a function (a nested function or closure), which a "
                         "fresh process cannot import; define it at module level")
    if not modname or not qualname:
        raise ValueError(f"{what}: {obj!r} has no module and name a fresh process could import it by; pass a "
                         "module-level function or a 'module:name' string")


def _attr_path(module, dotted):
    obj = module
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _same(a, b):
    # Bound methods are made anew on every access: equal, never identical.
    return a is b or (inspect.ismethod(a) and a == b)


def _module_level_name(module, obj, inner, qualname, what):
    """The name under which module holds obj itself (for a jitted function the
    jitted object, never the plain function under it)."""
    if _same(_attr_path(module, qualname), obj):
        return qualname
    aliases = sorted(k for k, v in vars(module).items() if v is obj)  # fast = jax.jit(slow)
    if aliases:
        return aliases[0]
    modname = module.__name__
    if obj is not inner and _attr_path(module, qualname) is inner:
        raise ValueError(f"{what}: this {type(obj).__name__} wraps {modname}.{qualname} but is no module-level object "
                         f"of {modname}; a fresh process importing {modname}:{qualname} would get the function without "
                         f"it: assign it at module level (e.g. {qualname}_jit = jax.jit({qualname})) and pass that")
    raise ValueError(f"{what}: {modname} has no module-level name for {qualname}, so a fresh process cannot import it")


def _import_root(module, modname):
    """The directory a module was imported from, when it is not one every
    process of this interpreter finds anyway (site-packages, the standard
    library): a test module imported from pytest's rootdir, a script's folder."""
    path = getattr(module, "__file__", None)
    if not path:
        return None
    root = pathlib.Path(path).resolve().parents[modname.count(".") + (pathlib.Path(path).name == "__init__.py")]
    known = set(site.getsitepackages() + [site.getusersitepackages()])
    known.update(sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib"))
    return None if str(root) in {str(pathlib.Path(p).resolve()) for p in known if p} else str(root)
