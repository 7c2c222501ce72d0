package worker

import "testing"

// opCase is one call of a table-driven op test: the op and its params,
// the code it must be refused with, and a check of what it answered.
type opCase struct {
	name   string
	op     string
	params any
	code   string // an error code, or "" for success
	check  func(t *testing.T, m map[string]any)
}

// runOpCases runs each case as a subtest over h: the op must succeed, or
// be refused with the case's code, and its answer pass the case's check.
func runOpCases(t *testing.T, h *opsHarness, cases []opCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := h.in(t)
			var m map[string]any
			if tc.code == "" {
				m = h.ok(tc.op, tc.params)
			} else {
				m = h.refused(tc.code, tc.op, tc.params)
			}
			if tc.check != nil {
				tc.check(t, m)
			}
		})
	}
}
