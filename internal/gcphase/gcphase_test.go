package gcphase

import (
	"runtime/debug"
	"testing"
)

// percentNow reads the GC percent in force.
func percentNow() int {
	p := debug.SetGCPercent(defaultPercent)
	debug.SetGCPercent(p)
	return p
}

func TestBuilding(t *testing.T) {
	defer debug.SetGCPercent(percentNow())
	tests := []struct {
		name   string
		steady int // 0: no policy
		set    int // the percent in force before
	}{
		{name: "no policy leaves the percent alone", steady: 0, set: 250},
		{name: "a policy at the default changes nothing", steady: 100, set: 100},
		{name: "a raised policy is lowered while building", steady: 400, set: 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			SetSteady(tt.steady)
			defer SetSteady(0)
			debug.SetGCPercent(tt.set)
			want := tt.set
			if tt.steady > defaultPercent {
				want = defaultPercent
			}
			outer := Building()
			if got := percentNow(); got != want {
				t.Fatalf("while building: GC percent %d, want %d", got, want)
			}
			inner := Building()
			inner()
			inner() // a second call changes nothing
			if got := percentNow(); got != want {
				t.Fatalf("after an overlapping build ended: GC percent %d, want %d", got, want)
			}
			outer()
			if got := percentNow(); got != tt.set {
				t.Fatalf("after the last build: GC percent %d, want %d back", got, tt.set)
			}
		})
	}
}
