// The DKE tools' network half: their registry over a service, the MCP
// server of them (stdio, or streamable HTTP behind the keyring), one call
// made as an MCP client sees it, the demo store, and the casebook replay.

package netparts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/deloreis/deloreis/casebook"
	"github.com/deloreis/deloreis/dke/keys"
	"github.com/deloreis/deloreis/dke/service"
	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DKERegistry is the registry of the DKE tools of svc.
func (Parts) DKERegistry(svc *service.Service) *worker.Registry {
	reg := worker.NewRegistry()
	worker.RegisterDKE(reg, svc)
	return reg
}

// DKEReadTools are the tools a read key may call.
func (Parts) DKEReadTools() []string { return service.ReadOnlyTools() }

// ServeDKE serves the named DKE tools of reg over MCP until the client
// closes the session (stdio, where the caller is trusted) or ctx ends
// (streamable HTTP at httpAddr, where every request needs a key of ring
// and each call runs under that key's grant).
func (Parts) ServeDKE(ctx context.Context, reg *worker.Registry, tools []string, ring *keys.Ring, httpAddr string, in io.Reader, out, errw io.Writer) error {
	server := dkeServer(reg, tools, httpAddr != "")
	if httpAddr != "" {
		h := mcpserve.KeyHandler(server, ring)
		return serveHTTP(ctx, server, h, httpAddr, errw, "DKE MCP", " (bearer keys required)")
	}
	return runStdio(ctx, server, in, out)
}

// dkeServer is the MCP server of the named tools. Over HTTP every call
// runs under the grant of the caller's key; a call that somehow arrives
// without one runs under the empty grant, which addresses no store, so
// it can never act with more than a key allows.
func dkeServer(reg *worker.Registry, tools []string, overHTTP bool) *mcp.Server {
	o := mcpserve.DKEOptions()
	if overHTTP {
		o.Context = func(ctx context.Context, req *mcp.CallToolRequest) context.Context {
			var g keys.Grant
			if req.Extra != nil {
				g, _ = mcpserve.GrantOf(req.Extra.TokenInfo)
			}
			return service.WithGrant(ctx, g)
		}
	}
	s := mcpserve.NewWithOptions(reg, worker.ProfileExtended, o)
	var drop []string
	for _, op := range reg.Ops(worker.ProfileExtended) {
		if !slices.Contains(tools, op.Name) {
			drop = append(drop, mcpserve.ToolName(op.Name))
		}
	}
	s.RemoveTools(drop...)
	return s
}

// CallDKE makes one tool call through reg and returns the text an MCP
// client would see, and whether the call succeeded (not refused, and the
// program did not fail).
func (Parts) CallDKE(ctx context.Context, reg *worker.Registry, tool string, args json.RawMessage) (string, bool) {
	op, _ := reg.Lookup(tool)
	line, e := mcpserve.Envelope(tool, "cli-1", args)
	resp := worker.Response{Err: e}
	if e == nil {
		resp = reg.Dispatch(ctx, line)
	}
	o := mcpserve.DKEOptions()
	return o.Text(op, resp), resp.OK() && o.Meta(op, resp)["status"] == "success"
}

// dkeDemoModule is the demo store's module: the contract's inventory.
const dkeDemoModule = `def restock(id: string):
    remember(Widget[id].stock, 10, "restock")

def count_on_hand(id: string) -> int:
    c = current(Widget[id].stock)
    if c.found:
        return int(c.value)
    return 0
`

// BuildDKEDemo makes the demo lorestore in dir, store "default" with the
// inventory module compiled and one widget restocked, and returns the
// service over it (Close closes the store).
func (Parts) BuildDKEDemo(dir string, o service.StoreOptions) (*service.Service, error) {
	svc, err := service.Init(service.OpenOptions{StoreDir: dir, StoreOptions: o})
	if err != nil {
		return nil, err
	}
	_, err = svc.CreateStore(service.DefaultStore)
	if err == nil {
		src := dkeDemoModule
		_, err = svc.Compile(context.Background(), &service.CompileParams{Name: "inventory", Source: &src})
	}
	if err == nil {
		_, err = svc.Run(context.Background(), &service.RunParams{Source: "import inventory\ninventory.restock(\"widget-1\")\n"})
	}
	if err != nil {
		svc.Close()
		return nil, fmt.Errorf("the DKE demo store: %w", err)
	}
	return svc, nil
}

// ReplayCasebook replays a casebook script over the project file and
// returns its story as markdown and how many calls answered otherwise than
// the script expects.
func (Parts) ReplayCasebook(ctx context.Context, projectFile, script []byte) ([]byte, int, error) {
	story, err := casebook.Replay(ctx, projectFile, script)
	if err != nil {
		return nil, 0, err
	}
	var md bytes.Buffer
	if err := story.Markdown(&md); err != nil {
		return nil, 0, err
	}
	return md.Bytes(), story.Mismatches, nil
}
