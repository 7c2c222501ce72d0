// The casebook command: replay the Holmes casebook's MCP authoring calls
// (embedded in the binary) against a fresh store and print its story.

package cli

import (
	"context"
	"fmt"
	"os"

	embedded "github.com/deloreis/deloreis"
	"github.com/deloreis/deloreis/casebook"
	"github.com/spf13/cobra"
)

func newCasebookCmd(g *globals) *cobra.Command {
	var out, script string
	cmd := &cobra.Command{
		Use:   "casebook",
		Short: "Replay the Holmes casebook's MCP calls against a fresh store and print the story (markdown)",
		Long: `Replays the Holmes casebook — a script of MCP authoring calls built into
the command — against a fresh lorestore in a temporary folder, and prints
the story of what happened as markdown: the narration, each call, and the
salient part of its real result. Store id, author and clock are fixed by
the replay, so the story is the same byte for byte on every run; it is
docs/casebook/holmes.md. Nothing outside the temporary folder is touched.

--out FILE writes the story to FILE instead of standard output. --script
FILE replays another script (the same JSON-lines form) over the same
starting project. The exit status is 1 when a call's outcome differs from
what the script expects (the story is still printed) or the replay cannot
run, 2 on a usage error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			proj, text := embedded.Casebook()
			if script != "" {
				data, err := readRegular(script)
				if err != nil {
					return err
				}
				text = data
			}
			md, mismatches, err := casebook.ReplayMarkdown(context.Background(), proj, text)
			if err != nil {
				return fmt.Errorf("casebook: %w", err)
			}
			if out != "" {
				if err := os.WriteFile(out, md, 0o644); err != nil {
					return err
				}
			} else if _, err := cmd.OutOrStdout().Write(md); err != nil {
				return err
			}
			if mismatches > 0 {
				return fmt.Errorf("casebook: %d call(s) did not answer as the script expects", mismatches)
			}
			return nil
		},
	}

	cmd.Flags().StringVar(&out, "out", "", "write the story to this file instead of standard output")
	cmd.Flags().StringVar(&script, "script", "", "replay this script instead of the built-in casebook")
	return cmd
}
