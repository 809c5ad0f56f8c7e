#!/usr/bin/env bash
# What `jitbench merge` costs as a plan grows: N native cases (mc_pi and null
# at N/2 sizes, 1 cold + 1 warm process each: quick to measure, a full set of
# artifacts and logs per case) run as S shards, then merged REPEAT times;
# prints the merge wall time and peak RSS of each repeat and `validate`'s time
# on the result. docs/scale-out.md has the numbers.
# Usage: bench/merge_scale.sh [CASES=200] [SHARDS=4] [REPEAT=3]   (after scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-200} shards=${2:-4} repeat=${3:-3}
J=$PWD/build/jitbench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sizes=$(seq -s, 1000 10 $((1000 + 10 * (cases / 2 - 1))))
cat > "$tmp/many.toml" <<TOML
[suite]
name = "merge-scale"
cold_runs = 1
warm_iters = 1
[[matrix]]
backends = ["native"]
workloads = ["mc_pi", "null"]
sizes = [$sizes]
dtypes = ["f64"]
TOML
dirs=()
for k in $(seq "$shards"); do
  "$J" run --suite "$tmp/many.toml" --shard "$k/$shards" --out-dir "$tmp/s$k" --quiet --ceilings off >/dev/null
  dirs+=("$tmp/s$k")
done
echo "| merge of $cases cases from $shards shards | wall | peak RSS |"
echo "|---|---|---|"
for i in $(seq "$repeat"); do
  rm -rf "$tmp/merged"
  /usr/bin/time -f "| repeat $i | %e s | %M KiB |" "$J" merge "$tmp/merged" "${dirs[@]}" 2>&1 >/dev/null | tail -1
done
/usr/bin/time -f "validate of the merged run: %e s" "$J" validate "$tmp/merged" 2>&1 >/dev/null | tail -1
echo "merged out dir: $(du -sh "$tmp/merged" | cut -f1), $(ls "$tmp/merged/cases" | wc -l) case files"
