#!/usr/bin/env bash
# bisect on instruction counts under two CPU hogs (issue 50's "done when"):
# on a pair of releases whose code is the same, `bisect --metric
# instructions_setup` must say "no regression"; across a release that does
# clearly more work it must still name that release. Real worker, real
# valgrind (callgrind), real numpy.
#
#   bench/counts_bisect_under_hogs.sh [WORK_DIR]
#
# Four local wheels of a package `countpkg`: 1.0 and 1.1 identical, 1.2 and
# 1.3 sum 300,000 squares in Python when imported. A user workload imports
# countpkg while it sets up, so the import's work is in the setup phase. Two
# `yes` processes (each a session of its own) run from just before the first
# bisect to just after the second, and are killed however the script ends
# (trap). Prints each bisect's conclusion, its exit code, its wall time and
# the load before and after. Needs build/jitbench (or $JITBENCH), valgrind,
# uv and numpy's wheel in .deps/wheels (scripts/test.sh fetches it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
J=${JITBENCH:-$root/build/jitbench}
py=${JITBENCH_PYTHON:-$root/.venv/bin/python}
work=${1:-$(mktemp -d /tmp/counts-bisect-hogs.XXXXXX)}
mkdir -p "$work/wheels"
export JITBENCH_ENV_CACHE=${JITBENCH_ENV_CACHE:-$work/env-cache}

hogs=()
stop_hogs() { for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done; hogs=(); }
trap stop_hogs EXIT INT TERM

"$py" - "$work" <<'PY'
import base64, hashlib, pathlib, sys, zipfile
work = pathlib.Path(sys.argv[1])
SLOW = "_work = sum(i * i for i in range(300_000))\n"
for version, body in {"1.0": "", "1.1": "", "1.2": SLOW, "1.3": SLOW}.items():
    dist = f"countpkg-{version}.dist-info"
    files = {"countpkg/__init__.py": body + f"__version__ = '{version}'\n",
             f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: countpkg\nVersion: {version}\n",
             f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: jitbench-bench\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    record = [f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(t.encode()).digest()).rstrip(b'=').decode()},"
              f"{len(t.encode())}" for p, t in files.items()] + [f"{dist}/RECORD,,"]
    files[f"{dist}/RECORD"] = "\n".join(record) + "\n"
    with zipfile.ZipFile(work / "wheels" / f"countpkg-{version}-py3-none-any.whl", "w") as z:
        for p, t in files.items():
            z.writestr(p, t)
(work / "import_countpkg.py").write_text('''"""Imports countpkg while it sets up."""
import numpy as np


def make_inputs(n, dtype, seed):
    return (np.arange(n, dtype="float64"),)


def check(out, inputs, n, dtype, seed):
    return {"ok": bool(np.allclose(out, inputs[0] * 2)), "metric": "allclose", "error": 0.0, "tolerance": 0.0}, {}


def _build(adapter, n, dtype):
    import countpkg  # noqa: F401  (the work measured)
    return lambda x: x * 2


IMPLEMENTATIONS = {"numpy": _build}
''')
PY
for w in "$root"/.deps/wheels/numpy-*.whl; do ln -sf "$w" "$work/wheels/"; done

bisect() {  # bisect GOOD BAD NAME
  local t0=$SECONDS rc=0
  "$J" bisect --package countpkg --good "$1" --bad "$2" --metric instructions_setup --threshold 10 \
    --workload-path "$work/import_countpkg.py" --cases import_countpkg_8_f64 --backends numpy \
    --cold-runs 2 --warm-iters 2 --count instructions --count-runs 2 --jobs 2 \
    --find-links "$work/wheels" --no-index --out-dir "$work/$3" > "$work/$3.out" 2> "$work/$3.err" || rc=$?
  echo "== bisect $1 -> $2: exit $rc, $((SECONDS - t0)) s; load after: $(cut -d' ' -f1-3 /proc/loadavg)"
  grep -v '^  ' "$work/$3.out" | tail -n 6
}

echo "load before the hogs: $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in 1 2; do setsid yes > /dev/null & hogs+=($!); done
sleep 2
echo "two hogs running (pids ${hogs[*]}); load: $(cut -d' ' -f1-3 /proc/loadavg)"
bisect 1.0 1.1 same
bisect 1.0 1.3 found
stop_hogs
echo "hogs stopped; work dir: $work"
