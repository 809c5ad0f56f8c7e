#!/usr/bin/env bash
# Runs a jitbench suite as a Slurm job array, one shard per array task, then
# merges the shards in a job that starts only when every task succeeded.
#
#   scripts/slurm/submit.sh SUITE.toml OUT_ROOT SHARDS [--gpu] [-- ARGS for jitbench run...]
#
# OUT_ROOT must be on storage every node sees. It gets shard-K/ (each a
# complete out dir), merged/ (the merged run) and slurm/ (task-I.out: array
# task I runs shard I+1; merge.out).
# A requeued or re-submitted task resumes its shard instead of starting over.
# Prints the array job's id and the merge job's id. docs/scale-out.md.
set -euo pipefail
usage() { echo "usage: $0 SUITE.toml OUT_ROOT SHARDS [--gpu] [-- jitbench run args...]" >&2; exit 2; }
[ $# -ge 3 ] || usage
suite=$1 out_root=$2 shards=$3
shift 3
gres=()
if [ "${1:-}" = --gpu ]; then gres=(--gres=gpu:1); shift; fi
if [ "${1:-}" = -- ]; then shift; fi
[[ $shards =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: SHARDS must be a positive integer, got '$shards'" >&2; exit 2; }
[ -f "$suite" ] || { echo "submit.sh: suite file '$suite' does not exist" >&2; exit 2; }
command -v sbatch >/dev/null || { echo "submit.sh: sbatch not found: run this on a Slurm login node" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export JITBENCH=${JITBENCH:-$root/build/jitbench}
[ -x "$JITBENCH" ] || { echo "submit.sh: $JITBENCH is not built (run scripts/setup.sh)" >&2; exit 2; }
export JITBENCH_SUITE=$(cd "$(dirname "$suite")" && pwd)/$(basename "$suite")
mkdir -p "$out_root/slurm"
export JITBENCH_OUT_ROOT=$(cd "$out_root" && pwd)
# Extra arguments for every shard's `jitbench run`, one per line.
export JITBENCH_RUN_ARGS=$(printf '%s\n' "$@")

array=$(sbatch --parsable --job-name=jitbench-shards --array=0-$((shards - 1)) "${gres[@]}" \
  --chdir="$root" --output="$JITBENCH_OUT_ROOT/slurm/task-%a.out" "$here/shard.sbatch")
array=${array%%;*}
merge=$(sbatch --parsable --job-name=jitbench-merge --dependency=afterok:"$array" \
  --chdir="$root" --output="$JITBENCH_OUT_ROOT/slurm/merge.out" "$here/merge.sbatch")
merge=${merge%%;*}
echo "$array $merge"
