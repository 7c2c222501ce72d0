package service

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/lorestore/crashtest"
)

// TestCrashCompileAndRun replays every crash of DKE calls that commit —
// a compile, runs that write claims, a run that forgets one — over a
// default (durable) store: after each, the store opens, passes
// lorestore's fsck and git fsck --strict, and main holds every commit a
// call returned. Fails with the flush of refs/heads after the rename in
// refs' txn.commit removed (main goes back to a commit before the one a
// run returned).
func TestCrashCompileAndRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lore")
	ls, err := lorestore.Init(dir, lorestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ls.Close()
	rec, err := crashtest.Record(dir)
	if err != nil {
		t.Fatal(err)
	}
	ls, err = lorestore.Open(dir, lorestore.Options{FS: rec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ls.Close() })
	tick := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	svc, err := New(Config{Store: ls, Now: func() time.Time { tick = tick.Add(time.Minute); return tick }, Authority: "test"})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, dir: dir, ls: ls, svc: svc}
	ctx := context.Background()
	calls := []struct{ tool, source string }{
		{"run", "remember(S.s1.room, \"kitchen\", \"survey\")\n"},
		{"compile", "@rule\ndef big(i, q):\n    if Item[i].qty == q and q > 97:\n        Item[i].big = True\n"},
		{"run", "remember(S.a.room, \"x\", \"s\")\nupdate(S.a.room, \"y\", \"s\")\nremember(S.b.room, \"z\", \"s\")\n"},
		{"run", "forget(S.s1.room)\n"},
	}
	for _, c := range calls {
		before := f.head()
		args := map[string]any{"source": c.source}
		if c.tool == "compile" {
			args["name"] = "rules"
		}
		f.mustOK(ctx, c.tool, args)
		after := f.head()
		if after == before {
			t.Fatalf("%s committed nothing", c.tool)
		}
		rec.Ack(crashtest.Ack{Store: dir, Branch: "main", Commit: after, What: "dke " + c.tool})
	}
	ls.WaitBackground()
	t.Log(rec.Replay(t))
}
