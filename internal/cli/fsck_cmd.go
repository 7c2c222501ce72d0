// The fsck command: run the store's own checks and say what is wrong.

package cli

import (
	"fmt"

	"github.com/deloreis/deloreis/author"
	"github.com/spf13/cobra"
)

func newFsckCmd(g *globals) *cobra.Command {
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "fsck",
		Short: "Check the store: packs, refs, and every object every branch reaches",
		Long: `Check the store: every pack and index in objects/pack is readable, every
ref and HEAD is well formed and names a commit, and every commit every
branch reaches holds a valid lore.json and object files that sit where
their ids say and decode. Each problem is printed on its own line, and
so is each garbage file a killed writer left (not a problem: deloreis gc
removes them). Exit status: 0 when the store is sound, 1 when anything is
wrong.`,
		Args: cobra.NoArgs,
		RunE: g.withService(func(cmd *cobra.Command, _ []string, s *author.Service) error {
			res, err := s.Fsck(cmd.Context(), &author.Empty{})
			if err != nil {
				return err
			}
			// Garbage is not a problem (readers skip it, as git's do), but
			// it is named, with the command that removes it (DL-0438).
			g, err := s.Garbage(cmd.Context(), &author.Empty{})
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if format.json() {
				res.Problems = orEmpty(res.Problems)
				if err := format.emit(w, fsckReport{FsckResult: res, Garbage: orEmpty(g.Files)}); err != nil {
					return err
				}
			} else {
				for _, p := range res.Problems {
					fmt.Fprintln(w, p.Where+": "+p.What)
				}
				for _, f := range g.Files {
					fmt.Fprintf(w, "garbage: %s (%s): %s; deloreis gc removes it\n", f.Path, plural(int(f.Size), "byte", "bytes"), f.Why)
				}
			}
			if !res.Sound {
				fmt.Fprintf(cmd.ErrOrStderr(), "deloreis: fsck: %s found\n", plural(len(res.Problems), "problem", "problems"))
				return exitCode(1)
			}
			return nil
		}),
	}
	format = addFormat[fsckReport](cmd)
	return cmd
}
