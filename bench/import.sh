#!/usr/bin/env bash
# The ordinary import (issue 34 goal 3) as one whole process: a generated
# .dli file of N declarations — persons, places, one fact and one relation
# per person from bench/bigdli, and five rules over them (a recursion, two
# negations) — imported with `deloreis import FILE --materialize` (not
# --bulk) into a fresh store. Prints the child's wall time, CPU time (user
# plus system: the machine is shared, so wall time is noisy) and peak RSS
# (ru_maxrss, from /usr/bin/time), the summary's first lines, and, with
# PROFILE=1, leaves a CPU and a heap profile beside the figures.
#
#   bench/import.sh 300k          make bench-import N=300k
#   bench/import.sh 3M            make bench-import N=3M   (goal: < 30 s, < 1.5 GB)
#   RUNS=3 PROFILE=1 bench/import.sh 3M
set -euo pipefail
# A commit needs an identity (DL-0458); the one set, else this.
export DELOREIS_AUTHOR="${DELOREIS_AUTHOR:-deloreis bench <bench@deloreis.invalid>}"
cd "$(dirname "$0")/.."
label=${1:-300k}
case $label in
  *k|*K) n=$(( ${label%[kK]} * 1000 )) ;;
  *M) n=$(( ${label%M} * 1000000 )) ;;
  *[!0-9]*|'') echo "bench/import.sh: size $label is not a count (300k, 3M, 12345)" >&2; exit 2 ;;
  *) n=$label ;;
esac
runs=${RUNS:-1}
mkdir -p .benchtmp # stores under the checkout, as a project's .lore/ would be (DL-0017)
work=$(mktemp -d "$PWD/.benchtmp/import-XXXXXX")
out=${PROFILE_DIR:-$work}
[ "${KEEP:-}" = 1 ] || trap 'rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -o "$work/deloreis" ./cmd/deloreis # as README installs it (DL-0333)
go build -o "$work/bigdli" ./bench/bigdli
rules=5
"$work/bigdli" -n $((n - rules)) > "$work/in.dli"
cat >> "$work/in.dli" <<'RULES'
rule garrisoned: garrisoned(Y) :- serves(X, Y)  proposed session-7c9
rule reach-base: reach(X, Y) :- serves(X, Y)  proposed session-7c9
rule reach-step: reach(X, Z) :- reach(X, Y), serves(Y, Z)  proposed session-7c9
rule unsworn: unsworn(X) :- person(X), not reach(X, place-0)  proposed session-7c9
rule deserted: deserted(Y) :- place(Y), not garrisoned(Y)  proposed session-7c9
RULES
echo "bench-import: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $(git rev-parse --short HEAD)"
echo "file: $n declarations, $(( $(wc -c < "$work/in.dli") / 1048576 )) MiB"
for i in $(seq "$runs"); do
  rm -rf "$work/p"
  "$work/deloreis" init --project "$work/p" --scope big > /dev/null
  prof=()
  if [ "${PROFILE:-}" = 1 ]; then
    prof=(env "DELOREIS_CPUPROFILE=$out/cpu-$label.pprof" "DELOREIS_HEAPPROFILE=$out/heap-$label.pprof")
  fi
  rc=0
  /usr/bin/time -f '%e %M %U %S' -o "$work/time" "${prof[@]}" "$work/deloreis" import --project "$work/p" --materialize "$work/in.dli" > "$work/out" 2> "$work/err" || rc=$?
  read -r wall rss usr sys < <(tail -n1 "$work/time")
  printf 'import --materialize %s, run %d: exit %d  wall %6.2f s  cpu %6.2f s  peak RSS %5d MiB  (%d lines printed)\n' \
    "$label" "$i" "$rc" "$wall" "$(awk "BEGIN{print $usr + $sys}")" $((rss / 1024)) "$(wc -l < "$work/out")"
  if [ "$rc" != 0 ]; then cat "$work/err" >&2; exit 1; fi
done
head -n 4 "$work/out" | cut -c1-160
if [ "${PROFILE:-}" = 1 ]; then echo "profiles: $out/cpu-$label.pprof $out/heap-$label.pprof"; fi
