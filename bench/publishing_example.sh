#!/usr/bin/env bash
# The real example of docs/publishing.md: two snapshots of the default suite
# published into one site (each signed), a screenshot of the site, and a
# replication of the first snapshot with its verdict.
#
#   bench/publishing_example.sh WORK_DIR [SCREENSHOT.png]
#
# WORK_DIR must not exist. Uses build/jitbench (JITBENCH overrides) and a fresh
# ed25519 key made for the example. Prints every command's last lines and the
# wall time of each step.
set -euo pipefail
cd "$(dirname "$0")/.."
J=${JITBENCH:-$PWD/build/jitbench}
W=${1:?usage: bench/publishing_example.sh WORK_DIR [SCREENSHOT.png]}
SHOT=${2:-}
[ ! -e "$W" ] || { echo "publishing_example: $W exists; give a new directory" >&2; exit 2; }
mkdir -p "$W"
step() { local t0=$SECONDS; echo "\$ $*"; "$@" 2>&1 | tail -n 4; echo "  (${PIPESTATUS[0]}; $((SECONDS - t0)) s)"; }

ssh-keygen -q -t ed25519 -N "" -C "example signer" -f "$W/key"
echo "example@jitbench $(cut -d' ' -f1,2 "$W/key.pub")" > "$W/allowed_signers"
for week in 1 2; do
  step "$J" run --machine example-2core --out-dir "$W/week$week" --quiet
  step "$J" sign "$W/week$week" --key "$W/key"
  step "$J" publish "$W/week$week" --to "$W/site" --allowed-signers "$W/allowed_signers"
done
first=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["snapshots"][0]["path"])' "$W/site/registry.json")
set +e
step "$J" replicate "$W/site/$first" --out-dir "$W/replica" --allowed-signers "$W/allowed_signers" --quiet
set -e
step "$J" verify "$W/site/$first/run" --allowed-signers "$W/allowed_signers"
if [ -n "$SHOT" ] && command -v chromium >/dev/null; then
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,1500 \
    --screenshot="$SHOT" "file://$(realpath "$W/site/index.html")" >/dev/null 2>&1
  echo "screenshot: $SHOT"
fi
