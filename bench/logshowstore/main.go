// Command logshowstore builds the lorestore bench/logshow.sh measures: one
// commit of N facts in one scope, then a small commit on top that adds a
// few facts and removes one, so that `log -n 2` shows both and `show` of
// the head has a short diff over a big tree (the everyday case).
//
//	go run ./bench/logshowstore -n 1000000 -dir /tmp/store.git
//
// A store already at dir with the same N is kept (it says so and exits),
// so a rerun of the script measures without rebuilding.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

const scope = "big"

func main() {
	n := flag.Int("n", 1_000_000, "facts in the big commit")
	dir := flag.String("dir", "", "where the store goes (a bare repository)")
	flag.Parse()
	if *dir == "" || *n < 1 {
		fmt.Fprintln(os.Stderr, "logshowstore: -dir is required and -n must be positive")
		os.Exit(2)
	}
	if err := build(*dir, *n); err != nil {
		fmt.Fprintln(os.Stderr, "logshowstore:", err)
		os.Exit(1)
	}
}

// marker records the N a finished store was built with; it is written
// last, so a store whose build was interrupted is rebuilt.
func marker(dir string) string { return filepath.Join(dir, "logshow-n") }

func build(dir string, n int) error {
	if b, err := os.ReadFile(marker(dir)); err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(n) {
		fmt.Fprintf(os.Stderr, "logshowstore: reusing %s (%d facts)\n", dir, n)
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	opts := lorestore.Options{
		StoreID: "0123456789abcdef0123456789abcdef",
		Now:     func() time.Time { clock = clock.Add(time.Second); return clock },
	}
	s, err := lorestore.Init(dir, opts)
	if err != nil {
		return err
	}
	defer s.Close()
	start := time.Now()
	b := s.NewBatch()
	for i := 0; i < n; i++ {
		if _, err := b.Put(scope, fact(i)); err != nil {
			b.Close()
			return err
		}
	}
	if _, err := s.Commit(b, lorestore.NewMessage("bulk", "materialize", scope), lorestore.CommitOptions{}); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "logshowstore: %d facts committed in %v\n", n, time.Since(start).Round(time.Millisecond))
	small := lorestore.NewBatch()
	for i := n; i < n+5; i++ {
		if _, err := small.Put(scope, fact(i)); err != nil {
			return err
		}
	}
	gone, err := fact(0).ID()
	if err != nil {
		return err
	}
	path := fmt.Sprintf("scopes/%s/claims/%s/%s.json", scope, gone.String()[:2], gone)
	if err := small.Remove(path); err != nil {
		return err
	}
	if _, err := s.Commit(small, lorestore.NewMessage("a few more", "materialize", scope), lorestore.CommitOptions{}); err != nil {
		return err
	}
	s.WaitBackground()
	return os.WriteFile(marker(dir), []byte(strconv.Itoa(n)+"\n"), 0o644)
}

func fact(i int) *objects.Fact {
	return &objects.Fact{
		Entity:     fmt.Sprintf("entity-%d", i%997),
		Key:        "note",
		Value:      fmt.Sprintf("value number %d", i),
		Provenance: objects.Proposed("session-bench"),
	}
}
