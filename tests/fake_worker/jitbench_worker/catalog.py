"""The fake worker's answer to `python -m jitbench_worker.catalog
--workload-file NAME PATH`: a record with no throughput, ceiling or loop (the
fake worker runs no workload's code, so it knows nothing more of one)."""

import json
import sys

if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "--workload-file":
        sys.exit("usage: python -m jitbench_worker.catalog --workload-file NAME PATH")
    print(json.dumps({"name": sys.argv[2], "summary": f"user workload from {sys.argv[3]}", "path": sys.argv[3]}))
