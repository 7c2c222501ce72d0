package cli

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestCommandTable: every entry of the table makes the command it names,
// and a root built for one command holds that command alone, marked as
// the table says.
func TestCommandTable(t *testing.T) {
	full := newRoot(io.Discard, io.Discard)
	var names []string
	for _, c := range full.Commands() {
		names = append(names, c.Name())
	}
	for _, c := range commands() {
		if !slices.Contains(names, c.name) {
			t.Errorf("the full tree has no command %q (it has %v)", c.name, names)
		}
		root := newRootFor(io.Discard, io.Discard, []string{"--store", "x", c.name, "--help"})
		cmds := root.Commands()
		if len(cmds) != 1 || cmds[0].Name() != c.name {
			t.Errorf("the root for %q holds %d commands", c.name, len(cmds))
			continue
		}
		ann := cmds[0].Annotations
		if got := ann[readsOnly] != ""; got != (c.kind == readsOnlyCmd) {
			t.Errorf("%s: reads-only mark %v", c.name, got)
		}
	}
	if len(names) != len(commands()) {
		t.Errorf("the full tree has %d commands, the table %d", len(names), len(commands()))
	}
}

func TestCommandNamed(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"log", "-n", "2"}, "log"},
		{[]string{"--store", "log", "show"}, "show"},
		{[]string{"--project=p", "--no-fsync", "check", "f.dli"}, "check"},
		{[]string{"--author", "A <a@b>", "merge", "x"}, "merge"},
		{[]string{"help", "log"}, ""},
		{[]string{"lgo"}, ""},
		{[]string{"--", "log"}, ""},
		{[]string{"--store"}, ""},
		{[]string{"--budget-time", "5s", "log"}, "log"},
		{[]string{"--budget-memory", "1MiB", "show", "x"}, "show"},
	} {
		if got := commandNamed(c.args); got != c.want {
			t.Errorf("commandNamed(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}

// TestGlobalValueFlags: every flag of the root that takes a value is one
// commandNamed skips the value of, so that no value is read as the command.
func TestGlobalValueFlags(t *testing.T) {
	root := newRoot(io.Discard, io.Discard)
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		takesValue := f.NoOptDefVal == ""
		if got := globalValueFlags["--"+f.Name]; got != takesValue {
			t.Errorf("--%s: in globalValueFlags %v, takes a value %v", f.Name, got, takesValue)
		}
	})
}

// TestCompletionCommand: the shell-completion command is left out of a
// named command's tree (its start is shorter) and is there otherwise.
func TestCompletionCommand(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{args: []string{"completion", "bash"}, want: true},
		{args: []string{"--project", ".", "completion", "zsh"}, want: true},
		{args: []string{"log", "-n", "2"}, want: false},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		root := newRootFor(&out, &errb, tt.args)
		root.InitDefaultCompletionCmd(tt.args...)
		found := false
		for _, c := range root.Commands() {
			found = found || c.Name() == "completion"
		}
		if found != tt.want {
			t.Errorf("%q: completion command %v, want %v", tt.args, found, tt.want)
		}
	}
	out, errs, code := deloreis(t, "completion", "bash")
	if code != 0 || !strings.Contains(out, "bash completion") {
		t.Fatalf("completion bash: exit %d, %q, stderr %s", code, out[:min(len(out), 80)], errs)
	}
}
