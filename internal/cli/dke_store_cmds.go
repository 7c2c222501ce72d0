// The DKE store's own lifecycle and its keys, on the command line only
// (dke-mcp-contract section 9.5: the account dashboard's part, never the
// wire's): dke store create|delete|snapshot|restore|list and dke key
// create|list|revoke. Every change to a store is one commit on main, so
// `git log` shows it and history keeps what a delete or restore replaced.
// The work is dke/service's (admin.go); these commands parse and print.

package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/deloreis/deloreis/dke/keys"
	"github.com/deloreis/deloreis/dke/service"
	"github.com/deloreis/deloreis/objects"
	"github.com/spf13/cobra"
)

// dkeService opens the DKE runtime over the lorestore the flags name
// (--store, or the project's). Close it when done.
func (g *globals) dkeService() (*service.Service, error) {
	dir, err := g.resolveStore()
	if err != nil {
		return nil, err
	}
	_, db, err := g.budgets()
	if err != nil {
		return nil, err
	}
	return service.Open(service.OpenOptions{StoreDir: dir, StoreOptions: g.options(), Now: g.now, Budget: db})
}

// withDKE adapts a command body to the DKE runtime: it opens it, runs the
// body and closes it.
func (g *globals) withDKE(body func(cmd *cobra.Command, args []string, svc *service.Service) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		svc, err := g.dkeService()
		if err != nil {
			return err
		}
		defer svc.Close()
		return body(cmd, args, svc)
	}
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

// printChange prints what a lifecycle call did to main.
func printChange(w io.Writer, c service.StoreChange, err error, format *formatFlag) error {
	if err != nil {
		return err
	}
	if format.json() {
		return format.emit(w, dkeChangeReport{Summary: c.Summary, Commit: c.Commit, Changed: !c.Empty})
	}
	if c.Empty {
		fmt.Fprintf(w, "%s: nothing changed, no commit\n", c.Summary)
		return nil
	}
	fmt.Fprintf(w, "%s (commit %s)\n", c.Summary, c.Commit[:7])
	return nil
}

func newDKEStoreCreateCmd(g *globals) *cobra.Command {
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "create ID",
		Short: "Create an empty DKE store: one commit adding dke/ID/store.json",
		Long: `Creates the DKE store ID in the lorestore (--store or the project's): one
commit on main adding its header, dke/ID/store.json {store, created,
clock: 0}. Refused (exit 1) when main already holds a store ID.`,
		Args: cobra.ExactArgs(1),
		RunE: g.withDKE(func(cmd *cobra.Command, args []string, svc *service.Service) error {
			if err := checkStoreID(args[0]); err != nil {
				return err
			}
			c, err := svc.CreateStore(args[0])
			return printChange(cmd.OutOrStdout(), c, err, format)
		}),
	}
	format = addFormat[dkeChangeReport](cmd)
	return cmd
}

func newDKEStoreDeleteCmd(g *globals) *cobra.Command {
	var confirm bool
	var format *formatFlag
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
		RunE: g.withDKE(func(cmd *cobra.Command, args []string, svc *service.Service) error {
			if err := checkStoreID(args[0]); err != nil {
				return err
			}
			if !confirm {
				return usageError{"dke store delete removes the whole store: give --confirm"}
			}
			c, err := svc.DeleteStore(args[0])
			return printChange(cmd.OutOrStdout(), c, err, format)
		}),
	}
	cmd.Flags().BoolVar(&confirm, "confirm", false, "yes, delete the whole store")
	format = addFormat[dkeChangeReport](cmd)
	return cmd
}

func newDKEStoreSnapshotCmd(g *globals) *cobra.Command {
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "snapshot ID [NAME]",
		Short: "Record the store's current state under a name (refs/dke-snapshots/ID/NAME)",
		Long: `Records the head of main as snapshot NAME of the DKE store ID: a durable
ref, refs/dke-snapshots/ID/NAME, which git keeps alive and no commit
moves. NAME is an id (letters, digits, '-' and '_'); by default the UTC
time, 20261201-120000. No commit is written. Refused (exit 1) when main
holds no store ID or the name is taken.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: g.withDKE(func(cmd *cobra.Command, args []string, svc *service.Service) error {
			if err := checkStoreID(args[0]); err != nil {
				return err
			}
			name := "" // the service names it by the time
			if len(args) == 2 {
				name = args[1]
				if !objects.ValidID(name) {
					return usageError{fmt.Sprintf("snapshot name %q: letters and digits, with '-' or '_' inside", name)}
				}
			}
			sn, err := svc.SnapshotStore(args[0], name)
			if err != nil {
				return err
			}
			if format.json() {
				return format.emit(cmd.OutOrStdout(), dkeSnapshot(sn))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "snapshot %s of DKE store %s at %s\n", sn.Name, sn.Store, sn.Commit[:7])
			return nil
		}),
	}
	format = addFormat[dkeSnapshotJSON](cmd)
	return cmd
}

func newDKEStoreRestoreCmd(g *globals) *cobra.Command {
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "restore ID NAME",
		Short: "Make dke/ID/ equal to snapshot NAME again, in a new commit",
		Long: `Restores the DKE store ID from its snapshot NAME: one new commit on main
whose dke/ID/ (header, modules, claims) is the snapshot's, whether or not
the store exists now. Nothing is rewritten: the commits between the
snapshot and the restore stay in history. A store already equal to the
snapshot gets no commit.`,
		Args: cobra.ExactArgs(2),
		RunE: g.withDKE(func(cmd *cobra.Command, args []string, svc *service.Service) error {
			if err := checkStoreID(args[0]); err != nil {
				return err
			}
			c, err := svc.RestoreStore(args[0], args[1])
			return printChange(cmd.OutOrStdout(), c, err, format)
		}),
	}
	format = addFormat[dkeChangeReport](cmd)
	return cmd
}

func newDKEStoreListCmd(g *globals) *cobra.Command {
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the DKE stores on main and every store's snapshots",
		Long: `Lists the DKE stores main holds, one a line (id, created, clock,
modules), each followed by its snapshots (name, commit); a store that
main no longer holds but that has snapshots is listed as deleted.`,
		Args: cobra.NoArgs,
		RunE: g.withDKE(func(cmd *cobra.Command, _ []string, svc *service.Service) error {
			recs, err := svc.ListStores()
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if format.json() {
				return format.emit(w, dkeStores(recs, svc.Branch()))
			}
			for _, r := range recs {
				fmt.Fprintln(w, storeLine(r, svc.Branch()))
				for _, sn := range r.Snapshots {
					fmt.Fprintf(w, "  snapshot %s %s\n", sn.Name, sn.Commit[:7])
				}
			}
			return nil
		}),
	}
	format = addFormat[dkeStoresReport](cmd)
	return cmd
}

// dkeStores is dke store list's JSON result.
func dkeStores(recs []service.StoreRecord, branch string) dkeStoresReport {
	r := dkeStoresReport{Branch: branch, Stores: []dkeStoreJSON{}}
	for _, x := range recs {
		s := dkeStoreJSON{ID: x.ID, Live: x.Live, Created: x.Created, Clock: x.Clock, Modules: x.Modules, Snapshots: []dkeSnapshotJSON{}}
		for _, sn := range x.Snapshots {
			s.Snapshots = append(s.Snapshots, dkeSnapshot(sn))
		}
		r.Stores = append(r.Stores, s)
	}
	return r
}

// storeLine describes one store as the branch holds it.
func storeLine(r service.StoreRecord, branch string) string {
	if !r.Live {
		return r.ID + " (deleted on " + branch + ")"
	}
	parts := []string{r.ID}
	if r.Created != "" {
		parts = append(parts, "created "+r.Created)
	}
	parts = append(parts, fmt.Sprintf("clock %d", r.Clock), plural(r.Modules, "module", "modules"))
	return strings.Join(parts, "  ")
}

func newDKEKeyCmd(g *globals) *cobra.Command {
	group := &cobra.Command{
		Use:   "key",
		Short: "Make, list and revoke the keys of the DKE server over HTTP",
	}
	group.AddCommand(newDKEKeyCreateCmd(g), newDKEKeyListCmd(g), newDKEKeyRevokeCmd(g))
	return group
}

func newDKEKeyCreateCmd(g *globals) *cobra.Command {
	var storeID string
	var read, write bool
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "create --store-id ID --read|--write",
		Short: "Make a key for one DKE store and print it, once",
		Long: `Makes a key for the DKE store ID (--store-id; --store stays the path of
the lorestore) that may only read (--read: the tools that change nothing)
or also write (--write). The key is printed on stdout, alone on its line,
and never again: the keyring keeps only its SHA-256. A store main does
not hold yet is noted on stderr, not refused.`,
		Args: cobra.NoArgs,
		RunE: g.withDKE(func(cmd *cobra.Command, _ []string, svc *service.Service) error {
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
			if exists, err := svc.HasStore(storeID); err == nil && !exists {
				fmt.Fprintf(cmd.ErrOrStderr(), "note: %s holds no DKE store %s yet\n", svc.Branch(), storeID)
			}
			key, gr, err := svc.CreateKey(storeID, mode)
			if err != nil {
				return err
			}
			if format.json() {
				if err := format.emit(cmd.OutOrStdout(), dkeKeyReport{Key: key, Hash: gr.Hash, Store: storeID, Mode: string(mode)}); err != nil {
					return err
				}
			} else {
				fmt.Fprintln(cmd.OutOrStdout(), key)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%s key %s for DKE store %s; it is shown only this once\n", mode, gr.Hash[:12], storeID)
			return nil
		}),
	}
	cmd.Flags().StringVar(&storeID, "store-id", "default", "the DKE store the key addresses")
	cmd.Flags().BoolVar(&read, "read", false, "a read key: only the tools that change nothing")
	cmd.Flags().BoolVar(&write, "write", false, "a write key: every tool")
	format = addFormat[dkeKeyReport](cmd)
	return cmd
}

func newDKEKeyListCmd(g *globals) *cobra.Command {
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the keys: hash prefix, store, mode, created (never the keys)",
		Args:  cobra.NoArgs,
		RunE: g.withDKE(func(cmd *cobra.Command, _ []string, svc *service.Service) error {
			es, err := svc.Keys()
			if err != nil {
				return err
			}
			if format.json() {
				return format.emit(cmd.OutOrStdout(), dkeKeysReport{Keys: orEmpty(es)})
			}
			for _, e := range es {
				fmt.Fprintf(cmd.OutOrStdout(), "%s  %s  %s  %s\n", e.Hash[:12], e.Store, e.Mode, e.Created.UTC().Format(time.RFC3339))
			}
			return nil
		}),
	}
	format = addFormat[dkeKeysReport](cmd)
	return cmd
}

func newDKEKeyRevokeCmd(g *globals) *cobra.Command {
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "revoke HASHPREFIX",
		Short: "Revoke the key whose hash starts with HASHPREFIX (at least 8 hex digits)",
		Long: `Removes from the keyring the key whose hash (as dke key list shows it)
starts with HASHPREFIX, at least 8 hex digits (fewer, or not hex, is a
usage error). A prefix no key has is refused (exit 1), and so is one that
more than one key shares: name the key by more digits.`,
		Args: cobra.ExactArgs(1),
		RunE: g.withDKE(func(cmd *cobra.Command, args []string, svc *service.Service) error {
			p := strings.ToLower(args[0])
			if len(p) < 8 || strings.Trim(p, "0123456789abcdef") != "" {
				return usageError{fmt.Sprintf("%q: name a key by at least 8 hex digits of its hash", args[0])}
			}
			if err := svc.RevokeKey(p); err != nil {
				return err
			}
			if format.json() {
				return format.emit(cmd.OutOrStdout(), dkeRevokeReport{Revoked: p})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "revoked key %s\n", p)
			return nil
		}),
	}
	format = addFormat[dkeRevokeReport](cmd)
	return cmd
}
