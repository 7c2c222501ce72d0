#!/usr/bin/env bash
# Run every Go fuzz target in the module for a set time, JOBS at a time,
# each with one worker: `bench/fuzz.sh 20s 2` is CI's short run (make
# fuzz-ci), `bench/fuzz.sh 10m 1` the long one (make fuzz). A target that
# finds a failure stops the run with its output; the failing input is left
# under the package's testdata/fuzz/ as a seed, as `go test -fuzz` leaves it.
#
# Minimizing a new input is capped at ten runs (-fuzzminimizetime=10x): the
# slow targets (FuzzParams, FuzzToolArgs) otherwise spend their time there.
# Go 1.26's fuzzing coordinator can fail a target at the end of -fuzztime
# with a bare "context deadline exceeded" and no input written
# (golang/go#75804, fixed in Go 1.27); such a run is retried, twice at most,
# and a failure that wrote an input never is (DL-0434).
set -euo pipefail
cd "$(dirname "$0")/.."
time=${1:-20s}
jobs=${2:-2}
go=${GO:-go}

# The targets are read from the test files (a function FuzzX taking a
# *testing.F), not listed by `go test -list`, which links every package's
# test binary to print its names: 33 s of a warm CI run.
pairs=$(mktemp)
trap 'rm -f "$pairs"' EXIT
$go list -f '{{.ImportPath}} {{.Dir}}' ./... | while read -r pkg dir; do
  for f in "$dir"/*_test.go; do
    [ -e "$f" ] || continue
    sed -nE 's/^func (Fuzz[A-Za-z0-9_]*)\([A-Za-z_][A-Za-z0-9_]* \*testing\.F\).*/\1/p' "$f"
  done | sed "s|^|$pkg |" >>"$pairs"
done
echo "fuzz: $(wc -l <"$pairs") targets, $time each, $jobs at a time"
# shellcheck disable=SC2016
xargs -P "$jobs" -L 1 sh -c '
  for try in 1 2 3; do
    if out=$('"$go"' test -run "^\$" -fuzz "^$1\$" -fuzztime '"$time"' -fuzzminimizetime 10x -parallel 1 "$0" 2>&1); then
      echo "== ok $0 $1: $(echo "$out" | grep -o "elapsed: [^,]*, execs: [0-9]*" | tail -1)"
      exit 0
    fi
    case "$out" in
    *"Failing input written to"*) break ;;
    *"context deadline exceeded"*) echo "== retry $0 $1: the coordinator deadline race (golang/go#75804), no input written" ;;
    *) break ;;
    esac
  done
  echo "== FAIL $0 $1"; echo "$out"; exit 255
' <"$pairs"
