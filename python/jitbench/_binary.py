"""Finding the jitbench binary and running it."""

import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig

# The source tree's build (python/jitbench/../../build/jitbench): where
# scripts/setup.sh puts it when the package is installed editable.
SOURCE_BUILD = pathlib.Path(__file__).resolve().parent.parent.parent / "build" / "jitbench"


class JitbenchError(RuntimeError):
    """jitbench could not run, or refused what it was given (its message says why)."""


def find_binary():
    """$JITBENCH_BIN, else the jitbench installed beside this package (pip
    install: the environment's scripts directory, activated or not), else
    `jitbench` on PATH, else the source tree's build/jitbench."""
    env = os.environ.get("JITBENCH_BIN")
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise JitbenchError(f"JITBENCH_BIN={env} is not an executable file")
        return env
    installed = pathlib.Path(sysconfig.get_path("scripts")) / "jitbench"
    if (pathlib.Path(__file__).resolve().parent / "_data").is_dir() and os.access(installed, os.X_OK):
        return str(installed)
    on_path = shutil.which("jitbench")
    if on_path:
        return on_path
    if SOURCE_BUILD.is_file() and os.access(SOURCE_BUILD, os.X_OK):
        return str(SOURCE_BUILD)
    raise JitbenchError("no jitbench binary: set JITBENCH_BIN, put jitbench on PATH, or build "
                        f"{SOURCE_BUILD} (scripts/setup.sh)")


def run_binary(args, quiet=True, env=None, unset=()):
    """Runs `jitbench ARGS`; returns (exit code, stdout, stderr). Quiet: both
    are captured; otherwise stderr joins stdout and each line is also written
    to sys.stdout as it comes (a notebook shows it, which a child's own stdout
    would bypass). env: variables set for it; unset: variables it must not see."""
    argv = [find_binary(), *map(str, args)]
    full_env = {k: v for k, v in dict(os.environ, **(env or {})).items() if k not in unset}
    if quiet:
        proc = subprocess.run(argv, capture_output=True, text=True, env=full_env, stdin=subprocess.DEVNULL)
        return proc.returncode, proc.stdout, proc.stderr
    lines = []
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=full_env,
                          stdin=subprocess.DEVNULL) as proc:
        for line in proc.stdout:
            lines.append(line)
            sys.stdout.write(line)
            sys.stdout.flush()
    return proc.returncode, "".join(lines), ""
