package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deloreis/deloreis/internal/gcpolicy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverEnv is the environment of a server subprocess: this process's
// minus the GC knobs and the report file, plus extra.
func serverEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != "GOGC" && k != "GOMEMLIMIT" && k != gcpolicy.ReportEnv {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// gcReports reads the JSON lines a server wrote to its report file.
func gcReports(t testing.TB, path string) []gcpolicy.Stats {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []gcpolicy.Stats
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var s gcpolicy.Stats
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("report line %q: %v", line, err)
		}
		out = append(out, s)
	}
	return out
}

// TestServerGCPolicy: each long-lived server process (serve, mcp, dke mcp)
// runs with the policy, and an explicit GOGC or GOMEMLIMIT is left as the
// user set it. The processes report what their runtime really runs with.
func TestServerGCPolicy(t *testing.T) {
	limit := gcpolicy.Decide(func(string) string { return "" }, gcpolicy.MachineMemory()).MemoryLimit
	if limit <= 0 || limit == gcpolicy.NoLimit {
		t.Fatalf("no memory limit derived from this machine's memory (%d bytes)", gcpolicy.MachineMemory())
	}
	cases := []struct {
		name      string
		args      []string
		env       []string
		gc        int
		gcFrom    string
		limit     int64
		limitFrom string
	}{
		{"serve", []string{"serve", "--demo"}, nil, gcpolicy.GCPercent, gcpolicy.FromPolicy, limit, gcpolicy.FromPolicy},
		{"mcp", []string{"mcp", "--demo"}, nil, gcpolicy.GCPercent, gcpolicy.FromPolicy, limit, gcpolicy.FromPolicy},
		{"dke mcp", []string{"dke", "mcp"}, nil, gcpolicy.GCPercent, gcpolicy.FromPolicy, limit, gcpolicy.FromPolicy},
		{"GOGC", []string{"serve", "--demo"}, []string{"GOGC=150"}, 150, gcpolicy.FromEnv, limit, gcpolicy.FromPolicy},
		{"GOGC off", []string{"mcp", "--demo"}, []string{"GOGC=off"}, -1, gcpolicy.FromEnv, limit, gcpolicy.FromPolicy},
		{"GOMEMLIMIT", []string{"serve", "--demo"}, []string{"GOMEMLIMIT=300MiB"}, gcpolicy.GCPercent, gcpolicy.FromPolicy, 300 << 20, gcpolicy.FromEnv},
		{"both", []string{"serve", "--demo"}, []string{"GOGC=70", "GOMEMLIMIT=off"}, 70, gcpolicy.FromEnv, gcpolicy.NoLimit, gcpolicy.FromEnv},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			report := filepath.Join(t.TempDir(), "gc.jsonl")
			cmd := exec.Command(binary(t), c.args...)
			cmd.Env = serverEnv(append(c.env, gcpolicy.ReportEnv+"="+report)...)
			cmd.Stdin = strings.NewReader("") // the session ends at once
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v: %v\n%s", c.args, err, out)
			}
			lines := gcReports(t, report)
			if len(lines) != 2 || lines[0].Event != "start" || lines[1].Event != "stop" {
				t.Fatalf("report lines %+v, want start and stop", lines)
			}
			for _, s := range lines {
				if s.GCPercent != c.gc || s.GCPercentFrom != c.gcFrom || s.MemoryLimit != c.limit || s.MemoryLimitFrom != c.limitFrom {
					t.Errorf("%s: GOGC %d (%s), limit %d (%s); want %d (%s), %d (%s)", s.Event,
						s.GCPercent, s.GCPercentFrom, s.MemoryLimit, s.MemoryLimitFrom, c.gc, c.gcFrom, c.limit, c.limitFrom)
				}
			}
		})
	}
}

var (
	gcFacts    = flag.Int("gcfacts", 100_000, "facts in the world of BenchmarkServerGC")
	gcCalls    = flag.Int("gccalls", 5_000, "staged adds a BenchmarkServerGC run times")
	gcMemLimit = flag.String("gcmemlimit", "", "a GOMEMLIMIT for BenchmarkServerGC's policy runs (to bound a big run)")
)

// BenchmarkServerGC (DL-0295): -gccalls (5,000) staged adds (author.add_fact) on a
// -gcfacts world through `deloreis serve` and `deloreis mcp` as
// subprocesses, under Go's defaults (GOGC=100, no memory limit) and under
// the server GC policy, reporting the median and p99 of a call and the
// collector's share of the CPU the server used during the calls (opening
// the workspace, the compile, is outside both). -gcfacts sets the world's
// size; -gcmemlimit bounds the policy runs of a big one.
func BenchmarkServerGC(b *testing.B) {
	dir := factProject(b, *gcFacts)
	calls := *gcCalls
	persons := max(1, *gcFacts/10)
	for _, transport := range []string{"serve", "mcp"} {
		policyEnv := ""
		if *gcMemLimit != "" {
			policyEnv = "GOMEMLIMIT=" + *gcMemLimit
		}
		for _, pol := range []struct{ name, env string }{{"go-default", "GOGC=100 GOMEMLIMIT=off"}, {"policy", policyEnv}} {
			b.Run(transport+"/"+pol.name, func(b *testing.B) {
				for it := 0; it < b.N; it++ {
					report := filepath.Join(b.TempDir(), "gc.jsonl")
					env := serverEnv(append(strings.Fields(pol.env), gcpolicy.ReportEnv+"="+report)...)
					call, pid, stop := stagingClient(b, transport, dir, env)
					lat := make([]time.Duration, calls)
					mark(b, pid, report, 2) // start + this one: the calls begin here
					for i := range calls {
						t := time.Now()
						call(fmt.Sprintf("p-%d", i%persons), fmt.Sprintf("w%d", i))
						lat[i] = time.Since(t)
					}
					mark(b, pid, report, 3)
					stop()
					r := gcReports(b, report)
					slices.Sort(lat)
					withIdle, busy := gcpolicy.GCShare(r[1], r[2])
					b.ReportMetric(float64(lat[calls/2].Microseconds())/1000, "ms/call-median")
					b.ReportMetric(float64(lat[calls*99/100].Microseconds())/1000, "ms/call-p99")
					b.ReportMetric(100*withIdle, "%gc-cpu")
					b.ReportMetric(100*busy, "%gc-cpu-no-idle")
					b.ReportMetric(float64(r[2].GCCycles-r[1].GCCycles), "gc-cycles")
					b.ReportMetric(float64(r[2].HeapLive)/(1<<20), "MiB-live")
					b.ReportMetric(float64(r[2].Mapped)/(1<<20), "MiB-mapped")
				}
			})
		}
	}
}

// mark asks the server for a report line and waits until its file holds n.
func mark(b *testing.B, pid int, report string, n int) {
	b.Helper()
	if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
		b.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if data, _ := os.ReadFile(report); strings.Count(string(data), "\n") >= n {
			return
		}
	}
	b.Fatalf("the server wrote no report line %d", n)
}

// stagingClient starts a server on the project dir over transport,
// opens a workspace on "big", and returns a staged-add call, the server's
// process id and what stops it.
func stagingClient(b *testing.B, transport, dir string, env []string) (call func(entity, value string), pid int, stop func()) {
	args := func(ws, entity, value string) map[string]any {
		return map[string]any{"workspace": ws, "entity": entity, "key": "staged", "value": value,
			"provenance": map[string]any{"kind": "proposed", "origin": "bench"}}
	}
	if transport == "serve" {
		cmd := exec.Command(binary(b), "serve", "--project", dir)
		cmd.Env, cmd.Stderr = env, os.Stderr
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		s := &server{t: b, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
		b.Cleanup(s.stop)
		ws := s.callJSON("o", "author.open", map[string]any{"scope": "big"})["workspace"].(string)
		n := 0
		return func(entity, value string) {
			n++
			if m := s.callJSON(fmt.Sprint("s", n), "author.add_fact", args(ws, entity, value)); m["ok"] != true {
				b.Fatalf("add_fact: %v", m)
			}
		}, cmd.Process.Pid, s.stop
	}
	ctx := context.Background()
	cmd := exec.Command(binary(b), "mcp", "--project", dir)
	cmd.Env = env
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	tool := func(name string, a map[string]any) map[string]any {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: a})
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %+v", name, err, res)
		}
		return res.StructuredContent.(map[string]any)
	}
	ws := tool("author_open", map[string]any{"scope": "big"})["workspace"].(string)
	return func(entity, value string) { tool("author_add_fact", args(ws, entity, value)) },
		cmd.Process.Pid, func() { cs.Close() }
}
