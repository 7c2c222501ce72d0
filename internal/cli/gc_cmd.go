// The gc command: remove the files a killed writer left in objects/.

package cli

import (
	"fmt"

	"github.com/deloreis/deloreis/author"
	"github.com/spf13/cobra"
)

func newGCCmd(g *globals) *cobra.Command {
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "Remove the temporary files and index-less packs a killed writer left",
		Long: `Remove the garbage in objects/: temporary files of writers that did not
finish (tmp_pack_dlr_*, tmp_idx_dlr_*) and packs whose index never came,
older than ten seconds and held by no live writer. fsck lists them; every
reader skips them, as git does, so removing them only gives the disk back.
Each removed file is printed. Exit status: 0, or 1 when a file could not be
removed.`,
		Args: cobra.NoArgs,
		RunE: g.withService(func(cmd *cobra.Command, _ []string, s *author.Service) error {
			res, err := s.GC(cmd.Context(), &author.Empty{})
			w := cmd.OutOrStdout()
			if format.json() {
				// What was removed, even when a later file could not be.
				res.Files = orEmpty(res.Files)
				if jerr := format.emit(w, res); jerr != nil {
					return jerr
				}
				return err
			}
			for _, f := range res.Files {
				fmt.Fprintf(w, "removed %s (%s): %s\n", f.Path, plural(int(f.Size), "byte", "bytes"), f.Why)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "gc: %s, %s removed\n", plural(len(res.Files), "file", "files"), plural(int(res.Bytes), "byte", "bytes"))
			return nil
		}),
	}
	format = addFormat[author.GarbageResult](cmd)
	return cmd
}
