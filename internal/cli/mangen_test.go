// Manual pages generated from the command tree (cobra's doc package over
// go-md2man): one page a command, docs/man/deloreis-<path>.1, each with
// its description, options, exit status and related pages. `make man`
// writes them; TestManPages fails when the pages checked in are not what
// the tree makes. It lives with the tests so that the program links none
// of cobra's doc package (go-md2man, blackfriday, yaml: 0.25 ms of
// package init at every start).

package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"
)

// manDate is the date the pages carry: fixed, so that the same tree
// always makes the same pages (a date of generation would make every
// regeneration a change).
var manDate = time.Date(2026, time.December, 1, 0, 0, 0, 0, time.UTC)

// genManPages writes the manual page of every command into dir.
func genManPages(dir string) error {
	root := newRoot(io.Discard, io.Discard)
	root.InitDefaultCompletionCmd()
	root.DisableAutoGenTag = true
	withExitStatus(root)
	header := &doc.GenManHeader{Section: "1", Date: &manDate, Source: "deloreis", Manual: "deloreis manual"}
	return doc.GenManTreeFromOpts(root, doc.GenManTreeOptions{Header: header, Path: dir, CommandSeparator: "-"})
}

// manText is s as markdown must hold it for go-md2man to print it as
// written: a "<" would begin an HTML tag (and "<email>" vanish), a "_"
// or "*" emphasis.
var manText = strings.NewReplacer("<", `\<`, "_", `\_`, "*", `\*`).Replace

// withExitStatus ends the description of every command of the tree with
// its exit codes (exitRows), which cobra's pages have no section for, and
// makes its texts markdown (manText).
func withExitStatus(c *cobra.Command) {
	desc := c.Long
	if desc == "" {
		desc = c.Short
	}
	desc, c.Short, c.Use = manText(desc), manText(c.Short), manText(c.Use)
	c.LocalFlags().VisitAll(func(f *pflag.Flag) { f.Usage = manText(f.Usage) })
	var b strings.Builder
	b.WriteString(strings.TrimRight(desc, "\n"))
	b.WriteString("\n\n# EXIT STATUS\n")
	for _, r := range exitRows(commandPath(c)) {
		fmt.Fprintf(&b, "**%d**\n: %s\n\n", r.code, r.meaning)
	}
	c.Long = strings.TrimRight(b.String(), "\n")
	for _, sub := range c.Commands() {
		withExitStatus(sub)
	}
}
