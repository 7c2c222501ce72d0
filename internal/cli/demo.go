// The demo command: build the bundled demo world in a temporary folder and
// print its history as a graph.

package cli

import (
	"fmt"
	"os"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/demoworld"
	"github.com/spf13/cobra"
)

func newDemoCmd() *cobra.Command {
	var keep string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Build the bundled demo world and print its log --graph",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir := keep
			if dir == "" {
				tmp, err := os.MkdirTemp("", "deloreis-demo-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(tmp)
				dir = tmp
			}
			st, err := demoworld.Build(dir)
			if err != nil {
				return err
			}
			st.Close()
			svc, err := author.Open(author.OpenOptions{Dir: dir, Store: dir})
			if err != nil {
				return err
			}
			defer svc.Close()
			entries, err := svc.CommitLog(author.LogQuery{})
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if keep != "" {
				fmt.Fprintf(w, "demo lorestore at %s\n\n", dir)
			} else {
				// Its folder is gone when demo ends: naming it would send
				// a reader to a path that is not there (--keep keeps one).
				fmt.Fprint(w, "demo lorestore in a temporary folder, removed when demo ends (--keep DIR keeps it)\n\n")
			}
			return printLog(w, entries, &logFlags{graph: true, oneline: true})
		},
	}
	cmd.Flags().StringVar(&keep, "keep", "", "build the demo store here and keep it")
	return cmd
}
