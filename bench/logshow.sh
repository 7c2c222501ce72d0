#!/usr/bin/env bash
# Measures `deloreis log -n 2` and `deloreis show` of the head commit against
# git on one store of N facts (issue 13, goal 5: within 2x of `git log` /
# `git show --name-status` as whole processes). Prints median wall and CPU
# time and peak RSS of each over RUNS fresh processes.
#
#   bench/logshow.sh                 # N=1000000
#   N=3000000 bench/logshow.sh       # the issue's figure
#   STORE=/path RUNS=15 bench/logshow.sh
#   DEMO=1 RUNS=60 bench/logshow.sh  # issue 31: log -n 2 on the demo world's store
#
# The store is built once (about 7 s and 350 MB per million facts) under
# $TMPDIR/deloreis-logshow-N and reused by later runs with the same N.
set -euo pipefail
# A commit needs an identity (DL-0458); the one set, else this.
export DELOREIS_AUTHOR="${DELOREIS_AUTHOR:-deloreis bench <bench@deloreis.invalid>}"
cd "$(dirname "$0")/.."
n=${N:-1000000}
runs=${RUNS:-9}
work=$(mktemp -d "${TMPDIR:-/tmp}/deloreis-logshow-bin-XXXXXX")
trap 'rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -o "$work/deloreis" ./cmd/deloreis # as README installs it (DL-0333)
go build -o "$work/logshow" ./bench/logshow
args=(-deloreis "$work/deloreis" -n "$n" -runs "$runs")
if [[ -n ${DEMO:-} ]]; then args+=(-demo); fi
if [[ -n ${STORE:-} ]]; then args+=(-store "$STORE"); fi
"$work/logshow" -build-only "${args[@]}" # in its own process: see bench/logshow/main.go
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); git $(git --version | cut -d' ' -f3)"
"$work/logshow" "${args[@]}" | grep -v '^store: reusing'

