// The README's quick start and MCP client snippets, run as written.

package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// readmeSection is the text of the README's section titled heading, up to
// the next section.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("the README has no section %q", heading)
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// fencedBlocks are the bodies of the section's ``` blocks of one language.
func fencedBlocks(section, lang string) []string {
	re := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```")
	var out []string
	for _, m := range re.FindAllStringSubmatch(section, -1) {
		out = append(out, m[1])
	}
	return out
}

// cleanEnv is an environment with deloreis first on PATH and nothing of
// this machine's identity or git configuration: what a newcomer has.
func cleanEnv(t *testing.T, extra ...string) []string {
	home := t.TempDir()
	return append([]string{
		"PATH=" + filepath.Dir(binary(t)) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home, "XDG_CONFIG_HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "LANG=C.UTF-8",
	}, extra...)
}

// TestREADMEQuickStart runs the quick start, every line as written, from
// an empty folder; each line must succeed, and together they must commit,
// publish to the bare hub that git reads, and serve.
func TestREADMEQuickStart(t *testing.T) {
	blocks := fencedBlocks(readmeSection(t, "Quick start"), "sh")
	if len(blocks) != 1 {
		t.Fatalf("the quick start has %d sh blocks, want 1", len(blocks))
	}
	if n := strings.Count(strings.TrimSpace(blocks[0]), "\n") + 1; n > 12 {
		t.Errorf("the quick start is %d lines; it should stay about ten", n)
	}
	dir := t.TempDir()
	cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", blocks[0])
	cmd.Dir = dir
	cmd.Env = cleanEnv(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the quick start failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		"Declared scope camelot",          // init
		"committed ",                      // import --materialize
		"+ person arthur",                 // show: the last commit as .dli
		"import camelot.dli into camelot", // git log of the hub
		`"ok":true,"workspace":"ws-1"`,    // serve
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the quick start's output lacks %q:\n%s", want, out)
		}
	}
	if dot, err := os.ReadFile(filepath.Join(dir, "lore", "camelot.dot")); err != nil || !strings.Contains(string(dot), "arthur") {
		t.Errorf("the quick start drew no graph of arthur: %v %s", err, dot)
	}
}

// mcpSnippet is one client's configuration of the deloreis server.
type mcpSnippet struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// TestREADMEMCPClients starts the server of each MCP client snippet in the
// README — Claude Desktop, Claude Code (its .mcp.json and its `claude mcp
// add` line) and VS Code — as written, with the project's path
// substituted, and lists its tools.
func TestREADMEMCPClients(t *testing.T) {
	section := readmeSection(t, "Use with an MCP client")
	project := t.TempDir()
	init := exec.Command(binary(t), "init", "--scope", "camelot")
	init.Dir = project
	init.Env = cleanEnv(t, "DELOREIS_AUTHOR=Ada Lovelace <ada@example.com>")
	if out, err := init.CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}

	var snippets []mcpSnippet
	for _, block := range fencedBlocks(section, "json") {
		var cfg struct {
			MCPServers map[string]mcpSnippet `json:"mcpServers"` // Claude Desktop, Claude Code
			Servers    map[string]mcpSnippet `json:"servers"`    // VS Code
		}
		if err := json.Unmarshal([]byte(block), &cfg); err != nil {
			t.Fatalf("a JSON snippet does not parse: %v\n%s", err, block)
		}
		s, ok := cfg.MCPServers["deloreis"]
		if !ok {
			s, ok = cfg.Servers["deloreis"]
		}
		if !ok {
			t.Fatalf("a JSON snippet names no deloreis server:\n%s", block)
		}
		snippets = append(snippets, s)
	}
	add := regexp.MustCompile("`claude mcp add deloreis -- ([^`]+)`").FindStringSubmatch(section)
	if add == nil {
		t.Fatal("the README gives no `claude mcp add` line")
	}
	words := strings.Fields(add[1])
	snippets = append(snippets, mcpSnippet{Command: words[0], Args: words[1:]})
	if len(snippets) != 4 {
		t.Fatalf("%d snippets, want 4 (Claude Desktop, Claude Code twice, VS Code)", len(snippets))
	}

	for i, s := range snippets {
		if s.Command != "deloreis" || (s.Type != "" && s.Type != "stdio") {
			t.Errorf("snippet %d starts %q (%q), want deloreis over stdio", i, s.Command, s.Type)
			continue
		}
		args := slices.Clone(s.Args)
		for j, a := range args {
			a = strings.ReplaceAll(a, "/path/to/lore", project)
			args[j] = strings.ReplaceAll(a, "${workspaceFolder}", project)
		}
		cmd := exec.Command(binary(t), args...)
		cmd.Dir = t.TempDir() // a client starts its servers from a folder of its own
		cmd.Env = cleanEnv(t)
		for k, v := range s.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		ctx := context.Background()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "readme", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Errorf("snippet %d (%v): %v", i, args, err)
			continue
		}
		tools, err := cs.ListTools(ctx, nil)
		cs.Close()
		if err != nil || !slices.ContainsFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == "author_open" }) {
			t.Errorf("snippet %d (%v): tools/list answered %v without author_open", i, err, tools)
		}
	}
}
