# deloreis — build, test, benchmark, fuzz and lint targets.
# `make test` is what CI runs (.ci/run); keep it well inside 30 minutes on 2 cores.

GO          ?= go
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
PKGS        := ./...
# Packages whose state is shared between goroutines run again under the race
# detector: every package with tests that starts goroutines, serves, caches
# or sets process-wide state (the GC policy, the build pacing).
RACE_PKGS   := ./lorestore/... ./datalog/... ./world/... ./author/... ./worker/... ./mcpserve/... \
               ./dke/... ./internal/cli/... ./internal/gcpolicy/... ./base/... ./casebook/... ./project/...
# Every go test line names its timeout.
TEST_TIMEOUT ?= 25m
FUZZTIME    ?= 10m
# CI's short fuzz run: each target this long, two at a time.
FUZZ_CI_TIME ?= 10s
# The install of the pinned MCP clients (npm ci writes this file last).
MCP_CLIENTS := contracts/mcp-clients/node_modules/.package-lock.json

.PHONY: build install man test test-all unit race bench-ci fuzz-ci lint vet staticcheck fmtcheck mcp-clients bench bench-large bench-tc bench-scale bench-bulk bench-import bench-dke bench-logshow bench-desk screenshot fuzz demo clean

build:
	$(GO) build $(PKGS)

install:
	CGO_ENABLED=0 $(GO) install ./cmd/deloreis

# The manual pages, docs/man/*.1, from the command tree (cobra's doc
# package). TestManPages, in the unit step, fails when they are not current.
man:
	$(GO) test -count=1 -run '^TestManPages$$' ./internal/cli/ -update

# make test runs everything CI runs in a temporary folder of its own and
# fails when a test leaves a file behind there. It installs the pinned MCP
# clients first when npm is there and the install is older than the
# lockfile (a no-op after the first run).
test:
	@tmp=$$(mktemp -d); \
	TMPDIR=$$tmp $(MAKE) --no-print-directory test-all || { rm -rf "$$tmp"; exit 1; }; \
	left=$$(ls -A "$$tmp"); rm -rf "$$tmp"; \
	if [ -n "$$left" ]; then echo "the tests left files in their temporary folder:"; echo "$$left"; exit 1; fi

test-all: lint $(if $(shell command -v npm 2>/dev/null),$(MCP_CLIENTS)) unit race bench-ci fuzz-ci

unit:
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) $(PKGS)

race:
	$(GO) test -count=1 -race -timeout $(TEST_TIMEOUT) $(RACE_PKGS)

# Every benchmark once, at its smallest size (-short), so that none rots
# unseen; the figures of record come from make bench.
bench-ci:
	$(GO) test -count=1 -short -run '^$$' -bench . -benchtime 1x -timeout $(TEST_TIMEOUT) $(PKGS)

# Every fuzz target for FUZZ_CI_TIME (make fuzz runs each for FUZZTIME).
fuzz-ci:
	GO=$(GO) bench/fuzz.sh $(FUZZ_CI_TIME) 2

lint: fmtcheck vet staticcheck

fmtcheck:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

staticcheck:
	$(STATICCHECK) $(PKGS)

# The real MCP clients internal/cli's TestMCPInspector*, TestMCPConformance and
# TestDKEInspector* run (the MCP Inspector, the conformance suite, Node 22), as
# pinned in contracts/mcp-clients/package-lock.json. Without npm those tests
# skip, naming it, and under CI=true they fail (testenv.NeedTool).
mcp-clients:
	cd contracts/mcp-clients && npm ci --ignore-scripts --no-audit --no-fund
	touch $(MCP_CLIENTS)

$(MCP_CLIENTS): contracts/mcp-clients/package-lock.json
	cd contracts/mcp-clients && npm ci --ignore-scripts --no-audit --no-fund
	touch $@

# Benchmarks print their own figures and, where a peer exists here, the peer's
# figure from the same run (real git, encoding/json, gowebpki/jcs).
# Stores are written under the checkout, as a project's .lore/ would be, not
# under /tmp (see DL-0017).
bench:
	@command -v gringo >/dev/null 2>&1 || apt-get install -y -qq gringo >/dev/null 2>&1 || \
	  echo "note: gringo is not installed; the datalog benchmarks report no peer figure"
	mkdir -p .benchtmp
	TMPDIR=$(CURDIR)/.benchtmp $(GO) test -run '^$$' -bench . -benchmem -count=5 -timeout 120m $(PKGS)

# check and import --materialize on a generated 50 MB .dli file: wall time
# and peak RSS of each (issue 8 item 7). LARGE_MB sets the size.
LARGE_MB ?= 50
bench-large:
	bench/check-large.sh $(LARGE_MB)

# Transitive closure as whole processes in one interleaved run (issue 34):
# ours at GOMAXPROCS=1 and 2, Soufflé compiled (-j1, -j2) and its interpreter
# when a souffle binary is on PATH (DL-0495 says how it is built), and
# gringo, on grid TC_W×TC_W and on a chain of TC_CHAIN nodes: medians of
# TC_REPS rounds of wall time and peak RSS, the ratios issue 34 sets goals
# for, and bytes per tuple with provenance on TC_PROV_W×TC_PROV_W (issue 13).
# The peers' files and Soufflé's compiled program stay in .benchtmp/tcpeers.
TC_W      ?= 100
TC_CHAIN  ?= 2000
TC_REPS   ?= 3
TC_PROV_W ?= 50
bench-tc:
	@command -v gringo >/dev/null 2>&1 || apt-get install -y -qq gringo >/dev/null 2>&1 || \
	  echo "note: gringo is not installed; the benchmark reports no gringo figure"
	mkdir -p .benchtmp
	$(GO) build -o .benchtmp/tcgrid ./bench/tcgrid
	.benchtmp/tcgrid -w $(TC_W) -chain $(TC_CHAIN) -reps $(TC_REPS) -prov-w $(TC_PROV_W) -workdir .benchtmp/tcpeers

# Stores of SCALE lore objects in one commit with an 18-rule world (issue 13):
# build, cold open, staged add p50/p99, log/show against git, bytes per
# object against git repack -adf. SCALE=10M for the 10M store, 100k for a
# quick run (a comma list runs several). IMPORT_FLAGS are the build's
# `deloreis import` flags (the streaming bulk import by default); a measured
# process past MAXRSS, or running past MAXTIME, is killed. Not part of make test.
# The first open's table gives the first compile's phases (DL-0503); FIRST=3
# measures the first compile alone, three times, over the store a run with
# KEEP=1 left under .benchtmp/scale (building and keeping one if none).
SCALE ?= 1M,3M
FIRST ?= 0
KEEP ?= 0
IMPORT_FLAGS ?= --bulk --materialize
MAXRSS ?= 6G
MAXTIME ?= 45m
bench-scale:
	mkdir -p .benchtmp
	TMPDIR=$(CURDIR)/.benchtmp $(GO) run ./bench/scale -scale '$(SCALE)' -import-flags '$(IMPORT_FLAGS)' -maxrss '$(MAXRSS)' -maxtime '$(MAXTIME)' -first '$(FIRST)' -keep=$(if $(filter 1,$(KEEP)),true,false)

# The streaming bulk import against git fast-import at 100k, then 1M
# streamed from the generator (SCALE=10M adds the 10M run).
bench-bulk:
	bench/bulk.sh

# The ordinary import (issue 34): `deloreis import FILE --materialize` of a
# generated N-declaration file (persons, places, facts, relations and five
# rules) as one process: wall time and peak RSS. RUNS=3 repeats it;
# PROFILE=1 leaves a CPU and a heap profile (DELOREIS_CPUPROFILE).
N ?= 300k
bench-import:
	bench/import.sh $(N)

# DKE rules as whole processes through the service: a repeated query over
# 100,000 claims and a two-variable comparison at 1k, 10k and 100k values
# (DL-0505).
bench-dke:
	$(GO) run ./bench/dkerules

# deloreis log -n 2 and show against git on a store of N facts (N=3000000
# for issue 13's figure; STORE=dir reuses a store the script built).
bench-logshow:
	bench/logshow.sh

# The desk's workspace page over a 100,000-fact world: the median time
# to serve it (ms/page-median), beside Go's mean (issue 35).
bench-desk:
	$(GO) test -run '^$$' -bench BenchmarkWorkspacePage100k -benchtime 30x -count=1 -timeout 20m ./desk/

# docs/desk.png, the README's picture of the reviewer's desk, as the browser
# test takes it (needs Debian's chromium; not compared byte for byte).
screenshot:
	DESK_SCREENSHOT=$(CURDIR)/docs/desk.png $(GO) test -count=1 -run '^TestReviewDeskInBrowser$$' -timeout 10m ./internal/cli/

# Every fuzz target for FUZZTIME (10 minutes unless set), one at a time; a
# failing input is left under the package's testdata/fuzz/ as a seed.
fuzz:
	GO=$(GO) bench/fuzz.sh $(FUZZTIME) 1

demo:
	$(GO) run ./cmd/deloreis demo

clean:
	$(GO) clean -testcache
