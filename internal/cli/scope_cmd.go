// The scope command: the documents (scopes) a project declares in its
// lore — listed, and declared one commit at a time (DL-0407).

package cli

import (
	"context"
	"fmt"

	"github.com/deloreis/deloreis/author"
	"github.com/spf13/cobra"
)

func newScopeCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scope",
		Short: "List the project's scopes, or declare one in the lore (scope add)",
	}
	cmd.AddCommand(newScopeAddCmd(g), newScopeListCmd(g))
	return cmd
}

func newScopeAddCmd(g *globals) *cobra.Command {
	var source string
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "add SCOPE [--source FILE]",
		Short: "Declare a document (scope) in the lore: one commit, pushed and pulled with the rest",
		Long: `Declares a document of the project — a scope, and optionally the .dli
file it is written in (relative to the project folder) — in the lore
itself: one commit on the serving branch, so that every clone of the store
knows the scope once it syncs. Writes to a scope (author.open, import)
need it declared. Declaring a scope again as it is declared writes nothing.`,
		Args: cobra.ExactArgs(1),
		RunE: g.withService(func(cmd *cobra.Command, args []string, s *author.Service) error {
			r, err := s.DeclareScope(context.Background(), &author.DeclareScopeParams{Scope: args[0], Source: source})
			if err != nil {
				return err
			}
			if format.json() {
				return format.emit(cmd.OutOrStdout(), r)
			}
			if !r.Declared {
				fmt.Fprintf(cmd.OutOrStdout(), "Scope %s is declared already\n", r.Scope)
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Declared scope %s in the lore: %s\n", r.Scope, r.Commit[:12])
			return nil
		}),
	}
	cmd.Flags().StringVar(&source, "source", "", "the .dli file the document is written in, relative to the project folder")
	format = addFormat[author.DeclareScopeResult](cmd)
	return cmd
}

func newScopeListCmd(g *globals) *cobra.Command {
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the scopes the project declares, with their sources and whether the serving commit holds them",
		Args:  cobra.NoArgs,
		RunE: g.withService(func(cmd *cobra.Command, _ []string, s *author.Service) error {
			r, err := s.Scopes(context.Background(), &author.ScopesParams{})
			if err != nil {
				return err
			}
			if format.json() {
				r.Documents, r.Scopes = orEmpty(r.Documents), orEmpty(r.Scopes)
				return format.emit(cmd.OutOrStdout(), r)
			}
			for _, d := range r.Documents {
				held := ""
				if !d.Present {
					held = "  (nothing committed yet)"
				}
				src := d.Source
				if src == "" {
					src = "-"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s\t%s%s\n", d.Scope, src, held)
			}
			return nil
		}),
	}
	format = addFormat[author.ScopesResult](cmd)
	return cmd
}
