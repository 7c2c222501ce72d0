// The dke command group: DKE Python tools on files (check), the DKE server
// and its tools (dke_serve_cmds.go), the stores' lifecycle and keys
// (dke_store_cmds.go). The work itself is package dke's and its
// subpackages'; these files are only their command line.

package cli

import (
	"fmt"
	"io"

	"github.com/deloreis/deloreis/dke"
	"github.com/deloreis/deloreis/dke/diag"
	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/spf13/cobra"
)

func newDKECmd(g *globals) *cobra.Command {
	group := &cobra.Command{
		Use:   "dke",
		Short: "DKE Python tools",
	}
	group.AddCommand(newDKECheckCmd(), newDKEStoreCmd(g), newDKEKeyCmd(g), newDKEMCPCmd(g),
		newDKECompileCmd(g), newDKERunCmd(g), newDKECheckupCmd(g))
	return group
}

func newDKECheckCmd() *cobra.Command {
	var lang string
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "check FILE… [--language eng|nob] [--format text|json]",
		Short: "Check DKE modules without storing anything; exit 1 on any diagnostic",
		Long: `Checks DKE Python module files without storing anything. Each file is a
module named after the file (its base name without extension); the files
may import one another. Prints each diagnostic as file:line:col: class:
message, followed by its fix when it has one, or the diagnostics as one
JSON array with --format json (each element the wire diagnostic {class, line,
col, message, fix?} with the file it is in).

Exit status: 1 when there is any diagnostic or a file cannot be read, 2 on
a usage error, 0 otherwise.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			l, err := keywords.ParseLang(lang)
			if err != nil {
				return usageError{"--language: " + err.Error()}
			}
			for _, f := range files {
				// Refuse what is not a regular file before the checker reads it.
				if _, err := readRegular(f); err != nil {
					return err
				}
			}
			diags, err := dke.CheckFiles(files, l)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if format.json() {
				if err := writeDiagnosticsJSON(w, diags); err != nil {
					return err
				}
			} else {
				for _, d := range diags {
					fmt.Fprintln(w, d.Error())
					if d.Fix != "" {
						fmt.Fprintf(w, "\tfix: %s\n", d.Fix)
					}
				}
			}
			if len(diags) > 0 {
				return exitCode(1)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&lang, "language", "eng", "keyword surface: eng or nob")
	format = addFormat[[]fileDiagnostic](cmd)
	format.addJSONAlias(cmd) // --json, before --format was every command's (DL-0466)
	return cmd
}

// fileDiagnostic is a wire diagnostic with the file it is in.
type fileDiagnostic struct {
	File string `json:"file" desc:"the file the diagnostic is in, as given"`
	diag.Diagnostic
}

// writeDiagnosticsJSON prints the diagnostics as one indented JSON array,
// without escaping <, > and & (fixes hold placeholders such as <var>).
func writeDiagnosticsJSON(w io.Writer, diags diag.List) error {
	out := make([]fileDiagnostic, len(diags))
	for i, d := range diags {
		out[i] = fileDiagnostic{File: d.File, Diagnostic: d}
	}
	return writeJSON(w, out)
}
