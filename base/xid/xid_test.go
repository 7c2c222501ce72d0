package xid

import "testing"

func TestProperties(t *testing.T) {
	for _, c := range []struct {
		r                rune
		start, continue_ bool
	}{
		{'a', true, true}, {'Z', true, true}, {'_', false, true}, {'7', false, true},
		{'-', false, false}, {'.', false, false}, {' ', false, false}, {'/', false, false},
		{'ø', true, true}, {'Æ', true, true}, {'語', true, true},
		{'\u0301', false, true},  // combining acute: continues, never starts
		{'\u2160', true, true},   // ROMAN NUMERAL ONE (Nl)
		{'\u037A', false, false}, // GREEK YPOGEGRAMMENI: ID_Start but NFKC is " ͅ"
		{'\u00B7', false, true},  // MIDDLE DOT: Other_ID_Continue
		{'\u200B', false, false}, // zero width space
	} {
		if got := Start(c.r); got != c.start {
			t.Errorf("Start(%U) = %v", c.r, got)
		}
		if got := Continue(c.r); got != c.continue_ {
			t.Errorf("Continue(%U) = %v", c.r, got)
		}
	}
}
