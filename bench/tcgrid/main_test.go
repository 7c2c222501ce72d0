package main

import (
	"os/exec"
	"slices"
	"testing"
	"time"
)

func TestEdges(t *testing.T) {
	tests := []struct {
		wl         workload
		edges      int
		first, end [2]int
	}{
		{workload{"grid", 3}, 12, [2]int{0, 1}, [2]int{7, 8}},
		{workload{"chain", 4}, 3, [2]int{0, 1}, [2]int{2, 3}},
		{workload{"chain", 2000}, 1999, [2]int{0, 1}, [2]int{1998, 1999}},
	}
	for _, tt := range tests {
		es, err := tt.wl.edges()
		if err != nil {
			t.Fatalf("%s: %v", tt.wl, err)
		}
		if len(es) != tt.edges || es[0] != tt.first || es[len(es)-1] != tt.end {
			t.Errorf("%s: %d edges %v..%v, want %d %v..%v", tt.wl, len(es), es[0], es[len(es)-1], tt.edges, tt.first, tt.end)
		}
	}
	if _, err := (workload{"ring", 3}).edges(); err == nil {
		t.Error("unknown shape: no error")
	}
}

func TestSchedule(t *testing.T) {
	cs := []contestant{{key: "a"}, {key: "b"}, {key: "slow", once: true}, {key: "c"}}
	tests := []struct {
		reps int
		want []int
	}{
		{1, []int{0, 1, 2, 3}},
		{3, []int{0, 1, 2, 3, 0, 1, 3, 0, 1, 3}},
	}
	for _, tt := range tests {
		if got := schedule(cs, tt.reps); !slices.Equal(got, tt.want) {
			t.Errorf("reps %d: %v, want %v", tt.reps, got, tt.want)
		}
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		xs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{5}, 5},
		{[]float64{9, 1, 4}, 4},
		{[]float64{4, 1, 3, 2}, 2.5},
	}
	for _, tt := range tests {
		if got := median(tt.xs); got != tt.want {
			t.Errorf("median(%v) = %v, want %v", tt.xs, got, tt.want)
		}
	}
}

func TestRoundRatios(t *testing.T) {
	tests := []struct {
		a, b, want []float64
	}{
		{nil, nil, nil},
		{[]float64{10, 9}, []float64{5, 6}, []float64{2, 1.5}},
		{[]float64{10, 9, 8}, []float64{4}, []float64{2.5}}, // only the rounds both ran
		{[]float64{10, 9}, []float64{0, 3}, []float64{3}},   // a run with no time is left out
	}
	for _, tt := range tests {
		if got := roundRatios(tt.a, tt.b); !slices.Equal(got, tt.want) {
			t.Errorf("roundRatios(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestParsePrintSize(t *testing.T) {
	tests := []struct {
		out     string
		want    int
		wantErr bool
	}{
		{"path\t25502500\n", 25502500, false},
		{"edge\t3\npath\t6\n", 6, false},
		{"pathx\t6\n", 0, true},
		{"", 0, true},
	}
	for _, tt := range tests {
		got, err := parsePrintSize(tt.out, "path")
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("parsePrintSize(%q) = %d, %v; want %d, error %v", tt.out, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestSameTuples(t *testing.T) {
	ours := summary{name: "ours", tuples: 6}
	tests := []struct {
		peer    summary
		wantErr bool
	}{
		{summary{name: "souffle", tuples: 6}, false},
		{summary{name: "gringo", tuples: -1}, false},
		{summary{name: "souffle", tuples: 5}, true},
	}
	for _, tt := range tests {
		if err := sameTuples([]summary{ours, tt.peer}); (err != nil) != tt.wantErr {
			t.Errorf("%+v: error %v, want error %v", tt.peer, err, tt.wantErr)
		}
	}
}

// TestMeasureCPU measures a child that only computes, and one that only
// sleeps: CPU time from rusage is the child's, not its wall time.
func TestMeasureCPU(t *testing.T) {
	tests := []struct {
		name   string
		script string
		busy   bool
	}{
		{"busy", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done", true},
		{"sleeping", "sleep 0.3", false},
	}
	for _, tt := range tests {
		s, err := measure(exec.Command("sh", "-c", tt.script), nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		// The busy loop takes about half a second of CPU however loaded
		// the machine; sleep takes next to none, whatever its wall time.
		if busy := s.cpu >= 100*time.Millisecond; busy != tt.busy {
			t.Errorf("%s: CPU %v (wall %v), busy %v", tt.name, s.cpu, s.wall, tt.busy)
		}
		if s.peakKB <= 0 {
			t.Errorf("%s: peak RSS %d KiB", tt.name, s.peakKB)
		}
	}
}
