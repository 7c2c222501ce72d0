package main

import (
	"testing"
)

// TestMeasurementsAnswer runs each measurement at a small size, seeding
// and measuring over one lorestore as the two children would: every run
// must answer what the rule concludes (the bench checks each), so that
// the benchmark cannot rot into timing a failure.
func TestMeasurementsAnswer(t *testing.T) {
	for _, kind := range []string{"repeat:300", "compare:400"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			if err := measure(dir, "seed:"+kind, 3); err != nil {
				t.Fatalf("seed: %v", err)
			}
			if err := measure(dir, kind, 3); err != nil {
				t.Fatalf("measure: %v", err)
			}
		})
	}
}
