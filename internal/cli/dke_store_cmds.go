// The DKE store's own lifecycle and its keys, on the command line only
// (dke-mcp-contract section 9.5: the account dashboard's part, never the
// wire's): dke store create|delete|snapshot|restore|list and dke key
// create|list|revoke. Every change to a store is one commit on main, so
// `git log` shows it and history keeps what a delete or restore replaced.

package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/deloreis/deloreis/dke/keys"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/spf13/cobra"
)

// dkeHeader is what dke/<id>/store.json holds.
type dkeHeader struct {
	Store   string `json:"store"`
	Created string `json:"created"`
	Clock   int64  `json:"clock"`
}

// clock is the time a command stamps (DELOREIS_COMMIT_DATE when set).
func (g *globals) clock() time.Time {
	if g.now != nil {
		return g.now()
	}
	return time.Now()
}

// checkStoreID makes a store id that can never name a store a usage error.
func checkStoreID(id string) error {
	if !keys.ValidStore(id) {
		return usageError{fmt.Sprintf("store id %q: letters and digits, with '-' or '_' inside", id)}
	}
	return nil
}

func newDKEStoreCmd(g *globals) *cobra.Command {
	group := &cobra.Command{
		Use:   "store",
		Short: "Create, delete, snapshot and restore DKE stores (never over MCP)",
	}
	group.AddCommand(newDKEStoreCreateCmd(g), newDKEStoreDeleteCmd(g), newDKEStoreSnapshotCmd(g),
		newDKEStoreRestoreCmd(g), newDKEStoreListCmd(g))
	return group
}

// storeExists reports whether the head of main holds anything under
// dke/<id>/.
func storeExists(s *lorestore.Store, id string) (bool, *lorestore.Snapshot, error) {
	sn, err := s.Snapshot(lorestore.DefaultBranch)
	if err != nil {
		return false, nil, err
	}
	stores, err := sn.DKEStores()
	if err != nil {
		return false, nil, err
	}
	return slices.Contains(stores, id), sn, nil
}

// commitDKE commits b on main and prints what it did.
func commitDKE(w io.Writer, s *lorestore.Store, b *lorestore.Batch, summary, op, id string) error {
	m := lorestore.NewMessage(summary, op, "")
	m.Trailers = append(m.Trailers, lorestore.Trailer{Key: "Lore-DKE-Store", Value: id})
	res, err := s.Commit(b, m, lorestore.CommitOptions{})
	if err != nil {
		return err
	}
	if res.Empty {
		fmt.Fprintf(w, "%s: nothing changed, no commit\n", summary)
		return nil
	}
	fmt.Fprintf(w, "%s (commit %s)\n", summary, res.Commit.String()[:7])
	return nil
}

func newDKEStoreCreateCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "create ID",
		Short: "Create an empty DKE store: one commit adding dke/ID/store.json",
		Long: `Creates the DKE store ID in the lorestore (--store or the project's): one
commit on main adding its header, dke/ID/store.json {store, created,
clock: 0}. Refused (exit 1) when main already holds a store ID.`,
		Args: cobra.ExactArgs(1),
		RunE: g.withStore(func(cmd *cobra.Command, args []string, s *lorestore.Store) error {
			id := args[0]
			if err := checkStoreID(id); err != nil {
				return err
			}
			exists, _, err := storeExists(s, id)
			if err != nil {
				return err
			}
			if exists {
				return fmt.Errorf("DKE store %s exists already", id)
			}
			h, _ := json.Marshal(dkeHeader{Store: id, Created: g.clock().UTC().Format(time.RFC3339), Clock: 0})
			b := lorestore.NewBatch()
			if err := b.PutDKEHeader(id, h); err != nil {
				return err
			}
			return commitDKE(cmd.OutOrStdout(), s, b, "dke store create "+id, "dke-store-create", id)
		}),
	}
}

func newDKEStoreDeleteCmd(g *globals) *cobra.Command {
	var confirm bool
	cmd := &cobra.Command{
		Use:   "delete ID --confirm",
		Short: "Delete a DKE store: one commit removing dke/ID/ (history keeps it)",
		Long: `Deletes the DKE store ID: one commit on main removing everything under
dke/ID/. History keeps it: its snapshots and earlier commits still hold
it, and restore brings a snapshot back. --confirm is required (without
it, a usage error). The store's keys stay in the keyring (a store made
again under the same id answers to them); revoke them with dke key
revoke. Refused (exit 1) when main holds no store ID.`,
		Args: cobra.ExactArgs(1),
		RunE: g.withStore(func(cmd *cobra.Command, args []string, s *lorestore.Store) error {
			id := args[0]
			if err := checkStoreID(id); err != nil {
				return err
			}
			if !confirm {
				return usageError{"dke store delete removes the whole store: give --confirm"}
			}
			exists, _, err := storeExists(s, id)
			if err != nil {
				return err
			}
			if !exists {
				return fmt.Errorf("no DKE store %s on %s", id, lorestore.DefaultBranch)
			}
			b := lorestore.NewBatch()
			if err := b.RemoveDKEStore(id); err != nil {
				return err
			}
			return commitDKE(cmd.OutOrStdout(), s, b, "dke store delete "+id, "dke-store-delete", id)
		}),
	}
	cmd.Flags().BoolVar(&confirm, "confirm", false, "yes, delete the whole store")
	return cmd
}

func newDKEStoreSnapshotCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "snapshot ID [NAME]",
		Short: "Record the store's current state under a name (refs/dke-snapshots/ID/NAME)",
		Long: `Records the head of main as snapshot NAME of the DKE store ID: a durable
ref, refs/dke-snapshots/ID/NAME, which git keeps alive and no commit
moves. NAME is an id (letters, digits, '-' and '_'); by default the UTC
time, 20261201-120000. No commit is written. Refused (exit 1) when main
holds no store ID or the name is taken.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: g.withStore(func(cmd *cobra.Command, args []string, s *lorestore.Store) error {
			id := args[0]
			if err := checkStoreID(id); err != nil {
				return err
			}
			name := g.clock().UTC().Format("20060102-150405")
			if len(args) == 2 {
				name = args[1]
			}
			if !objects.ValidID(name) {
				return usageError{fmt.Sprintf("snapshot name %q: letters and digits, with '-' or '_' inside", name)}
			}
			exists, sn, err := storeExists(s, id)
			if err != nil {
				return err
			}
			if !exists {
				return fmt.Errorf("no DKE store %s on %s", id, lorestore.DefaultBranch)
			}
			if err := s.SaveDKESnapshot(id, name, sn.Commit()); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "snapshot %s of DKE store %s at %s\n", name, id, sn.Commit().String()[:7])
			return nil
		}),
	}
}

func newDKEStoreRestoreCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "restore ID NAME",
		Short: "Make dke/ID/ equal to snapshot NAME again, in a new commit",
		Long: `Restores the DKE store ID from its snapshot NAME: one new commit on main
whose dke/ID/ (header, modules, claims) is the snapshot's, whether or not
the store exists now. Nothing is rewritten: the commits between the
snapshot and the restore stay in history. A store already equal to the
snapshot gets no commit.`,
		Args: cobra.ExactArgs(2),
		RunE: g.withStore(func(cmd *cobra.Command, args []string, s *lorestore.Store) error {
			id, name := args[0], args[1]
			if err := checkStoreID(id); err != nil {
				return err
			}
			at, err := s.DKESnapshot(id, name)
			if err != nil {
				return err
			}
			b, err := restoreBatch(s, id, at)
			if err != nil {
				return err
			}
			return commitDKE(cmd.OutOrStdout(), s, b, "dke store restore "+id+" from "+name, "dke-store-restore", id)
		}),
	}
}

// restoreBatch is a batch that empties dke/<id>/ and fills it with what
// the commit at holds there. Claims are named by their bytes, so each
// comes back under the id it had.
func restoreBatch(s *lorestore.Store, id string, at lorestore.Hash) (*lorestore.Batch, error) {
	sn, err := s.SnapshotAt(at)
	if err != nil {
		return nil, err
	}
	b := lorestore.NewBatch()
	if err := b.RemoveDKEStore(id); err != nil {
		return nil, err
	}
	h, err := sn.DKEHeader(id)
	if err != nil && !errors.Is(err, lorestore.ErrNotFound) {
		return nil, err
	}
	if err == nil {
		if err := b.PutDKEHeader(id, h); err != nil {
			return nil, err
		}
	}
	mods, err := sn.Modules(id)
	if err != nil {
		return nil, err
	}
	for name, data := range mods {
		if err := b.PutModule(id, name, data); err != nil {
			return nil, err
		}
	}
	claims, err := sn.DKEClaims(id, "")
	if err != nil {
		return nil, err
	}
	for _, c := range claims {
		if _, err := b.PutDKEClaim(id, c.Kind, c.Data); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func newDKEStoreListCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the DKE stores on main and every store's snapshots",
		Long: `Lists the DKE stores main holds, one a line (id, created, clock,
modules), each followed by its snapshots (name, commit); a store that
main no longer holds but that has snapshots is listed as deleted.`,
		Args: cobra.NoArgs,
		RunE: g.withStore(func(cmd *cobra.Command, _ []string, s *lorestore.Store) error {
			sn, err := s.Snapshot(lorestore.DefaultBranch)
			if err != nil {
				return err
			}
			live, err := sn.DKEStores()
			if err != nil {
				return err
			}
			snaps, err := s.DKESnapshots("")
			if err != nil {
				return err
			}
			ids := slices.Clone(live)
			for _, r := range snaps {
				ids = append(ids, r.Store)
			}
			slices.Sort(ids)
			w := cmd.OutOrStdout()
			for _, id := range slices.Compact(ids) {
				line, err := storeLine(sn, id, slices.Contains(live, id))
				if err != nil {
					return err
				}
				fmt.Fprintln(w, line)
				for _, r := range snaps {
					if r.Store == id {
						fmt.Fprintf(w, "  snapshot %s %s\n", r.Name, r.Commit.String()[:7])
					}
				}
			}
			return nil
		}),
	}
}

// storeLine describes one store as main holds it.
func storeLine(sn *lorestore.Snapshot, id string, live bool) (string, error) {
	if !live {
		return id + " (deleted on " + lorestore.DefaultBranch + ")", nil
	}
	var h dkeHeader
	if data, err := sn.DKEHeader(id); err == nil {
		if err := json.Unmarshal(data, &h); err != nil {
			return "", fmt.Errorf("dke/%s/store.json: %v", id, err)
		}
	} else if !errors.Is(err, lorestore.ErrNotFound) {
		return "", err
	}
	mods, err := sn.ModuleNames(id)
	if err != nil {
		return "", err
	}
	parts := []string{id}
	if h.Created != "" {
		parts = append(parts, "created "+h.Created)
	}
	parts = append(parts, fmt.Sprintf("clock %d", h.Clock), fmt.Sprintf("%d modules", len(mods)))
	return strings.Join(parts, "  "), nil
}

func newDKEKeyCmd(g *globals) *cobra.Command {
	group := &cobra.Command{
		Use:   "key",
		Short: "Make, list and revoke the keys of the DKE server over HTTP",
	}
	group.AddCommand(newDKEKeyCreateCmd(g), newDKEKeyListCmd(g), newDKEKeyRevokeCmd(g))
	return group
}

// withRing opens the keyring of the lorestore the flags name (a file in
// its git directory, outside every commit).
func (g *globals) withRing(body func(cmd *cobra.Command, args []string, s *lorestore.Store, r *keys.Ring) error) func(*cobra.Command, []string) error {
	return g.withStore(func(cmd *cobra.Command, args []string, s *lorestore.Store) error {
		return body(cmd, args, s, keys.Open(s.Dir()))
	})
}

func newDKEKeyCreateCmd(g *globals) *cobra.Command {
	var storeID string
	var read, write bool
	cmd := &cobra.Command{
		Use:   "create --store-id ID --read|--write",
		Short: "Make a key for one DKE store and print it, once",
		Long: `Makes a key for the DKE store ID (--store-id; --store stays the path of
the lorestore) that may only read (--read: the tools that change nothing)
or also write (--write). The key is printed on stdout, alone on its line,
and never again: the keyring keeps only its SHA-256. A store main does
not hold yet is noted on stderr, not refused.`,
		Args: cobra.NoArgs,
		RunE: g.withRing(func(cmd *cobra.Command, _ []string, s *lorestore.Store, r *keys.Ring) error {
			if read == write {
				return usageError{"give exactly one of --read and --write"}
			}
			if err := checkStoreID(storeID); err != nil {
				return err
			}
			mode := keys.Read
			if write {
				mode = keys.Write
			}
			if exists, _, err := storeExists(s, storeID); err == nil && !exists {
				fmt.Fprintf(cmd.ErrOrStderr(), "note: main holds no DKE store %s yet\n", storeID)
			}
			key, err := r.Create(storeID, mode, g.clock())
			if err != nil {
				return err
			}
			gr, err := r.Lookup(key)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), key)
			fmt.Fprintf(cmd.ErrOrStderr(), "%s key %s for DKE store %s; it is shown only this once\n", mode, gr.Hash[:12], storeID)
			return nil
		}),
	}
	cmd.Flags().StringVar(&storeID, "store-id", "default", "the DKE store the key addresses")
	cmd.Flags().BoolVar(&read, "read", false, "a read key: only the tools that change nothing")
	cmd.Flags().BoolVar(&write, "write", false, "a write key: every tool")
	return cmd
}

func newDKEKeyListCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the keys: hash prefix, store, mode, created (never the keys)",
		Args:  cobra.NoArgs,
		RunE: g.withRing(func(cmd *cobra.Command, _ []string, _ *lorestore.Store, r *keys.Ring) error {
			es, err := r.List()
			if err != nil {
				return err
			}
			for _, e := range es {
				fmt.Fprintf(cmd.OutOrStdout(), "%s  %s  %s  %s\n", e.Hash[:12], e.Store, e.Mode, e.Created.UTC().Format(time.RFC3339))
			}
			return nil
		}),
	}
}

func newDKEKeyRevokeCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke HASHPREFIX",
		Short: "Revoke the key whose hash starts with HASHPREFIX (at least 8 hex digits)",
		Long: `Removes from the keyring the key whose hash (as dke key list shows it)
starts with HASHPREFIX, at least 8 hex digits (fewer, or not hex, is a
usage error). A prefix no key has is refused (exit 1), and so is one that
more than one key shares: name the key by more digits.`,
		Args: cobra.ExactArgs(1),
		RunE: g.withRing(func(cmd *cobra.Command, args []string, _ *lorestore.Store, r *keys.Ring) error {
			p := strings.ToLower(args[0])
			if len(p) < 8 || strings.Trim(p, "0123456789abcdef") != "" {
				return usageError{fmt.Sprintf("%q: name a key by at least 8 hex digits of its hash", args[0])}
			}
			es, err := r.List()
			if err != nil {
				return err
			}
			n := 0
			for _, e := range es {
				if strings.HasPrefix(e.Hash, p) {
					n++
				}
			}
			switch {
			case n == 0:
				return fmt.Errorf("no key's hash starts with %s", p)
			case n > 1:
				return fmt.Errorf("%d keys' hashes start with %s: give more digits", n, p)
			}
			if _, err := r.Revoke(p); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "revoked key %s\n", p)
			return nil
		}),
	}
}
