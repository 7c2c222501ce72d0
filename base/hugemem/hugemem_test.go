package hugemem

import "testing"

func TestInterior(t *testing.T) {
	const m = hugePage
	tests := []struct {
		start, size, lo, hi uintptr
	}{
		{0, 4 * m, 0, 4 * m},
		{1, 4 * m, m, 4 * m},
		{m - 1, 2 * m, m, 2 * m},
		{m + 5, m, 2 * m, 2 * m}, // no whole page inside
		{3 * m, m - 1, 3 * m, 3 * m},
	}
	for _, tt := range tests {
		lo, hi := interior(tt.start, tt.size)
		if lo != tt.lo || hi != tt.hi {
			t.Errorf("interior(%#x, %#x) = %#x, %#x; want %#x, %#x", tt.start, tt.size, lo, hi, tt.lo, tt.hi)
		}
		if hi < lo || (hi > lo && (lo < tt.start || hi > tt.start+tt.size)) {
			t.Errorf("interior(%#x, %#x) leaves the range", tt.start, tt.size)
		}
	}
}

func TestMake(t *testing.T) {
	for _, n := range []int{0, 1, 1000, minBytes / 8, 3 * minBytes / 8} {
		s := Make[uint64](n)
		if len(s) != n {
			t.Fatalf("Make(%d): length %d", n, len(s))
		}
		for i, x := range s {
			if x != 0 {
				t.Fatalf("Make(%d)[%d] = %d", n, i, x)
			}
		}
		for i := range s {
			s[i] = uint64(i)
		}
		if n > 0 && s[n-1] != uint64(n-1) {
			t.Fatal("written elements do not read back")
		}
	}
}

func TestGrow(t *testing.T) {
	var s []int
	for i := range 100000 {
		if len(s) == cap(s) {
			c := cap(s)
			s = Grow(s)
			if cap(s) < max(2*c, 64) {
				t.Fatalf("grown from %d to %d", c, cap(s))
			}
		}
		s = append(s, i)
	}
	for i, x := range s {
		if x != i {
			t.Fatalf("s[%d] = %d after growing", i, x)
		}
	}
}
