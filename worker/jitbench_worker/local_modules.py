"""The user's own code a worker process loaded, pinned by its files' sha256.

After a case has run, every module loaded from a file outside the
interpreter's installation (sys.prefix, sys.base_prefix, their exec
counterparts, site-packages) and outside this package is the user's: a
measured function's helper modules, a workload file's imports. Each is
recorded with its path and sha256 in the run's result (`local_modules`,
docs/protocol.md), so that `jitbench compare --fail-on-regression` can tell
whether measuring the same run again would measure the same code (a file
that changed since would not). The workload file itself and the files a
`jitbench measure` workload pins are left out: the run keeps copies of those,
checked by their sha256 wherever they are loaded again."""

import hashlib
import os
import site
import sys


def _roots():
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             os.path.dirname(os.path.abspath(__file__))}
    try:
        paths.update(site.getsitepackages())
        paths.add(site.getusersitepackages())
    except AttributeError:  # a virtual environment's old site module
        pass
    paths.update(p for p in sys.path if p and ("site-packages" in p or "dist-packages" in p))
    return sorted({os.path.realpath(p) for p in paths if p})


def _under(path, roots):
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def kept_files(workload_path, workload):
    """The files the run keeps copies of: the workload file, and a measured
    function's pinned files (its shim's _SPEC["sha256"], relative to the
    shim) with the originals they were copied from (_SPEC["origins"])."""
    if not workload_path:
        return set()
    here = os.path.dirname(os.path.abspath(workload_path))
    spec = (getattr(workload, "_SPEC", None) or {}) if workload is not None else {}
    files = {os.path.realpath(workload_path)}
    files.update(os.path.realpath(os.path.join(here, p)) for p in spec.get("sha256", {}))
    # A kept copy is loaded under its original's name (tracebacks show the user's file): the copy is measured.
    files.update(os.path.realpath(p) for p in spec.get("origins", {}).values())
    return files


def local_modules(exclude=()):
    """[{"path", "sha256"}] of the loaded modules' files outside the
    installation, sorted by path; `exclude`: realpaths to leave out."""
    roots, skip, out = _roots(), set(exclude), {}
    for module in list(sys.modules.values()):
        f = getattr(module, "__file__", None)
        if not isinstance(f, str) or not f:
            continue
        real = os.path.realpath(f)
        if real in skip or real in out or _under(real, roots) or not os.path.isfile(real):
            continue
        try:
            out[real] = _sha256(real)
        except OSError:
            continue
    return [{"path": p, "sha256": out[p]} for p in sorted(out)]
