"""Prints jitbench's catalog of backends and workloads as JSON: the build
embeds it in the binary (CMakeLists.txt), so the worker's registries are the
only place a backend or workload is named. With --workload-file NAME PATH it
prints the record of a user workload instead (jitbench asks at run time, with
--fd N: the record goes to that descriptor, never to stdout, where the user's
file may print anything). Imports no framework."""

import json
import sys

from . import backends, workloads


def main(argv):
    """python -m jitbench_worker.catalog [--out FILE] | --workload-file NAME PATH [--fd N]"""
    if len(argv) in (3, 5) and argv[0] == "--workload-file":
        out = sys.stdout if len(argv) == 3 else open(int(argv[4]), "w", encoding="utf-8", closefd=True)
        try:
            out.write(json.dumps(workloads.record(argv[1], argv[2])) + "\n")
            out.flush()
        except Exception as exc:  # the file breaks the contract: one line saying how
            sys.stderr.write(f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}\n")
            sys.exit(2)
        return
    text = json.dumps({"backends": backends.catalog(), "workloads": workloads.catalog()}, indent=1) + "\n"
    if len(argv) == 2 and argv[0] == "--out":
        with open(argv[1], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv[1:])
