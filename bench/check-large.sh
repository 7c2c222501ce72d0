#!/usr/bin/env bash
# Measures `deloreis check` and `deloreis import --materialize` on a large
# generated .dli file (issue 8 item 7; target: 50 MB under 15 s within
# 1.5 GB). Prints wall time and peak RSS of each, from /usr/bin/time -v.
#
#   bench/check-large.sh [MB]      (default 50)
set -euo pipefail
# A commit needs an identity (DL-0458); the one set, else this.
export DELOREIS_AUTHOR="${DELOREIS_AUTHOR:-deloreis bench <bench@deloreis.invalid>}"
cd "$(dirname "$0")/.."
mb=${1:-50}
work=$(mktemp -d "${TMPDIR:-/tmp}/deloreis-large-XXXXXX")
trap 'rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -o "$work/deloreis" ./cmd/deloreis # as README installs it (DL-0333)
go run ./bench/bigdli -mb "$mb" > "$work/big.dli"
echo "file: $(wc -c < "$work/big.dli") bytes, $(wc -l < "$work/big.dli") lines"
measure() {
  local name=$1; shift
  local rc=0
  /usr/bin/time -v "$@" > "$work/out" 2> "$work/time" || rc=$?
  local wall rss
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time")
  printf '%-22s exit %d  wall %s  peak RSS %d MB\n' "$name" "$rc" "$wall" $((rss / 1024))
}
measure "check --standalone" "$work/deloreis" check --standalone "$work/big.dli"
"$work/deloreis" init --project "$work/p" --scope big > /dev/null
measure "import --materialize" "$work/deloreis" import --project "$work/p" --materialize "$work/big.dli"
measure "check (over the store)" "$work/deloreis" check --project "$work/p" --store "$work/p/.lore" "$work/big.dli"
