// The one --format flag of every command that prints results: text (the
// default, for people) or json (one document on stdout, for programs, of
// the shape contracts/cli/ pins and docs/cli-json.md describes). Errors
// stay on stderr and the exit status is the same in both formats
// (DL-0465).

package cli

import (
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/worker"
	"github.com/spf13/cobra"
)

// formatFlag is the value of a command's --format. It refuses a value that
// is not one of its choices when the flag is parsed, so that a bad value is
// a usage error (exit 2) naming the choices before the command does
// anything.
type formatFlag struct {
	value   string
	choices []string
	// result is the Go type the command prints with --format json; its
	// schema is generated from it (format_test.go writes contracts/cli/).
	result reflect.Type
}

func (f *formatFlag) String() string { return f.value }

func (f *formatFlag) Set(s string) error {
	if !slices.Contains(f.choices, s) {
		return fmt.Errorf("want %s", choiceList(f.choices))
	}
	f.value = s
	return nil
}

// Type is what help shows after the flag's name: its choices.
func (f *formatFlag) Type() string { return strings.Join(f.choices, "|") }

// json reports whether the command prints its result as JSON.
func (f *formatFlag) json() bool { return f.value == "json" }

// emit prints v, the command's result, as one indented JSON document.
func (f *formatFlag) emit(w io.Writer, v any) error { return writeJSON(w, v) }

// choiceList is "a or b" (or "a, b or c").
func choiceList(cs []string) string {
	if len(cs) < 2 {
		return strings.Join(cs, "")
	}
	return strings.Join(cs[:len(cs)-1], ", ") + " or " + cs[len(cs)-1]
}

// addFormat gives cmd the shared --format text|json flag; with json the
// command prints one document of type T.
func addFormat[T any](cmd *cobra.Command) *formatFlag {
	f := &formatFlag{value: "text", choices: []string{"text", "json"}, result: reflect.TypeFor[T]()}
	cmd.Flags().Var(f, "format", "output format: text, or json (one document on stdout; its shapes are in docs/cli-json.md)")
	f.complete(cmd)
	return f
}

// complete makes the shell complete the flag's choices (the flag was just
// made: registering cannot fail).
func (f *formatFlag) complete(cmd *cobra.Command) {
	cmd.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return f.choices, cobra.ShellCompDirectiveNoFileComp
	})
}

// addPictureFormat gives a command that prints a picture, not results,
// the same --format flag with the picture's languages as its choices (the
// first the default) and no JSON result (DL-0467): graph's dot|svg.
func addPictureFormat(cmd *cobra.Command, usage string, choices ...string) *formatFlag {
	f := &formatFlag{value: choices[0], choices: choices}
	cmd.Flags().Var(f, "format", usage)
	f.complete(cmd)
	return f
}

// legacyResults are the JSON results of the commands whose --format is
// still a string flag of their own, checked by checkFormat (log, show):
// their shapes are pinned and tested like the others' until they take
// addFormat.
var legacyResults = map[string]reflect.Type{
	"log":  reflect.TypeFor[[]commitJSON](),
	"show": reflect.TypeFor[showResult](),
}

// showResult is what show prints with --format json: a commit, or the
// one object an id names (dli.object's result).
type showResult struct{}

// JSONSchema is either shape.
func (showResult) JSONSchema() map[string]any {
	return map[string]any{"oneOf": []any{
		worker.SchemaOf(reflect.TypeFor[commitJSON]()),
		worker.SchemaOf(reflect.TypeFor[author.ObjectResult]()),
	}}
}

// resultType is the type a command prints with --format json: its
// formatFlag's, or the legacy table's; nil for a command with no JSON
// output.
func resultType(cmd *cobra.Command) reflect.Type {
	fl := cmd.Flags().Lookup("format")
	if fl == nil {
		return nil
	}
	if f, ok := fl.Value.(*formatFlag); ok {
		return f.result
	}
	return legacyResults[commandKey(cmd)]
}

// commandKey names a command as contracts/cli/ names its schema: its path
// under the root, words joined by dots ("remote.list").
func commandKey(cmd *cobra.Command) string {
	path := strings.Fields(cmd.CommandPath())
	return strings.Join(path[1:], ".")
}

// plural is "1 declaration", "2 declarations".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// addJSONAlias keeps a command's old --json flag working as a deprecated
// alias of --format json: hidden from help, and each use says so on
// stderr in one line (DL-0466). Call it after cmd's PreRunE is set.
func (f *formatFlag) addJSONAlias(cmd *cobra.Command) {
	var alias bool
	cmd.Flags().BoolVar(&alias, "json", false, "deprecated: use --format json")
	cmd.Flags().MarkHidden("json") // the flag was just made: MarkHidden cannot fail
	prev := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if alias {
			if c.Flags().Changed("format") && !f.json() {
				return usageError{"--json asks for --format json, but --format " + f.value + " was given"}
			}
			fmt.Fprintln(c.ErrOrStderr(), "deloreis: --json is deprecated; use --format json")
			f.value = "json"
		}
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
}
