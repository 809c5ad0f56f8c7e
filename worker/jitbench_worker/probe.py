"""What this interpreter can run, without importing any framework unless asked."""

import hashlib
import importlib.metadata
import importlib.util
import platform
import sys

from . import backends, workloads

def _version(dist: str):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def distributions() -> tuple:
    """Every distribution this interpreter would import from (the first found
    on sys.path, as import finds it): name -> version, and name -> the sha256
    of its RECORD (the installed files' hashes: a package reinstalled at the
    same version with other code has another). What a measured function may
    use beyond the backends' packages."""
    versions, records = {}, {}
    for d in importlib.metadata.distributions():
        name = (d.metadata["Name"] or "").lower().replace("_", "-")
        if not name or name in versions or d.version is None:
            continue
        versions[name] = d.version
        text = d.read_text("RECORD")
        if text is not None:
            records[name] = hashlib.sha256(text.encode()).hexdigest()
    return dict(sorted(versions.items())), dict(sorted(records.items()))


def probe(check_devices: bool = False) -> dict:
    versions, records = distributions()
    out_backends = {}
    for name in backends.names():
        adapter = backends.create(name)
        needed = [p for p in (adapter.package, *adapter.requires) if p]
        missing = [p for p in needed if importlib.util.find_spec(p) is None]
        if missing:
            out_backends[name] = {"available": False, "reason": f"missing_dependency: {missing[0]}"}
            continue
        entry = {"available": True, "reason": ""}
        if adapter.wants_gpu:
            entry["reason"] = "GPU not checked"
            if check_devices:
                entry.update(_check_device(adapter))
        out_backends[name] = entry
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "executable": sys.executable,
        "platform": platform.platform(),
        "packages": {p: _version(p) for p in backends.packages()},  # what the backends' records name
        "distributions": versions,
        "distribution_records": records,
        "backends": out_backends,
        "workloads": workloads.names(),
    }


def _check_device(adapter) -> dict:
    try:
        adapter.import_framework("f32", None)
        adapter.init_device()
    except Exception as exc:  # any failure to get the device is the answer
        return {"available": False, "reason": f"gpu_unavailable: {exc}".splitlines()[0][:300]}
    return {"available": True, "reason": ""}
