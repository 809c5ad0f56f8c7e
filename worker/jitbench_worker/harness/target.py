"""`jitbench measure TARGET`, the harness side: the generated workload file
(the shim) that measures TARGET, written in a process of jitbench's own; the
shim imports jitbench_worker.target, which runs inside the measured process.

    python -m jitbench_worker.harness.target shim TARGET [--inputs SPEC] [--check SPEC]
        [--name NAME] [--keep DIR] --out FILE_OR_DIR

writes the generated workload file (the "shim", NAME.py: a workload's name is
its file's stem) and prints one JSON line: name, framework, backends, dtypes,
target, target_file (the user's file, absolute, for a file TARGET), files
(every user file the shim loads by path), distribution/version (a package
TARGET's top-level distribution) and commit (the git commit of the checkout
holding the target's source, when it is in one); exit 2 with one line on
stderr for a bad target. --keep DIR: the user's files (the target's, and those
of --inputs and --check) are copied into DIR (relative to the shim's own
directory; `jitbench measure` passes ../targets, so that a run keeps them as
inputs/targets/ beside inputs/workloads/NAME.py) and the shim loads those
copies, each pinned by its sha256; the JSON line's "kept" lists each copy
(file, under DIR) with its source. The original files' directories stay on
sys.path, for sibling imports: modules they import are not kept."""

import argparse
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import types

from ..backends import for_target
from ..target import (_importing, _sha256, attribute, backend_labels, detect, dtype_of, implemented, inputs_from,
                      is_file, load_file, load_module, resolve, split)


# -- generating the shim ------------------------------------------------------------
def default_name(target: str) -> str:
    from .. import workloads

    name = re.sub(r"[^a-z0-9_]", "_", split(target)[1].rpartition(".")[2].lower()).strip("_") or "target"
    if not name[0].isalpha():
        name = f"fn_{name}"
    return f"{name}_fn" if name in workloads.names() else name


def plan(target, inputs=None, check=None, name=None, keep=None):
    """(the shim's text, what the CLI prints about it). Loads TARGET, calls the
    inputs factory once (for the dtype) and resolves the check."""
    where, attr = split(target)
    spec = {"target": target, "where": where, "inputs": inputs or "make_inputs", "check": check,
            "search_path": []}
    files = []
    if is_file(where):
        real = os.path.realpath(where)
        spec["where"] = real
        spec["search_path"] = [os.path.dirname(real)]
        spec["target"] = f"{os.path.basename(real)}:{attr}"
        files.append(real)
    obj = resolve(target)
    module = _module_of_target(where)
    if not is_file(where):
        spec["search_path"] = [d for d in [_import_root(module, where)] if d]
    detected = detect(obj)
    spec["framework"] = detected.framework
    target_file = files[0] if files else None
    factory = _side(spec, "inputs", module, files, target_file)
    dtype = dtype_of(inputs_from(factory, spec["inputs"]))
    if check:
        _side(spec, "check", module, files, target_file)
    spec["sha256"] = {f: _sha256(f) for f in files}  # the code measured: a later change is refused, not measured
    kept = _keep(spec, files, keep) if keep else []
    name = name or default_name(target)
    _check_name(name)
    backends = list(for_target(detected.framework))
    function = attr.rpartition(".")[2]
    source = os.path.basename(where) if is_file(where) else where
    catalog = {"summary": f"jitbench measure {spec['target']} ({detected.framework}"
                          f"{'' if detected.jitted is not None else ', no JIT'})",
               "backends": backends, "sizes": [1], "dtypes": [dtype],
               # What the user reads: their function's own name, wherever the workload's id had to differ.
               "measured": {"function": function, "source": source,
                            "labels": backend_labels(detected.framework, function)}}
    found = provenance(module, where)
    spec["provenance"] = found  # kept in the workload file (under the run's inputs/): checked where it runs again
    if not is_file(where) and not found["version"] and not found["commit"] and getattr(module, "__file__", None):
        # Nothing else pins a package module's code: its file does (a change is refused, not measured).
        spec["module_sha256"] = {where: _sha256(module.__file__)}
    meta = {"name": name, "framework": detected.framework, "backends": backends, "dtypes": [dtype],
            "target": target, "target_file": target_file, "files": files, "kept": kept, **found}
    meta["catalog"] = catalog  # the shim's CATALOG: its workload record is made from it (workload_record)
    return shim_text(spec, catalog), meta


def _keep(spec, files, keep):
    """Points the spec at copies of the user's files under keep/ (one name
    each, in files' order) and pins the copies' paths; [{"source", "file"}]."""
    kept, taken = [], set()
    spec.setdefault("origins", {})
    for real in files:
        stem, ext = os.path.splitext(os.path.basename(real))
        stem = stem.lstrip(".") or "file"  # a copy's name is plain: no hidden file
        name, i = stem + ext, 1
        while name in taken:
            i += 1
            name = f"{stem}_{i}{ext}"
        taken.add(name)
        as_kept = f"{keep}/{name}"
        kept.append({"source": real, "file": name, "sha256": spec["sha256"][real]})
        spec["origins"][as_kept] = real
        if os.path.dirname(real) not in spec["search_path"]:  # each original's directory, for its own imports
            spec["search_path"].append(os.path.dirname(real))
        spec["sha256"][as_kept] = spec["sha256"].pop(real)
        if spec["where"] == real:
            spec["where"] = as_kept
        for key in ("inputs", "check"):
            if spec.get(key) and spec[key].startswith(real + ":"):
                spec[key] = as_kept + spec[key][len(real):]
    return kept


def _check_name(name):
    from .. import workloads

    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise ValueError(f"--name {name!r}: a workload's name is lower-case letters, digits and '_', starting "
                         "with a letter")
    if name in workloads.names():
        raise ValueError(f"--name {name!r} is a built-in workload's: give another --name")


def _module_of_target(where):
    if is_file(where):
        return load_file(where)
    with _importing():
        return importlib.import_module(where)


def _import_root(module, where):
    """The sys.path entry a package module was imported from."""
    if not getattr(module, "__file__", None):
        return ""
    path = os.path.realpath(module.__file__)
    for _ in range(where.count(".") + (2 if path.endswith("__init__.py") else 1)):
        path = os.path.dirname(path)
    return path


def _side(spec, key, module, files, target_file=None):
    """Resolves --inputs / --check. A file other than the target's is listed in
    files; an importable module's root joins the search path."""
    value = spec[key]
    where, name = value.rpartition(":")[::2] if ":" in value else ("", value)
    what = "--inputs" if key == "inputs" else "--check"
    if not where:
        if not hasattr(module, name) and value == "make_inputs":
            raise ValueError(f"{spec['target']} has no module-level make_inputs: give --inputs module:factory "
                             "(a callable returning the argument tuple)")
        return attribute(module, name, value, what)
    if not is_file(where):
        found = load_module(where)
        spec["search_path"] += [d for d in [_import_root(found, where)] if d and d not in spec["search_path"]]
        return attribute(found, name, value, what)
    real = os.path.realpath(where)
    if real == target_file:
        spec[key] = name  # the target's own module
    else:
        spec[key] = f"{real}:{name}"
        if real not in files:
            files.append(real)
    return attribute(load_file(where), name, value, what)


def shim_text(spec, catalog) -> str:
    return (f'"""Generated by `python -m jitbench_worker.harness.target shim` for `jitbench measure {spec["target"]}`\n'
            f'({spec["framework"]}): the workload that measures it. Regenerate it rather than edit it."""\n\n'
            "from jitbench_worker.target import Measured\n\n"
            "_SPEC = {\n" + "".join(f"    {k!r}: {v!r},\n" for k, v in spec.items()) + "}\n"
            "_MEASURED = Measured(_SPEC, __file__)\n\n"
            "make_inputs = _MEASURED.make_inputs\n"
            "check = _MEASURED.check\n"
            "IMPLEMENTATIONS = _MEASURED.implementations()\n"
            f"CATALOG = {catalog!r}\n")


def make_shim(target, inputs=None, check=None, name=None) -> str:
    """The text of the workload file that measures TARGET (see the module's doc)."""
    return plan(target, inputs, check, name)[0]


def provenance(module, where) -> dict:
    """The distribution and version of a package TARGET; the git commit of the checkout its source is in."""
    out = {"distribution": None, "version": None, "commit": _commit(getattr(module, "__file__", None))}
    if is_file(where):
        return out
    import importlib.metadata as md

    top = where.split(".")[0]
    dists = md.packages_distributions().get(top) or []
    if dists:
        out["distribution"] = dists[0]
        try:
            out["version"] = md.version(dists[0])
        except md.PackageNotFoundError:
            pass
    return out


def _commit(path):
    """HEAD of the git checkout holding path, when there is one (else None)."""
    d = os.path.dirname(os.path.realpath(path)) if path else None
    if d and any(part in ("site-packages", "dist-packages") for part in d.split(os.sep)):
        return None  # installed: the checkout a virtual environment happens to lie in is not its source
    while d and not os.path.exists(os.path.join(d, ".git")):
        parent = os.path.dirname(d)
        d = None if parent == d else parent
    if not d:
        return None
    try:
        got = subprocess.run(["git", "-C", d, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return got.stdout.strip() or None if got.returncode == 0 else None


# -- command line ---------------------------------------------------------------------
def main(argv) -> int:
    p = argparse.ArgumentParser(prog="python -m jitbench_worker.harness.target")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("shim", help="write the workload file that measures TARGET")
    s.add_argument("target")
    s.add_argument("--inputs", default=None)
    s.add_argument("--check", default=None)
    s.add_argument("--name", default=None)
    s.add_argument("--keep", default=None, help="copy the user's files into DIR (relative to the shim) and load those")
    s.add_argument("--out", required=True, help="the shim file (NAME.py), or a directory to write NAME.py in")
    s.add_argument("--record-fd", type=int, default=None,
                   help="write the shim's record to this descriptor (jitbench's channel), not to stdout, where the "
                        "user's module may print anything")
    args = p.parse_args(argv)
    if not args.name and not os.path.isdir(args.out):
        args.name = os.path.splitext(os.path.basename(args.out))[0]  # a workload's name is its file's stem
    try:
        if args.keep and (os.path.isabs(args.keep) or os.path.normpath(args.keep) in (".", "")):
            raise ValueError(f"--keep {args.keep}: give a directory relative to the shim's, such as ../targets")
        text, meta = plan(args.target, args.inputs, args.check, args.name, args.keep)
        path = _out_path(args.out, meta["name"])
    except ValueError as exc:
        sys.stderr.write(f"{str(exc).splitlines()[0]}\n")
        return 2
    keep_dir = os.path.join(os.path.dirname(os.path.abspath(path)), args.keep or "")
    for k in meta["kept"]:
        os.makedirs(keep_dir, exist_ok=True)
        k["copy"] = os.path.join(keep_dir, k["file"])
        shutil.copyfile(k["source"], k["copy"])
        if _sha256(k["copy"]) != k["sha256"]:
            sys.stderr.write(f"{k['source']} changed while jitbench read it: run jitbench measure again\n")
            return 2
    with open(path, "w") as f:
        f.write(text)
    shim = os.path.abspath(path)
    try:  # the record handed over with the shim; without it, jitbench asks the shim for it as before
        workload = workload_record(meta, shim)
    except Exception:  # noqa: BLE001 -- the run's own reading of the shim says what is wrong with it
        workload = None
    record = json.dumps({**meta, "shim": shim, **({"workload": workload} if workload else {})}) + "\n"
    if args.record_fd is None:
        sys.stdout.write(record)
    else:
        with os.fdopen(args.record_fd, "w", encoding="utf-8", errors="surrogateescape") as channel:
            channel.write(record)
    return 0


def workload_record(meta, shim) -> dict:
    """The shim's workload record, as `catalog --workload-file` would print it
    after importing the shim: made from what the shim was written from (its
    CATALOG and IMPLEMENTATIONS), so jitbench need not import the target again."""
    from ..workloads import record
    made = types.SimpleNamespace(CATALOG=meta["catalog"], IMPLEMENTATIONS=implemented(meta["framework"]))
    return record(meta["name"], shim, module=made)


def _out_path(out, name):
    if os.path.isdir(out):
        return os.path.join(out, f"{name}.py")
    if not out.endswith(".py"):
        raise ValueError(f"--out {out}: give an existing directory or a NAME.py file")
    stem = os.path.splitext(os.path.basename(out))[0]
    if stem != name:
        raise ValueError(f"--out {out}: the shim's file must be {name}.py (a workload's name is its file's stem); "
                         "give a directory, or the same --name")
    return out


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
