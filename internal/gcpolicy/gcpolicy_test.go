package gcpolicy

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestDecide(t *testing.T) {
	const gib = 1 << 30
	cases := []struct {
		name      string
		env       map[string]string
		mem       uint64
		gc        int
		gcFrom    string
		limit     int64
		limitFrom string
	}{
		{"no env", nil, 16 * gib, GCPercent, FromPolicy, 8 * gib, FromPolicy},
		{"odd size", nil, 3*gib + 1, GCPercent, FromPolicy, (3*gib + 1) / 2, FromPolicy},
		{"tiny machine", nil, 128 << 20, GCPercent, FromPolicy, MinMemoryLimit, FromPolicy},
		{"memory unknown", nil, 0, 100, FromDefault, NoLimit, FromDefault},
		{"GOGC", map[string]string{"GOGC": "150"}, 16 * gib, -2, FromEnv, 8 * gib, FromPolicy},
		{"GOGC off", map[string]string{"GOGC": "off"}, 16 * gib, -2, FromEnv, 8 * gib, FromPolicy},
		{"GOGC blank", map[string]string{"GOGC": "  "}, 16 * gib, GCPercent, FromPolicy, 8 * gib, FromPolicy},
		{"GOMEMLIMIT", map[string]string{"GOMEMLIMIT": "1GiB"}, 16 * gib, GCPercent, FromPolicy, -2, FromEnv},
		{"GOMEMLIMIT, memory unknown", map[string]string{"GOMEMLIMIT": "1GiB"}, 0, GCPercent, FromPolicy, -2, FromEnv},
		{"both", map[string]string{"GOGC": "50", "GOMEMLIMIT": "off"}, 16 * gib, -2, FromEnv, -2, FromEnv},
		{"GOGC, memory unknown", map[string]string{"GOGC": "50"}, 0, -2, FromEnv, NoLimit, FromDefault},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := Decide(func(k string) string { return c.env[k] }, c.mem)
			want := Policy{GCPercent: c.gc, GCPercentFrom: c.gcFrom, MemoryLimit: c.limit, MemoryLimitFrom: c.limitFrom}
			if p != want {
				t.Errorf("Decide = %+v, want %+v", p, want)
			}
		})
	}
}

// TestApply: what the policy sets is what the runtime then runs with, and
// a knob the environment set is read back, not changed.
func TestApply(t *testing.T) {
	oldGC, oldLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(NoLimit)
	t.Cleanup(func() { debug.SetGCPercent(oldGC); debug.SetMemoryLimit(oldLimit) })

	got := Apply(Policy{GCPercent: 321, GCPercentFrom: FromPolicy, MemoryLimit: 3 << 30, MemoryLimitFrom: FromPolicy})
	if gc, limit := InForce(); gc != 321 || limit != 3<<30 || got.GCPercent != 321 || got.MemoryLimit != 3<<30 {
		t.Errorf("after Apply: runtime %d/%d, reported %+v; want 321 and 3 GiB", gc, limit, got)
	}
	debug.SetGCPercent(77)
	debug.SetMemoryLimit(1 << 30)
	got = Apply(Policy{GCPercent: -2, GCPercentFrom: FromEnv, MemoryLimit: -2, MemoryLimitFrom: FromEnv})
	if gc, limit := InForce(); gc != 77 || limit != 1<<30 || got.GCPercent != 77 || got.MemoryLimit != 1<<30 {
		t.Errorf("env knobs: runtime %d/%d, reported %+v; want 77 and 1 GiB untouched", gc, limit, got)
	}
	debug.SetGCPercent(-1)
	if gc, _ := InForce(); gc != -1 {
		t.Errorf("GC off reads as %d, want -1", gc)
	}
}

func TestMachineMemory(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	saved := [3]string{procMeminfo, cgroupV2Max, cgroupV1Limit}
	t.Cleanup(func() { procMeminfo, cgroupV2Max, cgroupV1Limit = saved[0], saved[1], saved[2] })
	meminfo := write("meminfo", "MemTotal:       24731184 kB\nMemFree:        15266176 kB\n")
	cases := []struct {
		name         string
		info, v2, v1 string
		want         uint64
	}{
		{"total only", meminfo, "", "", 24731184 << 10},
		{"v2 max", meminfo, write("v2max", "max\n"), "", 24731184 << 10},
		{"v2 limit", meminfo, write("v2lim", "4294967296\n"), "", 4 << 30},
		{"v1 unlimited", meminfo, "", write("v1un", "9223372036854771712\n"), 24731184 << 10},
		{"v1 limit", meminfo, "", write("v1lim", "2147483648"), 2 << 30},
		{"no meminfo, v2 limit", filepath.Join(dir, "none"), write("v2b", "1073741824"), "", 1 << 30},
		{"nothing", filepath.Join(dir, "none"), "", "", 0},
		{"bad meminfo", write("bad", "MemTotal: lots\n"), "", "", 0},
		{"meminfo in MB", write("mb", "MemTotal: 100 MB\n"), "", "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			none := filepath.Join(dir, "absent")
			procMeminfo, cgroupV2Max, cgroupV1Limit = c.info, none, none
			if c.v2 != "" {
				cgroupV2Max = c.v2
			}
			if c.v1 != "" {
				cgroupV1Limit = c.v1
			}
			if got := MachineMemory(); got != c.want {
				t.Errorf("MachineMemory = %d, want %d", got, c.want)
			}
		})
	}
}

func TestGCShare(t *testing.T) {
	from := Stats{GCCPU: 1, GCIdleCPU: 0.5, UserCPU: 10, ScavengeCPU: 0.1}
	cases := []struct {
		name           string
		to             Stats
		withIdle, busy float64
	}{
		{"no work", from, 0, 0},
		{"no GC", Stats{GCCPU: 1, GCIdleCPU: 0.5, UserCPU: 14, ScavengeCPU: 0.1}, 0, 0},
		{"busy GC", Stats{GCCPU: 2, GCIdleCPU: 0.5, UserCPU: 13, ScavengeCPU: 0.1}, 0.25, 0.25},
		{"idle GC", Stats{GCCPU: 3, GCIdleCPU: 1.5, UserCPU: 12, ScavengeCPU: 0.1}, 0.5, 1.0 / 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, b := GCShare(from, c.to)
			if !near(w, c.withIdle) || !near(b, c.busy) {
				t.Errorf("GCShare = %.4f, %.4f; want %.4f, %.4f", w, b, c.withIdle, c.busy)
			}
		})
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// TestStartServerReport: the report file gets a start line with the
// policy in force, a line per SIGUSR1, and a stop line.
func TestStartServerReport(t *testing.T) {
	oldGC, oldLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(NoLimit)
	t.Cleanup(func() { debug.SetGCPercent(oldGC); debug.SetMemoryLimit(oldLimit) })
	report := filepath.Join(t.TempDir(), "gc.jsonl")
	t.Setenv(ReportEnv, report)
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	stop := StartServer(os.Stderr)
	stop()
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if !bytesHasLines(data, `"event":"start"`, `"event":"stop"`) {
		t.Fatalf("report:\n%s", data)
	}
	if MachineMemory() > 0 {
		if gc, limit := InForce(); gc != GCPercent || limit == NoLimit {
			t.Errorf("after StartServer: GOGC %d, limit %d; want %d and a limit", gc, limit, GCPercent)
		}
	}
}

func bytesHasLines(data []byte, subs ...string) bool {
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != len(subs) {
		return false
	}
	for i, s := range subs {
		if !strings.Contains(lines[i], s) {
			return false
		}
	}
	return true
}
