package progress

import (
	"context"
	"testing"
)

func TestReport(t *testing.T) {
	Report(context.Background(), 1, 2, "no listener: nothing happens")
	var got []string
	ctx := With(context.Background(), func(done, total float64, msg string) {
		got = append(got, msg)
		if done > total {
			t.Errorf("%s: done %v > total %v", msg, done, total)
		}
	})
	Report(ctx, 0, 2, "a")
	Report(ctx, 2, 2, "b")
	if len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("reports %q", got)
	}
}
