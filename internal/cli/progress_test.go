package cli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// meterEvent is one thing that happens to a meter at a time after its
// start: a use case's report, a transfer's count, a tick or the end.
type meterEvent struct {
	at          time.Duration
	kind        string // "report", "transfer", "tick", "end"
	msg         string
	done, total float64
}

func TestMeterDraws(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name   string
		events []meterEvent
		want   string
	}{
		{"a quick command draws nothing", []meterEvent{
			{at: 0, kind: "report", msg: "compiling"},
			{at: 400 * ms, kind: "report", msg: "writing", done: 1, total: 9},
			{at: 450 * ms, kind: "end"},
		}, ""},
		{"a transfer counts from zero and ends with done", []meterEvent{
			{at: 600 * ms, kind: "transfer", msg: "writing objects", done: 1, total: 4},
			{at: 800 * ms, kind: "transfer", msg: "writing objects", done: 4, total: 4},
			{at: 900 * ms, kind: "end"},
		}, "\rwriting objects:  25% (1/4)\rwriting objects: 100% (4/4), 20/s\rwriting objects: 100% (4/4), 20/s, done.\n"}, // the rate is to the last count
		{"reports within an interval are not drawn", []meterEvent{
			{at: 600 * ms, kind: "transfer", msg: "receiving objects", done: 1},
			{at: 610 * ms, kind: "transfer", msg: "receiving objects", done: 2},
			{at: 650 * ms, kind: "transfer", msg: "receiving objects", done: 3},
			{at: 699 * ms, kind: "transfer", msg: "receiving objects", done: 4},
			{at: 700 * ms, kind: "transfer", msg: "receiving objects", done: 5},
		}, "\rreceiving objects: 1\rreceiving objects: 5, 50/s"},
		{"a use case's counts are shown from the stage's start", []meterEvent{
			{at: 0, kind: "report", msg: "compiling the world", done: 0},
			{at: 600 * ms, kind: "report", msg: "writing 10 objects", done: 2, total: 12},
			{at: 1600 * ms, kind: "report", msg: "writing 10 objects", done: 7, total: 12},
			{at: 1650 * ms, kind: "end"},
		}, "\rwriting 10 objects: 0.0 s\rwriting 10 objects:  50% (5/10), 5/s\rwriting 10 objects:  50% (5/10), 5/s, done.\n"},
		{"a new stage ends the line before", []meterEvent{
			{at: 0, kind: "report", msg: "compiling the world"},
			{at: 600 * ms, kind: "tick"},
			{at: 650 * ms, kind: "tick"}, // within the interval: not drawn
			{at: 2100 * ms, kind: "tick"},
			{at: 2200 * ms, kind: "report", msg: "writing", done: 1},
			{at: 2300 * ms, kind: "end"},
		}, "\rcompiling the world: 0.6 s\rcompiling the world: 2.1 s\rcompiling the world: 2.2 s, done.\n\rwriting: 0.0 s\rwriting: 0.1 s, done.\n"},
		{"big rates in thousands", []meterEvent{
			{at: 600 * ms, kind: "transfer", msg: "receiving objects", done: 500},
			{at: 800 * ms, kind: "transfer", msg: "receiving objects", done: 1500, total: 1500},
		}, "\rreceiving objects: 500\rreceiving objects: 100% (1500/1500), 7.5k/s"},
		{"nothing after the end", []meterEvent{
			{at: 600 * ms, kind: "transfer", msg: "writing objects", done: 1, total: 2},
			{at: 700 * ms, kind: "end"},
			{at: 800 * ms, kind: "transfer", msg: "writing objects", done: 2, total: 2},
			{at: 900 * ms, kind: "tick"},
			{at: 900 * ms, kind: "end"},
		}, "\rwriting objects:  50% (1/2)\rwriting objects:  50% (1/2), done.\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			t0 := time.Unix(1_700_000_000, 0)
			now := t0
			m := newMeter(&b, func() time.Time { return now }, 100*time.Millisecond, 500*time.Millisecond)
			for _, e := range tc.events {
				now = t0.Add(e.at)
				switch e.kind {
				case "report":
					m.report(e.done, e.total, e.msg)
				case "transfer":
					m.transfer(e.msg, int(e.done), int(e.total))
				case "tick":
					m.tick()
				case "end":
					m.end()
				}
			}
			if got := b.String(); got != tc.want {
				t.Fatalf("drew\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// TestMeterBlanks: a shorter line is padded over the longer one drawn
// before, and the cursor brought back, so ", done." follows the text.
func TestMeterBlanks(t *testing.T) {
	var b bytes.Buffer
	now := time.Unix(0, 0)
	m := newMeter(&b, func() time.Time { return now }, 0, 0)
	m.transfer("resolving", 0, 0)
	now = now.Add(time.Second)
	m.report(0, 0, "x")
	m.end()
	want := "\rresolving: 0.0 s\rresolving: 1.0 s, done.\n\rx: 0.0 s\rx: 0.0 s, done.\n"
	if b.String() != want {
		t.Fatalf("drew %q, want %q", b.String(), want)
	}
	b.Reset()
	m = newMeter(&b, func() time.Time { return now }, 0, 0)
	m.transfer("a long stage name", 5, 0)
	m.transfer("a long stage name", 5, 10)
	if !strings.Contains(b.String(), "(5/10)") {
		t.Fatalf("drew %q", b.String())
	}
	m.st = stage{name: "short", since: now}
	m.draw(now)
	pad := len("a long stage name:  50% (5/10)") - len("short: 0.0 s")
	if got := b.String(); !strings.HasSuffix(got, "\rshort: 0.0 s"+strings.Repeat(" ", pad)+strings.Repeat("\b", pad)) {
		t.Fatalf("a shorter line drew %q", got)
	}
}

// TestProgressNotTerminal: piped or redirected, no meter exists and the
// use case's context carries no listener.
func TestProgressNotTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, w := range []interface {
		Write([]byte) (int, error)
	}{&bytes.Buffer{}, f} {
		if p, _ := progressFor(w); p != nil {
			t.Fatalf("%T got a transfer display", w)
		}
		ctx := context.Background()
		got, end := progressOn(ctx, w)
		if got != ctx {
			t.Fatalf("%T: the use case's context carries a listener", w)
		}
		end()
	}
	st, _ := f.Stat()
	if st.Size() != 0 {
		t.Fatalf("a file got %d bytes", st.Size())
	}
}

// TestMeterFits: a line longer than the terminal is wide would wrap, and a
// wrapped line cannot be drawn over: the stage's name is shortened, its
// counts kept, so the line and its ", done." fit.
func TestMeterFits(t *testing.T) {
	var b bytes.Buffer
	now := time.Unix(0, 0)
	m := newMeter(&b, func() time.Time { return now }, 0, 0)
	m.cols = 40
	m.transfer("compiling 100000 declarations into a-scope-with-a-long-name", 3, 10)
	m.end()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\r")[1:]
	for _, l := range lines {
		if n := len([]rune(l)); n >= 40 || !strings.Contains(l, "(3/10)") {
			t.Errorf("line %q: %d columns", l, n)
		}
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "compiling 100000 d…") || !strings.HasSuffix(lines[1], "…:  30% (3/10), done.") {
		t.Fatalf("drew %q", b.String())
	}
}

// TestMeterConcurrent: reports from several goroutines (a fetch's
// receiver beside the caller) and the ticker share one meter; run with
// -race.
func TestMeterConcurrent(t *testing.T) {
	var b bytes.Buffer
	m := newMeter(&b, time.Now, time.Microsecond, 0)
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 1000; i++ {
				m.transfer("receiving objects", i, 1000)
				m.tick()
			}
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
	m.end()
	if !strings.HasSuffix(b.String(), ", done.\n") || strings.Count(b.String(), "\n") != 1 {
		t.Fatalf("drew %d bytes ending %q", b.Len(), b.String()[max(0, b.Len()-40):])
	}
}

// TestProgressDelayFrom: DELOREIS_PROGRESS_DELAY sets the delay before the
// first line in seconds, as GIT_PROGRESS_DELAY does; anything else leaves
// the default.
func TestProgressDelayFrom(t *testing.T) {
	for env, want := range map[string]time.Duration{
		"": progressDelay, "0": 0, "2": 2 * time.Second, "0.25": 250 * time.Millisecond,
		"-1": progressDelay, "soon": progressDelay, "1e9": progressDelay,
	} {
		if got := progressDelayFrom(env); got != want {
			t.Errorf("DELOREIS_PROGRESS_DELAY=%q: %v, want %v", env, got, want)
		}
	}
}
