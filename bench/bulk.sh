#!/usr/bin/env bash
# The bulk import (issue 13 goal 4), as whole processes with /usr/bin/time:
#
#   1. a 100k-declaration .dli file: `deloreis import --bulk --materialize`
#      into a fresh store beside `git fast-import` of the same blobs at the
#      same paths in one commit into a fresh bare repository (the stream
#      from bench/fastimport), RUNS times each, alternating; wall time and
#      peak RSS of every run and the medians;
#   2. streaming imports from the generator (`bigdli -n N | deloreis
#      import --bulk --materialize -`) of 1M declarations, and of 10M with
#      SCALE=10M: wall time and peak RSS of the deloreis process.
#
#   bench/bulk.sh            RUNS=5 by default
#   SCALE=10M bench/bulk.sh  also 10M (about a minute of two cores, 1.5 GB of disk)
set -euo pipefail
# A commit needs an identity (DL-0458); the one set, else this.
export DELOREIS_AUTHOR="${DELOREIS_AUTHOR:-deloreis bench <bench@deloreis.invalid>}"
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
mkdir -p .benchtmp
work=$(mktemp -d "$PWD/.benchtmp/bulk-XXXXXX")
trap 'rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -o "$work/deloreis" ./cmd/deloreis # as README installs it (DL-0333)
go build -o "$work/bigdli" ./bench/bigdli
go build -o "$work/fastimport" ./bench/fastimport
"$work/bigdli" -n 100000 > "$work/100k.dli"
"$work/fastimport" "$work/100k.dli" > "$work/100k.fi"

# measure NAME CMD...: one run; prints wall seconds and peak RSS in KB.
measure() {
  local name=$1; shift
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" > "$work/out" 2>&1 || { cat "$work/out"; exit 1; }
  read -r wall rss < "$work/time"
  printf '%-34s wall %6.2f s  peak RSS %5d MB\n' "$name" "$wall" $((rss / 1024))
  echo "$wall $rss" >> "$work/$name.runs"
}

median() { # FILE COLUMN
  sort -n -k"$2" "$1" | awk -v c="$2" '{v[NR]=$c} END {print v[int((NR+1)/2)]}'
}

echo "== 100k declarations, one commit, fresh repository each run ($runs runs each)"
for _ in $(seq "$runs"); do
  rm -rf "$work/p" "$work/fi.git"
  "$work/deloreis" init --project "$work/p" --scope big > /dev/null
  measure deloreis-bulk "$work/deloreis" import --project "$work/p" --bulk --materialize "$work/100k.dli"
  git init -q --bare "$work/fi.git"
  measure git-fast-import sh -c "exec git --git-dir '$work/fi.git' fast-import --quiet < '$work/100k.fi'"
done
if [ "$(git --git-dir "$work/p/.lore" rev-parse main:scopes/big)" != "$(git --git-dir "$work/fi.git" rev-parse main:scopes/big)" ]; then
  echo "the two scope trees differ" >&2; exit 1
fi
for name in deloreis-bulk git-fast-import; do
  printf 'median %-27s wall %6.2f s  peak RSS %5d MB\n' "$name" \
    "$(median "$work/$name.runs" 1)" $(( $(median "$work/$name.runs" 2) / 1024 ))
done

sizes=(1000000)
if [ "${SCALE:-}" = 10M ]; then sizes+=(10000000); fi
for n in "${sizes[@]}"; do
  echo "== streaming import of $n generated declarations (bigdli -n $n | deloreis import --bulk -)"
  rm -rf "$work/p"
  "$work/deloreis" init --project "$work/p" --scope big > /dev/null
  measure "stream-$n" sh -c "'$work/bigdli' -n $n | exec /usr/bin/time -f '%e %M' -o '$work/inner' '$work/deloreis' import --project '$work/p' --bulk --materialize -"
  read -r wall rss < "$work/inner"
  printf '%-34s wall %6.2f s  peak RSS %5d MB  (deloreis alone)\n' "deloreis import --bulk $n" "$wall" $((rss / 1024))
  du -sh "$work/p/.lore/objects/pack" | awk '{print "pack size: " $1}'
done
