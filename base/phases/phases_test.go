package phases

import (
	"bytes"
	"testing"
)

func TestStartRecordsOnlyWhenEnabled(t *testing.T) {
	tests := []struct {
		name    string
		enabled bool
		want    []string
	}{
		{name: "off", enabled: false, want: nil},
		{name: "on", enabled: true, want: []string{"inner", "outer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			Disable()
			if tt.enabled {
				Enable()
			}
			defer Disable()
			endOuter := Start("outer")
			Start("inner")()
			endOuter()
			var got []string
			for _, s := range Spans() {
				got = append(got, s.Name)
				if s.End < s.Start || s.Took() < 0 {
					t.Errorf("%s ends before it starts: %+v", s.Name, s)
				}
			}
			if len(got) != len(tt.want) || (len(got) > 0 && (got[0] != tt.want[0] || got[1] != tt.want[1])) {
				t.Errorf("spans %q, want %q", got, tt.want)
			}
		})
	}
}

func TestJSONRoundTrip(t *testing.T) {
	Enable()
	defer Disable()
	Start("a")()
	Start("b")()
	var b bytes.Buffer
	if err := WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	want := Spans()
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("read back %+v, want %+v", got, want)
	}
}

// TestStartOffAllocatesNothing: the compile calls Start on every run; off,
// it must cost nothing.
func TestStartOffAllocatesNothing(t *testing.T) {
	Disable()
	if n := testing.AllocsPerRun(100, func() { Start("x")() }); n != 0 {
		t.Errorf("Start with recording off allocates %v times", n)
	}
}
