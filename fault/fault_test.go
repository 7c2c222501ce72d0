package fault

import (
	"errors"
	"fmt"
	"testing"
)

func TestFault(t *testing.T) {
	e := Errorf(Refused, "stale-fence", "at %s", "wd-1")
	w := e.With("expected_digest", "wd-1").With("presented_digest", "wd-0")
	if len(e.Data) != 0 || len(w.Data) != 2 || w.Data["presented_digest"] != "wd-0" {
		t.Fatalf("With changed the original or lost data: %v, %v", e.Data, w.Data)
	}
	wrapped := fmt.Errorf("materialize: %w", w)
	if got, ok := As(wrapped); !ok || got != w {
		t.Fatalf("As(%v) = %v, %v", wrapped, got, ok)
	}
	if CodeOf(wrapped) != "stale-fence" || CodeOf(errors.New("x")) != "" {
		t.Fatal("CodeOf")
	}
	if o := Of(errors.New("disk full")); o.Class != Internal || o.Code != CodeInternal || o.Message != "disk full" {
		t.Fatalf("Of of a plain error: %+v", o)
	}
	if Of(wrapped) != w {
		t.Fatal("Of of a typed error is not the error")
	}
	if w.Error() != "refused: stale-fence: at wd-1" {
		t.Fatalf("Error() = %q", w.Error())
	}
}
