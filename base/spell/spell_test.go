// Table test of the edit distance.

package spell

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"the-warden", "the-warder", 1}, {"the-warden", "the-ward", 2},
		{"skriv", "skriv", 0}, {"blant", "blånt", 1}, {"gjeldende", "gjeldene", 1},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (not symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestSwapDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"lgo", "log", 1}, {"lgo", "gc", 2}, {"Itme", "Item", 1}, {"ca", "abc", 3},
		{"kitten", "sitting", 3}, {"fruitt", "fruit", 1}, {"blånt", "bålnt", 1},
		{"Sensor", "Sensr", 1}, {"Room", "Rooms", 1}, {"Room", "Hall", 4}, {"Sensør", "Sensor", 1}, {"ab", "ba", 1},
	} {
		if got := SwapDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("SwapDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := SwapDistance(tc.b, tc.a); got != tc.want {
			t.Errorf("SwapDistance(%q, %q) = %d, want %d (not symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
	if Distance("lgo", "log") != 2 {
		t.Error("Distance counts a swap as two edits")
	}
}
