// The graph command: the world of a scope as a picture.

package main

import (
	"errors"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/spf13/cobra"
)

func newGraphCmd(g *globals) *cobra.Command {
	var scope, format string
	cmd := &cobra.Command{
		Use:   "graph [--scope S] [--format dot|svg]",
		Short: "Draw a scope's world: entities, relations, attacks and defeats",
		Args:  cobra.NoArgs,
		PreRunE: func(*cobra.Command, []string) error {
			return checkFormat(format, "dot", "svg")
		},
		RunE: g.withStore(func(cmd *cobra.Command, _ []string, s *lorestore.Store) error {
			return errors.New("graph: not yet")
		}),
	}
	cmd.Flags().StringVar(&scope, "scope", "", "scope to draw (default: the only scope)")
	cmd.Flags().StringVar(&format, "format", "dot", "output format: dot or svg")
	return cmd
}
