#!/usr/bin/env bash
# Runs a jitbench suite as a Slurm job array, one shard per array task, then
# merges the shards in a job that starts when every task has ended, whatever
# its end: the merge decides (a missing shard is named, with the command that
# resubmits just that task), so nothing waits forever on a failed task.
#
#   scripts/slurm/submit.sh SUITE.toml OUT_ROOT SHARDS [OPTIONS] [SBATCH OPTIONS...] [-- JITBENCH RUN ARGS...]
#
# OPTIONS (submit.sh's own):
#   --gpu[=TYPE]      one GPU per task (--gres=gpu:1, or gpu:TYPE:1, e.g. --gpu=h100)
#   --throttle N      at most N tasks at a time (--array=0-K%N)
#   --costs DIR       balance the shards by an earlier run's case times (jitbench run --costs DIR) and set
#                     each task's time limit from them: 1.5 x the largest shard's expected time + 10 min
#   --shared          let a task share its node (default --exclusive: a benchmark shares its node with nothing)
#   --stop-before S   seconds before the time limit at which the task is told to stop (SIGTERM; default 300):
#                     jitbench records what it measured, a requeued task resumes it
# Every other argument before `--` goes to sbatch as it is: --partition=P, --account=A, --qos=Q,
# --time=T, --constraint=C, ... (sbatch's own SBATCH_* environment variables work too: SBATCH_PARTITION,
# SBATCH_ACCOUNT, SBATCH_QOS, SBATCH_TIMELIMIT, SBATCH_CONSTRAINT). After `--`: arguments for every
# shard's `jitbench run` (e.g. --cold-runs 10).
#
# OUT_ROOT must be on storage every node sees. It gets shard-K/ (each a
# complete out dir), merged/ (the merged run), and slurm/: task-I.out (array
# task I runs shard I+1; every attempt of a requeued task appends to it, under
# its own header), merge.out, and resubmit.sh (resubmits tasks by index with
# the same options, then a new merge). Prints the array job's id and the merge
# job's id. docs/scale-out.md.
set -euo pipefail
usage() {
  echo "usage: $0 SUITE.toml OUT_ROOT SHARDS [--gpu[=TYPE]] [--throttle N] [--costs DIR] [--shared]" \
       "[--stop-before S] [SBATCH OPTIONS...] [-- jitbench run args...]" >&2
  exit 2
}
[ $# -ge 3 ] || usage
suite=$1 out_root=$2 shards=$3
shift 3
[[ $shards =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: SHARDS must be a positive integer, got '$shards'" >&2; exit 2; }
[ -f "$suite" ] || { echo "submit.sh: suite file '$suite' does not exist" >&2; exit 2; }

gres=() throttle="" costs="" exclusive=(--exclusive) stop_before=300 sbatch_opts=() run_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --gpu) gres=(--gres=gpu:1) ;;
    --gpu=*) gres=(--gres=gpu:${1#--gpu=}:1) ;;
    --throttle) [ $# -ge 2 ] || usage; throttle=$2; shift ;;
    --throttle=*) throttle=${1#--throttle=} ;;
    --costs) [ $# -ge 2 ] || usage; costs=$2; shift ;;
    --costs=*) costs=${1#--costs=} ;;
    --shared) exclusive=() ;;
    --stop-before) [ $# -ge 2 ] || usage; stop_before=$2; shift ;;
    --stop-before=*) stop_before=${1#--stop-before=} ;;
    --) shift; run_args=("$@"); break ;;
    *) sbatch_opts+=("$1") ;;
  esac
  shift
done
[ -z "$throttle" ] || [[ $throttle =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: --throttle must be a positive integer" >&2; exit 2; }
[[ $stop_before =~ ^[0-9]+$ ]] || { echo "submit.sh: --stop-before must be whole seconds" >&2; exit 2; }
command -v sbatch >/dev/null || { echo "submit.sh: sbatch not found: run this on a Slurm login node" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export JITBENCH=${JITBENCH:-$root/build/jitbench}
[ -x "$JITBENCH" ] || { echo "submit.sh: $JITBENCH is not built (run scripts/setup.sh)" >&2; exit 2; }
export JITBENCH_SUITE=$(cd "$(dirname "$suite")" && pwd)/$(basename "$suite")
mkdir -p "$out_root/slurm"
export JITBENCH_OUT_ROOT=$(cd "$out_root" && pwd)
if [ -n "$costs" ]; then
  costs=$(cd "$costs" && pwd)
  run_args=(--costs "$costs" "${run_args[@]}")
  # The largest shard's expected seconds, from the earlier run's measured case times.
  longest=0
  for k in $(seq "$shards"); do
    s=$("$JITBENCH" plan --suite "$JITBENCH_SUITE" --shard "$k/$shards" --costs "$costs" | sed -n 's/.*expected ~\([0-9]*\) s.*/\1/p')
    [ "${s:-0}" -gt "$longest" ] && longest=$s
  done
  limit_min=$(( (longest * 3 / 2 + 600 + 59) / 60 ))
  sbatch_opts=(--time="$limit_min" "${sbatch_opts[@]}")  # a --time given explicitly comes later and wins
fi
# Extra arguments for every shard's `jitbench run`, one per line.
export JITBENCH_RUN_ARGS=$(printf '%s\n' "${run_args[@]}")
export JITBENCH_SHARDS=$shards

task_opts=(--job-name=jitbench-shards "${gres[@]}" "${exclusive[@]}" --signal=B:TERM@"$stop_before"
           --open-mode=append --chdir="$root" --output="$JITBENCH_OUT_ROOT/slurm/task-%a.out" "${sbatch_opts[@]}")
merge_opts=(--job-name=jitbench-merge --chdir="$root" --output="$JITBENCH_OUT_ROOT/slurm/merge.out"
            "${sbatch_opts[@]}")

# resubmit.sh TASK...: the same array tasks again (a failed or lost shard), then a merge after them.
{
  echo "#!/usr/bin/env bash"
  echo "# Written by submit.sh: resubmits array tasks by index (task I runs shard I+1), then a merge."
  echo "set -euo pipefail"
  echo '[ $# -ge 1 ] || { echo "usage: $0 TASK_INDEX..." >&2; exit 2; }'
  printf 'export JITBENCH=%q JITBENCH_SUITE=%q JITBENCH_OUT_ROOT=%q JITBENCH_RUN_ARGS=%q JITBENCH_SHARDS=%q\n' \
    "$JITBENCH" "$JITBENCH_SUITE" "$JITBENCH_OUT_ROOT" "$JITBENCH_RUN_ARGS" "$JITBENCH_SHARDS"
  printf 'tasks=$(IFS=,; echo "$*")\n'
  printf 'array=$(sbatch --parsable --array="$tasks"'; printf ' %q' "${task_opts[@]}" "$here/shard.sbatch"; printf ')\n'
  printf 'array=${array%%%%;*}\n'
  printf 'merge=$(sbatch --parsable --dependency=afterany:"$array"'; printf ' %q' "${merge_opts[@]}" "$here/merge.sbatch"; printf ')\n'
  printf 'echo "$array ${merge%%%%;*}"\n'
} > "$JITBENCH_OUT_ROOT/slurm/resubmit.sh"
chmod +x "$JITBENCH_OUT_ROOT/slurm/resubmit.sh"

array=$(sbatch --parsable --array=0-$((shards - 1))${throttle:+%$throttle} "${task_opts[@]}" "$here/shard.sbatch")
array=${array%%;*}
merge=$(sbatch --parsable --dependency=afterany:"$array" "${merge_opts[@]}" "$here/merge.sbatch")
merge=${merge%%;*}
echo "$array $merge"
