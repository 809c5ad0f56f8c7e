"""Prints jitbench's catalog of backends and workloads as JSON: the build
embeds it in the binary (CMakeLists.txt), so the worker's registries are the
only place a backend or workload is named. Imports no framework."""

import json
import sys

from . import backends, workloads


def main(argv):
    """python -m jitbench_worker.catalog [--out FILE]"""
    text = json.dumps({"backends": backends.catalog(), "workloads": workloads.catalog()}, indent=1) + "\n"
    if len(argv) == 2 and argv[0] == "--out":
        with open(argv[1], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv[1:])
