package lorestore

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestIdentityIsKept: a commit that rewrites lore.json's store id (to
// zeros, as a hostile hub could) or drops it is refused by sync, fetch
// and pull before any ref moves, and fsck names it (DL-0436). Before
// the rule, sync fast-forwarded onto the zeroed id.
func TestIdentityIsKept(t *testing.T) {
	cases := map[string][]byte{
		"zeroed":  encodeHeader(strings.Repeat("0", storeIDLen)),
		"another": encodeHeader(strings.Repeat("ab", storeIDLen/2)),
		"dropped": []byte(`{"contract":"` + ContractVersion + `","format":` + strconv.Itoa(FormatVersion) + `,"kind":"deloreis-lorestore"}`),
	}
	for name, hdr := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := parseHeader(hdr); err != nil {
				t.Fatalf("the rewritten header must itself be well formed: %v", err)
			}
			_, dir, side := corruptSide(t, map[string][]byte{headerPath: hdr}, false)
			git(t, dir, "--git-dir", dir, "update-ref", "-d", "refs/heads/side")
			c := cloneOf(t, dir)
			git(t, dir, "--git-dir", dir, "update-ref", "refs/heads/main", side.String())
			before := map[string]map[string]string{"refs": dirState(t, filepath.Join(c.Dir(), "refs", "heads"))}
			for op, run := range map[string]func() error{
				"sync": func() error {
					_, err := c.Sync(context.Background(), "origin", SyncOptions{})
					return err
				},
				// pull: what author.Pull does, a fetch (which moves only
				// the tracking ref, as git's does) then a fast-forward.
				"pull": func() error {
					f, err := c.Fetch(context.Background(), "origin", FetchOptions{Branches: []string{"main"}})
					if err != nil {
						return err
					}
					_, err = c.Merge(f.Updates[0].New.String(), MergeOptions{Message: NewMessage("pull", "merge", ""), FastForward: true})
					return err
				},
			} {
				err := run()
				wantRefused(t, err)
				if !strings.Contains(err.Error(), "identity") {
					t.Fatalf("%s: the refusal does not name the identity: %v", op, err)
				}
				sameState(t, before["refs"], dirState(t, filepath.Join(c.Dir(), "refs", "heads")))
			}
		})
	}
}
