#!/usr/bin/env bash
# What durability costs (issue 32 item 1, DL-0413), in one run, on the disk
# TMPDIR is on (default /tmp):
#
#   - one-object commits on a 1,000-object store, 300 each: p50 and p99
#     in µs, durable (the default) and with --no-fsync (Options.NoFsync),
#     beside `git commit` of one staged file under git's own default
#     core.fsync (the commit process alone, its start included), and
#     the start of a git process alone (git rev-parse HEAD);
#   - one bulk commit of 100,000 facts (the import path), durable and
#     not, beside git fast-import of the same blobs at the same paths,
#     in ms.
#
#   bench/durability.sh          one round
#   COUNT=5 bench/durability.sh  five rounds of each, for benchstat
set -euo pipefail
cd "$(dirname "$0")/.."
exec go test -run '^$' -bench '^BenchmarkDurability$' -benchtime 1x -count "${COUNT:-1}" -timeout 30m ./lorestore/
