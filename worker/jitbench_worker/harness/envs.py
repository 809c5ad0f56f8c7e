"""Pinned framework environments, built with uv and kept in a content-addressed
cache, for runs across releases (jitbench run --env, [[environments]], bisect).

    python -m jitbench_worker.harness.envs build --fd 3 --spec SPEC.json
    python -m jitbench_worker.harness.envs versions --fd 3 --package NAME [--find-links DIR]... [--no-index]
    python -m jitbench_worker.harness.envs hashes --fd 3 --root CACHE_ROOT

SPEC: {"name", "requirements": [...], "python": "" | version | path,
"cache_root", "find_links": [...], "no_index": bool, "uv": path}. Answers on
the descriptor, as workers do: an `environment` message {name, hash, dir,
python, python_version, packages, exclude_newer, reused, build_s, bytes, uv}
or a `skip` {reason: "environment_unavailable: <the installer's one line>"}.

- What every worker needs is added to the pins: numpy (verification); the
  worker package itself stays on PYTHONPATH.
- Exact pins (name==version) hold everything else to the newest release
  date among them (uv's --exclude-newer, one day after): an old jaxlib is not
  paired with a numpy it predates, an unpinned companion ("scipy" beside
  numba==0.57.1) is the release of that day, and a bisection blames the
  package it names. The date comes from PyPI's JSON API; with --no-index, or
  without an exact pin, nothing is held and the record says why.
- Byte-compiled at install (--compile-bytecode): without .pyc files an import
  measures Python's own compiler (PYTHONDONTWRITEBYTECODE is set on many
  machines).
- A requirement `NAME @ git+file:///REPO@COMMIT` (a full commit id: what
  `jitbench bisect --git` gives each step) is installed by jitbench itself,
  with no network: the commit's tree is exported (`git archive`) into the
  environment's own src/<commit>/; when its pyproject.toml names a build
  backend the environment has, it is installed with `uv pip install
  --no-build-isolation --no-index` (and the --find-links directories),
  else it is put at the front of the path (a .pth file inserting src/ when
  the tree has one, else its root, before site-packages; `import NAME` must
  then find the tree) and byte-compiled. The record's `sources` says which
  and why; the hash has the commit id (it is in the requirement).
- The directory is <cache_root>/<hash of the spec>; it is used only once its
  record (.jitbench-env.json) is written, last; a half-built one is removed and
  built again; a lock keeps two builders of the same hash apart.
"""

import argparse
import datetime
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request

from . import door
from ..protocol import Channel

RECORD = ".jitbench-env.json"
# Written into an environment's directory as soon as uv has made it, before
# anything is installed: `jitbench envs` removes only directories that hold it
# (or a record), never one jitbench did not create.
MADE_MARK = ".jitbench-env-made"
# One line per run that used the environment ("<UTC time>\t<name>\t<out dir>"),
# appended under the environment's lock (`jitbench envs list`: last used, runs).
USES = ".jitbench-env-uses"
# Written into a cache root jitbench made (or found empty): only in such a root
# does it remove a half-built environment.
ROOT_MARK = ".jitbench-env-cache"
FIND_LINKS_MEMO = ".jitbench-find-links.json"  # sha256 of the find-links files, by path, size and mtime
WORKER_NEEDS = ("numpy",)
# name @ git+file:///repo@<40 hex>: a commit jitbench exports and installs itself (no clone, no build isolation).
_GIT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*@\s*git\+file://(/.*)@([0-9a-f]{40})\s*$")
_PIN = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*==\s*([A-Za-z0-9._+!-]+)\s*$")


class Unbuildable(Exception):
    """The environment cannot be built; the message is the installer's one line."""


def one_line(text):
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    # uv's first "error:" line says what failed; the line after it, when
    # there is one, says why (which package could not be found).
    for i, ln in enumerate(lines):
        if ln.lower().startswith(("error:", "×", "x ")):
            reason = ln.lstrip("×x ").strip()
            if i + 1 < len(lines):
                why = re.sub(r"^(cause:|╰─▶|\|)\s*", "", lines[i + 1])
                reason = f"{reason}: {why}"
            return reason
    return lines[-1] if lines else "the installer failed without a message"


def exact_pins(requirements):
    """(name, version) of each requirement that is an exact pin."""
    return [(m.group(1), m.group(3)) for m in map(_PIN.match, requirements) if m]


def pypi_releases(name, timeout):
    """{version: [file, ...]} from PyPI's project JSON, which every PyPI mirror
    serves (some lack the per-version endpoint)."""
    with urllib.request.urlopen(f"https://pypi.org/pypi/{name}/json", timeout=timeout) as r:
        return json.load(r).get("releases", {})


def release_date(name, version, timeout=20):
    """The upload time of a release's newest file on PyPI (UTC)."""
    files = pypi_releases(name, timeout).get(version)
    if files is None:
        raise Unbuildable(f"PyPI has no release {name}=={version}; check the version (pip index versions {name})")
    times = [u["upload_time_iso_8601"] for u in files if u.get("upload_time_iso_8601")]
    if not times:
        raise Unbuildable(f"PyPI lists no files for {name}=={version}")
    return max(datetime.datetime.fromisoformat(t.replace("Z", "+00:00")) for t in times)


def hold_date(spec):
    """(--exclude-newer value or None, why) for the spec."""
    if spec.get("no_index"):
        return None, "none: --no-index (only the wheels of --find-links)"
    pins = exact_pins(spec["requirements"])
    if not pins:
        return None, "none: no requirement is an exact pin (name==version)"
    try:
        newest = max(release_date(n, v) for n, v in pins)
    except Unbuildable:
        raise
    except Exception as exc:  # offline, or PyPI does not know the pin
        raise Unbuildable(f"cannot read the release date of {', '.join(f'{n}=={v}' for n, v in pins)} from PyPI: "
                          f"{exc}") from None
    held = (newest + datetime.timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return held, f"one day after the newest pinned release ({newest:%Y-%m-%d})"


def find_links_contents(dirs, memo_path=None):
    """What the find-links directories hold, not where they are: the name and
    sha256 of every file in them. Two projects' wheels/ with different
    patchme-1.0 files are two environments; one folder moved is the same.
    memo_path (in the cache root) keeps each file's sha256 by path, size and
    modification time, so that a directory of large wheels is read once."""
    memo = {}
    if memo_path and os.path.exists(memo_path):
        try:
            with open(memo_path) as f:
                memo = json.load(f)
        except (OSError, ValueError):
            memo = {}
    out = []
    for d in dirs:
        if not os.path.isdir(d):
            raise Unbuildable(f"--find-links {d} is not a directory")
        for name in sorted(os.listdir(d)):
            path = os.path.join(d, name)
            if not os.path.isfile(path):
                continue
            st = os.stat(path)
            key = f"{os.path.realpath(path)}|{st.st_size}|{st.st_mtime_ns}"
            if key not in memo:
                h = hashlib.sha256()
                with open(path, "rb") as f:
                    for chunk in iter(lambda: f.read(1 << 20), b""):
                        h.update(chunk)
                memo[key] = h.hexdigest()
            out.append([name, memo[key]])
    if memo_path:
        door.write_file(os.path.dirname(memo_path), os.path.basename(memo_path), json.dumps(memo))
    return sorted(out)


def spec_hash(spec, held, uv_version, memo_path=None):
    key = {"requirements": sorted(spec["requirements"]), "python": spec.get("python", ""), "exclude_newer": held,
           "find_links": find_links_contents(spec.get("find_links", []), memo_path),
           "no_index": bool(spec.get("no_index")),
           "worker_needs": list(WORKER_NEEDS), "uv": uv_version}
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]


# What a record must say for its hash to be computed again: each is in the spec hashed.
HASHED_FIELDS = ("requirements", "spec_python", "exclude_newer", "find_links", "no_index")


def current_hash(record, uv_version, memo_path=None):
    """The hash this jitbench, with this uv, gives the spec a record was built
    from (its requirements, Python, held date, find-links and --no-index); None
    (unknown) when it cannot be computed: a field it hashes is missing from the
    record (one from before the spec's Python was kept, say), a find-links
    directory is gone, or the record is malformed. Unknown is never stale."""
    if any(k not in record for k in HASHED_FIELDS):
        return None
    spec = {"requirements": record["requirements"], "python": record["spec_python"],
            "find_links": record["find_links"], "no_index": bool(record["no_index"])}
    try:
        return spec_hash(spec, record["exclude_newer"], uv_version, memo_path)
    except (Unbuildable, OSError, TypeError, KeyError, ValueError, AttributeError):
        return None


def current_hashes(root, uv):
    """{directory name: the hash this jitbench computes for its record, or
    None} for every environment of the cache root with a readable record."""
    uv_version = run([uv, "--version"]).strip()
    # The find-links files' sha256 memo, as the builder keeps it, in a root jitbench made.
    memo = os.path.join(root, FIND_LINKS_MEMO) if os.path.exists(os.path.join(root, ROOT_MARK)) else None
    out = {}
    for name in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        if not re.fullmatch(r"[0-9a-f]{16}", name):  # only directories named as the builder names them
            continue
        path = os.path.join(root, name, RECORD)
        try:
            with open(path) as f:
                record = json.load(f)
        except (OSError, ValueError):
            continue
        if isinstance(record, dict):
            out[name] = current_hash(record, uv_version, memo)
    return out


def check_owned(path, what):
    """Only what this user made, and nobody else may write, is trusted: the
    cache root and each environment in it (an interpreter there is run)."""
    st = os.lstat(path)
    if os.path.islink(path):
        raise Unbuildable(f"the {what} {path} is a symbolic link; point JITBENCH_ENV_CACHE at a directory of yours")
    if st.st_uid != os.getuid():
        raise Unbuildable(f"the {what} {path} belongs to another user (uid {st.st_uid}); point JITBENCH_ENV_CACHE at "
                          "a directory of yours")
    if st.st_mode & 0o002:
        raise Unbuildable(f"the {what} {path} is writable by every user; make it private (chmod o-w) or point "
                          "JITBENCH_ENV_CACHE elsewhere")


def trusted_record(d, record_path):
    """The environment's record, when it is whole and names the interpreter in
    its own directory; None when it must be built again."""
    try:
        with open(record_path) as f:
            record = json.load(f)
        python = record["python"]
        # The interpreter's own folder, links resolved, is the environment's bin/ (the
        # interpreter itself is uv's link to a base Python, as in every virtual environment).
        folder = os.path.realpath(os.path.dirname(python))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if folder != os.path.join(os.path.realpath(d), "bin") or not os.access(python, os.X_OK):
        return None
    return record


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise Unbuildable(one_line(p.stderr or p.stdout))
    return p.stdout


def du(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


def git_sources(requirements):
    """(name, repo, commit) of each requirement that names a commit of a local git repository."""
    return [(m.group(1), m.group(2), m.group(3)) for m in map(_GIT.match, requirements) if m]


# git reads the repository it is given (never one these name), asks nothing, fetches nothing (a partial clone's
# missing objects, LFS files): a commit's tree is exported from what is on this machine, or not at all.
_GIT_LOCATION = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
                 "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES")
GIT_EXPORT_TIMEOUT_S = 300


def git_env():
    env = {k: v for k, v in os.environ.items() if k not in _GIT_LOCATION}
    return {**env, "GIT_TERMINAL_PROMPT": "0", "GIT_NO_LAZY_FETCH": "1", "GIT_LFS_SKIP_SMUDGE": "1", "LC_ALL": "C"}


def git_out(repo, *args):
    """git -C repo args: its stdout (bytes); Unbuildable when it fails or runs past GIT_EXPORT_TIMEOUT_S."""
    try:
        p = subprocess.run(["git", "-C", repo, *args], capture_output=True, env=git_env(),
                           timeout=GIT_EXPORT_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise Unbuildable(f"git {args[0]} in {repo} ran past {GIT_EXPORT_TIMEOUT_S} s: check the repository "
                          "(git fsck) and that it needs no network") from None
    if p.returncode != 0:
        raise Unbuildable(f"git {args[0]} {args[-1]} in {repo}: {one_line(p.stderr.decode(errors='replace'))}")
    return p.stdout


def submodules(repo, commit):
    """The paths of the commit's submodules (gitlinks, mode 160000): git archive leaves them empty."""
    out = git_out(repo, "ls-tree", "-r", "-z", "--full-tree", commit)
    return [e.split(b"\t", 1)[1].decode(errors="replace") for e in out.split(b"\0") if e.startswith(b"160000 ")]


def export_commit(repo, commit, into):
    """The commit's tree, as `git archive` writes it, into the directory `into` (made here)."""
    import io
    import tarfile

    data = git_out(repo, "archive", "--format=tar", commit)
    door.make_dir(os.path.dirname(into), os.path.basename(into))
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        members = [m for m in tar.getmembers() if not (m.issym() or m.islnk() or m.isdev())]
        for m in members:  # git archive writes relative paths; refuse any that would leave the directory
            if os.path.isabs(m.name) or ".." in m.name.split("/"):
                raise Unbuildable(f"git archive {commit} in {repo}: the path {m.name!r} leaves the tree")
        # Through the door, member by member (no link below `into` followed), each file's mode bits kept
        # as git archive gives them (0644 or 0755): what tarfile's "data" filter would keep.
        for m in members:
            if m.isdir():
                door.make_dir(into, m.name, mode=0o755)
            elif m.isfile():
                door.write_file(into, m.name, tar.extractfile(m).read(), mode=m.mode & 0o755 | 0o644,
                                durable=False)


def build_backend(tree, py):
    """(backend, why): the build backend the tree's pyproject.toml names when
    the environment's interpreter can import it, else None and why not."""
    path = os.path.join(tree, "pyproject.toml")
    if not os.path.exists(path):
        return None, "no pyproject.toml: put on the path"
    import tomllib

    try:
        with open(path, "rb") as f:
            system = tomllib.load(f).get("build-system", {})
    except (OSError, ValueError) as exc:
        return None, f"pyproject.toml cannot be read ({exc}): put on the path"
    backend = system.get("build-backend")
    if not backend:
        return None, "pyproject.toml names no build backend: put on the path"
    module = backend.split(":")[0]
    # An in-tree backend (backend-path) is looked for in the tree, as the installer will.
    inside = [os.path.join(tree, p) for p in system.get("backend-path", []) if isinstance(p, str)]
    probe = subprocess.run([py, "-c", "import importlib, sys; sys.path[:0] = sys.argv[2:]; "
                                      "importlib.import_module(sys.argv[1])", module, *inside],
                           capture_output=True, cwd=tree, env={**os.environ, "PYTHONPATH": ""})
    if probe.returncode != 0:
        return None, (f"its build backend {module} is not in the environment (give its wheel with --find-links and "
                      f"require it with --install-extra to build): put on the path")
    return backend, f"built with {backend} in the environment (--no-build-isolation --no-index)"


def install_source(d, py, uv, spec, name, repo, commit):
    """One commit's tree exported into the environment and installed or put on the path; its record."""
    door.make_dir(d, "src")
    tree = os.path.join(d, "src", commit)
    export_commit(repo, commit, tree)
    backend, why = build_backend(tree, py)
    if subs := submodules(repo, commit):  # measured without them: said where the environment's record says how
        why += f"; its submodules are not exported (empty directories): {', '.join(subs)}"
    if backend:
        cmd = [uv, "pip", "install", "--quiet", "--python", py, "--compile-bytecode", "--no-build-isolation",
               "--no-index"]
        for f in spec.get("find_links", []):
            cmd += ["--find-links", f]
        run(cmd + ["--", tree])
    else:
        root = os.path.join(tree, "src") if os.path.isdir(os.path.join(tree, "src")) else tree
        purelib = run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                      env={**os.environ, "PYTHONPATH": ""}).strip().splitlines()[-1]
        # An "import" line of a .pth file is run by site: the tree goes to the FRONT of sys.path, so that a copy of
        # the same package installed in the environment (a requirement, --install-extra) cannot hide the commit.
        # Written below the environment's directory through the door (a site-packages outside it is refused).
        door.write_file(d, os.path.join(os.path.relpath(purelib, d), f"_jitbench_git_{commit[:12]}.pth"),
                        f"import sys; sys.path.insert(0, {root!r})\n")
        # An import measures the package, not Python's compiler. A file that does not compile (a test fixture,
        # a script for another Python) is left to fail where it is imported, as it would anywhere: exit code ignored.
        subprocess.run([py, "-m", "compileall", "-q", root], capture_output=True)
        check_imported_from(py, name, root)
    return {"name": name, "repository": repo, "commit": commit, "install": "built" if backend else "path",
            "why": why}


def check_imported_from(py, name, root):
    """The module NAME (a name's '-' read as '_'), when the environment's interpreter finds it at all, comes from
    the tree at root; else Unbuildable (an import name that differs from the requirement's is not checked)."""
    code = ("import importlib.util, sys; s = importlib.util.find_spec(sys.argv[1]); "
            "print(s.origin or next(iter(s.submodule_search_locations or []), '') if s else '')")
    where = run([py, "-I", "-c", code, name.replace("-", "_")]).strip().splitlines()  # -I: no cwd, no PYTHONPATH
    found = where[-1] if where else ""
    if found and not os.path.realpath(found).startswith(os.path.realpath(root) + os.sep):
        raise Unbuildable(f"import {name} in the environment finds {found}, not the commit's tree {root}: remove "
                          f"{name} from the other requirements (--install-extra, --with)")


def build_into(d, spec, held, uv):
    """uv venv + uv pip install, byte-compiled, then the commits of git requirements;
    returns the interpreter and the sources' records."""
    python = spec.get("python") or sys._base_executable
    run([uv, "venv", "--quiet", "--python", python, d])
    check_owned(d, "environment")  # uv made it by path: still a directory of this user's, no link in its place
    door.write_file(d, MADE_MARK,  # jitbench made this directory (jitbench envs may remove it)
                    "made by jitbench's environment builder; removed only by jitbench envs rm/prune\n")
    py = os.path.join(d, "bin", "python")
    sources = git_sources(spec["requirements"])
    reqs = [r for r in spec["requirements"] if not _GIT.match(r)]
    named = {re.split(r"[\[<>=!~ ;]", r.strip(), 1)[0].lower() for r in reqs}
    named |= {name.lower() for name, _, _ in sources}  # a commit of numpy is the environment's numpy
    reqs += [w for w in WORKER_NEEDS if w not in named]
    cmd = [uv, "pip", "install", "--quiet", "--python", py, "--compile-bytecode"]
    if held:
        cmd += ["--exclude-newer", held]
    for f in spec.get("find_links", []):
        cmd += ["--find-links", f]
    if spec.get("no_index"):
        cmd.append("--no-index")
    # uv's own cache stays in its default place (or UV_CACHE_DIR): wheels are shared between environments.
    # "--" ends uv's options: a requirement is never read as one (jitbench refuses one starting with "-" too).
    run(cmd + ["--"] + reqs)
    return py, [install_source(d, py, uv, spec, *s) for s in sources]


def describe(py):
    code = ("import json, re, sys, importlib.metadata as m; print(json.dumps({'python_version': sys.version.split()[0], "
            "'packages': {re.sub(r'[-_.]+', '-', d.metadata['Name']).lower(): d.version "
            "for d in m.distributions()}}))")
    return json.loads(run([py, "-c", code], env={**os.environ, "PYTHONPATH": ""}).strip().splitlines()[-1])


def own_cache_root(root):
    """Creates the cache root, or takes an empty one; refuses a directory with
    other contents, since it removes half-built environments inside it."""
    door.make_root(root)
    mark = os.path.join(root, ROOT_MARK)
    if os.path.exists(mark):
        return
    if os.listdir(root):
        raise Unbuildable(f"{root} holds files jitbench did not put there; point JITBENCH_ENV_CACHE at a new "
                          "or empty directory")
    door.write_file(root, ROOT_MARK, "jitbench's environment cache: one directory per environment, named by its hash\n")


def build(spec):
    uv = spec.get("uv") or shutil.which("uv") or os.path.join(os.path.dirname(sys.executable), "uv")
    if not os.path.exists(uv):
        raise Unbuildable("uv is not installed (scripts/setup.sh installs it into .venv)")
    uv_version = run([uv, "--version"]).strip()
    held, why = hold_date(spec)
    root = os.path.abspath(spec["cache_root"])
    if os.path.exists(root) and not os.path.isdir(root):
        raise Unbuildable(f"the environment cache {root} is not a directory; point JITBENCH_ENV_CACHE at one")
    if os.path.lexists(root):
        check_owned(root, "environment cache")
    own_cache_root(root)
    h = spec_hash(spec, held, uv_version, os.path.join(root, FIND_LINKS_MEMO))
    d = os.path.join(root, h)
    record_path = os.path.join(d, RECORD)
    # Reuse under a shared lock (runs holding the environment hold it shared,
    # `jitbench envs rm` takes it exclusively); build under an exclusive one.
    with locked(os.path.join(root, h + ".lock"), fcntl.LOCK_SH):
        record = reusable(d, record_path)
        if record is not None:
            return {**record, "name": spec["name"], "reused": True}
    with locked(os.path.join(root, h + ".lock"), fcntl.LOCK_EX):  # another builder of the same environment waits here
        record = reusable(d, record_path)
        if record is not None:
            return {**record, "name": spec["name"], "reused": True}
        door.remove(root, h)  # half-built by a builder that died, or its record broken: again
        t0 = time.monotonic()
        try:
            py, sources = build_into(d, spec, held, uv)
            info = describe(py)
        except Unbuildable:
            door.remove(root, h)
            raise
        record = {"name": spec["name"], "hash": h, "dir": d, "python": py, "requirements": spec["requirements"],
                  "spec_python": spec.get("python", ""),
                  "python_version": info["python_version"], "packages": info["packages"],
                  "exclude_newer": held, "exclude_newer_why": why, "uv": uv_version,
                  "find_links": spec.get("find_links", []), "no_index": bool(spec.get("no_index")),
                  "build_s": time.monotonic() - t0, "bytes": du(d)}
        if sources:
            record["sources"] = sources
        door.write_file(root, f"{h}/{RECORD}", json.dumps(record, indent=1))  # from here on the environment exists
        return {**record, "reused": False}


class locked:
    """flock on an environment's lock file; a file `jitbench envs rm` removed
    (and perhaps made again) while this waited is opened anew."""

    def __init__(self, path, mode):
        self.path, self.mode, self.f = path, mode, None

    def __enter__(self):
        while True:
            f = os.fdopen(door.open_lock(os.path.dirname(self.path), os.path.basename(self.path)), "a")
            fcntl.flock(f, self.mode)
            try:
                same = os.path.samestat(os.fstat(f.fileno()), os.stat(self.path))
            except FileNotFoundError:
                same = False
            if same:
                self.f = f
                return f
            f.close()

    def __exit__(self, *exc):
        self.f.close()


def reusable(d, record_path):
    """The record of a whole, trusted environment at d; None otherwise."""
    if os.path.lexists(d):
        check_owned(d, "environment")
    if os.path.exists(record_path):
        return trusted_record(d, record_path)
    return None


def released_versions(package, find_links=(), no_index=False):
    """Every released version of a package, oldest first: from the wheels and
    sdists in find_links, and (unless no_index) PyPI's JSON API. Pre-releases
    and yanked releases are left out."""
    from packaging.version import InvalidVersion, Version

    norm = re.sub(r"[-_.]+", "_", package).lower()
    found = set()
    for d in find_links:
        for f in os.listdir(d):
            m = re.match(r"^([A-Za-z0-9_.]+?)-([0-9][^-]*?)(-|\.tar\.gz$|\.zip$)", f)
            if m and re.sub(r"[-_.]+", "_", m.group(1)).lower() == norm:
                found.add(m.group(2))
    if not no_index:
        for v, files in pypi_releases(package, timeout=30).items():
            if files and not all(f.get("yanked") for f in files):
                found.add(v)
    out = []
    for v in found:
        try:
            parsed = Version(v)
        except InvalidVersion:
            continue
        if not parsed.is_prerelease:
            out.append((parsed, v))
    return [v for _, v in sorted(out)]


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m jitbench_worker.harness.envs")
    p.add_argument("command", choices=["build", "versions", "hashes"])
    p.add_argument("--fd", type=int, required=True)
    p.add_argument("--spec")
    p.add_argument("--package")
    p.add_argument("--root")
    p.add_argument("--find-links", action="append", default=[])
    p.add_argument("--no-index", action="store_true")
    args = p.parse_args(argv)
    channel = Channel(args.fd)
    channel.hello()
    try:
        if args.command == "hashes":
            uv = shutil.which("uv") or os.path.join(os.path.dirname(sys.executable), "uv")
            channel.send("hashes", hashes=current_hashes(args.root, uv))
        elif args.command == "versions":
            channel.send("versions", package=args.package,
                         versions=released_versions(args.package, args.find_links, args.no_index))
        else:
            with open(args.spec) as f:
                spec = json.load(f)
            channel.send("environment", **build(spec))
    except Unbuildable as exc:
        channel.send("skip", status="warn", reason=f"environment_unavailable: {exc}")
    except Exception as exc:  # the versions of a package PyPI does not know, say
        channel.send("error", reason="environment_error", message=f"{type(exc).__name__}: {exc}")
    channel.bye()
    return 0


if __name__ == "__main__":
    sys.exit(main())
