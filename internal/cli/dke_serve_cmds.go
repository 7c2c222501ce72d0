// The DKE server and its tools on the command line: dke mcp serves the
// DKE tools (dke/service) over stdio or streamable HTTP behind the keys;
// dke compile, run and checkup make one call each through the same
// registry and print the text an MCP client would see.

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/service"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/internal/gcpolicy"
	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
	"github.com/spf13/cobra"
)

// dkeToolNames resolves --tools: all, read (the tools a read key may
// call) or a comma-separated list of tool names.
func (g *globals) dkeToolNames(reg *worker.Registry, spec string) ([]string, error) {
	var all []string
	for _, op := range reg.Ops(worker.ProfileExtended) {
		all = append(all, op.Name)
	}
	switch spec {
	case "", "all":
		return all, nil
	case "read":
		return service.ReadOnlyTools(), nil
	}
	var out []string
	for _, n := range strings.Split(spec, ",") {
		n = strings.TrimSpace(n)
		if !slices.Contains(all, n) {
			return nil, usageError{fmt.Sprintf("--tools: no tool %q (the tools: %s)", n, strings.Join(all, ", "))}
		}
		out = append(out, n)
	}
	return out, nil
}

func newDKEMCPCmd(g *globals) *cobra.Command {
	var tools, httpAddr string
	var lim *mcpserve.Limits
	cmd := &cobra.Command{
		Use:   "mcp [--http ADDR] [--tools all|read|NAME,…]",
		Short: "Serve the DKE tools over MCP (stdio, or streamable HTTP behind keys)",
		Long: `Speaks the Model Context Protocol with the DKE tools of the contract
(compile, run, spec, list, info, forget, forget_rule, forget_constraint,
list_modules, info_module, forget_module, stores, checkup) over the
lorestore of --store (or the project's). With neither flag it serves a
bundled demo store in a temporary folder (the inventory module in store
"default"), announced on stderr.

On stdio the caller is trusted (it started the process). With --http
ADDR it serves streamable HTTP at http://ADDR/mcp until interrupted,
loopback addresses only, and every request must carry a key made by dke
key create ("Authorization: Bearer <key>"): a missing or unknown key is
refused (401) before any tool runs; a key acts on its one store, and a
read key only through the tools that change nothing. A foreign Host or
Origin is refused (403).

--tools offers every tool (all, the default), the read-only ones (read),
or the comma-separated tools named. Exit status: 0 when the client closes
the session or the server is interrupted, 1 when the store cannot be
served.
` + limitsHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Every flag is checked before any work: no store is opened
			// and no demo built for a call that is a usage error.
			if httpAddr != "" {
				if err := mcpserve.CheckBind(httpAddr, ""); err != nil {
					return usageError{err.Error()}
				}
			}
			if err := checkLimits(lim); err != nil {
				return err
			}
			names, err := g.dkeToolNames(dkeRegistry(nil), tools) // the tool names need no store
			if err != nil {
				return err
			}
			defer gcpolicy.StartServer(cmd.ErrOrStderr())() // DL-0295
			svc, cleanup, err := g.dkeServed(cmd)
			if err != nil {
				return err
			}
			defer cleanup()
			reg := dkeRegistry(svc)
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return mcpserve.ServeDKE(ctx, reg, names, svc.Keyring(), httpAddr, *lim, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&tools, "tools", "all", "the tools offered: all, read, or a comma-separated list")
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve streamable HTTP on this loopback host:port instead of stdio (keys required)")
	lim = limitsFlags(cmd)
	return cmd
}

// dkeServed opens the DKE runtime over the lorestore the flags name or,
// when they name none, over the demo store, built in a temporary folder.
func (g *globals) dkeServed(cmd *cobra.Command) (*service.Service, func(), error) {
	if g.store != "" || cmd.Flag("project").Changed {
		svc, err := g.dkeService()
		if err != nil {
			return nil, nil, err
		}
		return svc, func() { svc.Close() }, nil
	}
	tmp, err := os.MkdirTemp("", "deloreis-dke-demo-")
	if err != nil {
		return nil, nil, err
	}
	svc, err := service.BuildDemo(tmp, g.options())
	if err != nil {
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "deloreis: serving the bundled DKE demo store (%s)\n", tmp)
	return svc, func() { svc.Close(); os.RemoveAll(tmp) }, nil
}

// callDKE makes one tool call through the registry, prints the text an MCP
// client would see, and fails (exit 1) when the call is refused or the
// program failed.
func (g *globals) callDKE(cmd *cobra.Command, tool string, params map[string]any, format *formatFlag) error {
	svc, err := g.dkeService()
	if err != nil {
		return err
	}
	defer svc.Close()
	reg := dkeRegistry(svc)
	args, err := json.Marshal(params)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	if format.json() {
		return callDKEJSON(ctx, cmd, reg, tool, args, format)
	}
	text, ok := mcpserve.CallDKE(ctx, reg, tool, args)
	fmt.Fprint(cmd.OutOrStdout(), text)
	if !strings.HasSuffix(text, "\n") {
		fmt.Fprintln(cmd.OutOrStdout())
	}
	if !ok {
		return exitCode(1)
	}
	return nil
}

// callDKEJSON makes the call as callDKE does and prints the tool's result
// (what an MCP client gets as structuredContent) as one JSON document. A
// refused call prints nothing on stdout: the text an MCP client would see
// (its diagnostics, for a compile error) goes to stderr, exit 1; a program
// that failed prints its result and exits 1, as in text.
func callDKEJSON(ctx context.Context, cmd *cobra.Command, reg *worker.Registry, tool string, args json.RawMessage, format *formatFlag) error {
	op, ok := reg.Lookup(tool)
	if !ok {
		return fmt.Errorf("the DKE tool %s is not served", tool)
	}
	var resp worker.Response
	if c, e := worker.ToolCall(op, "cli-1", args); e != nil {
		resp = worker.Response{ID: "cli-1", Err: e}
	} else {
		resp = reg.Call(ctx, op, c)
	}
	o := mcpserve.DKEOptions()
	if !resp.OK() {
		text := o.Text(op, resp)
		fmt.Fprint(cmd.ErrOrStderr(), text)
		if !strings.HasSuffix(text, "\n") {
			fmt.Fprintln(cmd.ErrOrStderr())
		}
		return exitCode(1)
	}
	if err := format.emit(cmd.OutOrStdout(), resp.Result); err != nil {
		return err
	}
	if o.Meta(op, resp)["status"] != "success" {
		return exitCode(1)
	}
	return nil
}

// dkeCallFlags are the flags the one-call commands share.
type dkeCallFlags struct {
	language, storeID string
	format            *formatFlag
}

func (f *dkeCallFlags) add(cmd *cobra.Command, language bool) {
	if language {
		cmd.Flags().StringVar(&f.language, "language", "", "the keyword surface, eng or nob (default: eng, or a module's stored language)")
	}
	cmd.Flags().StringVar(&f.storeID, "store-id", "", "the DKE store (default \"default\")")
}

// check refuses a bad --language or --store-id as a usage error, before
// the command reads its file or opens the store.
func (f *dkeCallFlags) check() error {
	if f.language != "" {
		if _, err := keywords.ParseLang(f.language); err != nil {
			return usageError{"--language: " + err.Error()}
		}
	}
	if err := service.CheckStoreID(f.storeID); err != nil {
		return usageError{"--store-id: " + fault.Of(err).Message}
	}
	return nil
}

// params are the call's arguments: language and store_id only when given,
// so that the service's defaults apply.
func (f *dkeCallFlags) params(p map[string]any) map[string]any {
	if f.language != "" {
		p["language"] = f.language
	}
	if f.storeID != "" {
		p["store_id"] = f.storeID
	}
	return p
}

func newDKECompileCmd(g *globals) *cobra.Command {
	var f dkeCallFlags
	var version string
	cmd := &cobra.Command{
		Use:   "compile NAME FILE [--language eng|nob] [--store-id ID]",
		Short: "Compile and store a DKE module, as the compile tool does; exit 1 when refused",
		Long: `Compiles FILE and stores it as module NAME of the DKE store (--store-id,
default "default") in the lorestore of --store or the project: the compile
tool of the DKE server, in one commit. Prints what the tool's text says
(what was installed, then the module body's output and effects). Exit
status 1 when the source does not compile (nothing is stored; the
diagnostics are printed), the call is refused, or the body fails.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			src, err := readRegular(args[1])
			if err != nil {
				return err
			}
			p := map[string]any{"name": args[0], "source": string(src)}
			if version != "" {
				p["version"] = version
			}
			return g.callDKE(cmd, "compile", f.params(p), f.format)
		},
	}
	f.add(cmd, true)
	f.format = addFormat[service.CompileResult](cmd)
	cmd.Flags().StringVar(&version, "version", "", "a label for this revision of the module")
	return cmd
}

func newDKERunCmd(g *globals) *cobra.Command {
	var f dkeCallFlags
	cmd := &cobra.Command{
		Use:   "run FILE [--language eng|nob] [--store-id ID]",
		Short: "Run a DKE program once and print its transcript; exit 1 when it fails",
		Long: `Runs the program in FILE once against the DKE store (--store-id, default
"default"), as the run tool does: its writes are committed, nothing is
left callable. Prints the transcript (OK program: <verdict>, then output
and effects). Exit status 1 when the program fails (its earlier writes
persist) or is refused.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			src, err := readRegular(args[0])
			if err != nil {
				return err
			}
			return g.callDKE(cmd, "run", f.params(map[string]any{"source": string(src)}), f.format)
		},
	}
	f.add(cmd, true)
	f.format = addFormat[service.RunResult](cmd)
	return cmd
}

func newDKECheckupCmd(g *globals) *cobra.Command {
	var f dkeCallFlags
	cmd := &cobra.Command{
		Use:   "checkup [--store-id ID]",
		Short: "Does the DKE store meet the reasoning over it: counts, then findings",
		Long: `Prints the checkup of the DKE store (--store-id, default "default"): a
counts line, then one finding a line (unread, unmet, near, violated).
Changes nothing. Exit status 1 when the call is refused.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(); err != nil {
				return err
			}
			return g.callDKE(cmd, "checkup", f.params(map[string]any{}), f.format)
		},
	}
	f.add(cmd, false)
	f.format = addFormat[service.CheckupResult](cmd)
	return cmd
}

// dkeRegistry is the registry of the DKE tools of svc.
func dkeRegistry(svc *service.Service) *worker.Registry {
	reg := worker.NewRegistry()
	worker.RegisterDKE(reg, svc)
	return reg
}
