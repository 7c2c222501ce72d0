package worker

import (
	"context"
	"testing"
)

func TestReportProgress(t *testing.T) {
	ReportProgress(context.Background(), 1, 2, "no listener: nothing happens")
	var got []string
	ctx := WithProgress(context.Background(), func(done, total float64, msg string) {
		got = append(got, msg)
		if done > total {
			t.Errorf("%s: done %v > total %v", msg, done, total)
		}
	})
	ReportProgress(ctx, 0, 2, "a")
	ReportProgress(ctx, 2, 2, "b")
	if len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("reports %q", got)
	}
}
