// The store the figures are taken on: one commit of N facts in one scope,
// then a small commit on top that adds a few facts and removes one, so
// that `log -n 2` shows both and `show` of the head has a short diff over
// a big tree (the everyday case). A store already built with the same N
// is reused.

package main

import (
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

// marker records the N a finished store was built with ("building" until
// then, so an interrupted build is known as ours and rebuilt).
func marker(dir string) string { return filepath.Join(dir, "logshow-n") }

func build(dir string, n int) error {
	b, err := os.ReadFile(marker(dir))
	switch {
	case err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(n):
		fmt.Printf("store: reusing %s (%d facts)\n", dir, n)
		return nil
	case err == nil:
		// One of ours, of another size (or unfinished): rebuild it.
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	default:
		if ents, _ := os.ReadDir(dir); len(ents) > 0 {
			return fmt.Errorf("%s exists and is not a store this bench built; name another", dir)
		}
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
	if err := os.WriteFile(marker(dir), []byte("building\n"), 0o644); err != nil {
		return err
	}
	start := time.Now()
	big := s.NewBatch()
	for i := 0; i < n; i++ {
		if _, err := big.Put(scope, fact(i)); err != nil {
			big.Close()
			return err
		}
	}
	if _, err := s.Commit(big, lorestore.NewMessage("bulk", "materialize", scope), lorestore.CommitOptions{}); err != nil {
		return err
	}
	fmt.Printf("store: %d facts committed in %v\n", n, time.Since(start).Round(time.Millisecond))
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
