package cli

// Helpers for the whole-process acceptance tests (collab_test.go,
// subfolder_test.go, merge_parity_test.go): the real deloreis binary run
// as a subprocess in a folder of the test's choosing, with no --project,
// so that the project is found as a user's shell would find it.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wpEnv is the environment of every subprocess: a fixed author and commit
// time, so that no commit depends on the machine's git config or clock.
func wpEnv() []string {
	return append(os.Environ(), "DELOREIS_AUTHOR=Acceptance Test <acceptance@deloreis.invalid>",
		"DELOREIS_COMMIT_DATE=2026-12-01T10:00:00Z")
}

// wpRun runs `deloreis args…` in dir and returns its stdout, stderr and
// exit status; it fails the test when the program cannot be run or takes
// longer than a minute.
func wpRun(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	return wpRunStdin(t, dir, "", args...)
}

// wpRunStdin is wpRun with stdin as the program's standard input.
func wpRunStdin(t *testing.T, dir, stdin string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), args...)
	cmd.Dir = dir
	cmd.Env = wpEnv()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), errb.String(), 0
	case errors.As(err, &exit) && ctx.Err() == nil:
		return out.String(), errb.String(), exit.ExitCode()
	default:
		t.Fatalf("deloreis %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, errb.String())
		return "", "", -1
	}
}

// wpMust runs a command that must exit 0 and returns its stdout.
func wpMust(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, errs, code := wpRun(t, dir, args...)
	if code != 0 {
		t.Fatalf("deloreis %s (in %s): exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), dir, code, out, errs)
	}
	return out
}

// wpGit runs real git and returns its trimmed stdout.
func wpGit(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

// wpNoProjectAbove fails the test unless neither dir nor any folder above
// it holds deloreis.toml or .lore — a folder where no project is found.
func wpNoProjectAbove(t *testing.T, dir string) {
	t.Helper()
	for d := dir; ; d = filepath.Dir(d) {
		for _, name := range []string{"deloreis.toml", ".lore"} {
			if _, err := os.Stat(filepath.Join(d, name)); err == nil {
				t.Fatalf("%s holds %s: the test needs a folder outside any project", d, name)
			}
		}
		if filepath.Dir(d) == d {
			return
		}
	}
}

// wpCopyTree copies the folder src (files, folders and their modes) to dst.
func wpCopyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(to, info.Mode().Perm()|0o700)
		case info.Mode().IsRegular():
			in, err := os.Open(p)
			if err != nil {
				return err
			}
			defer in.Close()
			out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, info.Mode().Perm())
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, in); err != nil {
				out.Close()
				return err
			}
			return out.Close()
		default:
			return errors.New("not a regular file or folder: " + p)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// wpMCP is one long-lived `deloreis mcp --tools all` over stdio, run in a
// folder with no --project, driven by go-sdk's client.
type wpMCP struct {
	t    *testing.T
	name string
	cs   *mcp.ClientSession
}

func wpStartMCP(t *testing.T, name, dir string) *wpMCP {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	cmd := exec.Command(binary(t), "mcp", "--tools", "all")
	cmd.Dir = dir
	cmd.Env = wpEnv()
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "acceptance-" + name, Version: "0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%s: deloreis mcp in %s: %v", name, dir, err)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("%s: close: %v", name, err)
		}
		if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
			t.Errorf("%s: deloreis mcp did not exit 0: %v", name, cmd.ProcessState)
		}
	})
	return &wpMCP{t: t, name: name, cs: cs}
}

// call calls one tool and returns its structured content and whether the
// tool answered with an error.
func (m *wpMCP) call(tool string, args map[string]any) (map[string]any, bool) {
	m.t.Helper()
	res, err := m.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		m.t.Fatalf("%s: %s: %v", m.name, tool, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil || out == nil {
		m.t.Fatalf("%s: %s answered no structured object: %s (%+v)", m.name, tool, b, res.Content)
	}
	checkToolSchema(m.t, tool, b, res.IsError)
	return out, res.IsError
}

// ok calls a tool that must succeed.
func (m *wpMCP) ok(tool string, args map[string]any) map[string]any {
	m.t.Helper()
	out, isErr := m.call(tool, args)
	if isErr {
		m.t.Fatalf("%s: %s %v refused: %v", m.name, tool, args, out)
	}
	return out
}

// wpErrorCode is the code of a refusal's error object ("" when none).
func wpErrorCode(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}
