// The DKE tools served: the MCP server of a chosen set of them (stdio, or
// streamable HTTP behind the keyring, each call under its key's grant),
// and one call made as an MCP client sees it.

package mcpserve

import (
	"context"
	"encoding/json"
	"io"
	"slices"

	"github.com/deloreis/deloreis/dke/keys"
	"github.com/deloreis/deloreis/dke/service"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeDKE serves the named DKE tools of reg over MCP until the client
// closes the session (stdio, where the caller is trusted) or ctx ends
// (streamable HTTP at httpAddr, where every request needs a key of ring
// and each call runs under that key's grant), under lim.
func ServeDKE(ctx context.Context, reg *worker.Registry, tools []string, ring *keys.Ring, httpAddr string, lim Limits, in io.Reader, out, errw io.Writer) error {
	server := dkeServer(reg, tools, httpAddr != "")
	if httpAddr != "" {
		h := KeyHandlerWith(server, ring, lim)
		return ServeHTTP(ctx, server, h, httpAddr, errw, "DKE MCP", " (bearer keys required)", lim)
	}
	return ServeStdioWith(ctx, server, in, out, lim)
}

// dkeServer is the MCP server of the named tools. Over HTTP every call
// runs under the grant of the caller's key; a call that somehow arrives
// without one runs under the empty grant, which addresses no store, so
// it can never act with more than a key allows.
func dkeServer(reg *worker.Registry, tools []string, overHTTP bool) *mcp.Server {
	o := DKEOptions()
	if overHTTP {
		o.Context = func(ctx context.Context, req *mcp.CallToolRequest) context.Context {
			var g keys.Grant
			if req.Extra != nil {
				g, _ = GrantOf(req.Extra.TokenInfo)
			}
			return service.WithGrant(ctx, g)
		}
	}
	s := NewWithOptions(reg, worker.ProfileExtended, o)
	var drop []string
	for _, op := range reg.Ops(worker.ProfileExtended) {
		if !slices.Contains(tools, op.Name) {
			drop = append(drop, ToolName(op.Name))
		}
	}
	s.RemoveTools(drop...)
	return s
}

// CallDKE makes one tool call through reg and returns the text an MCP
// client would see, and whether the call succeeded (not refused, and the
// program did not fail).
func CallDKE(ctx context.Context, reg *worker.Registry, tool string, args json.RawMessage) (string, bool) {
	op, ok := reg.Lookup(tool)
	var resp worker.Response
	if ok {
		resp = call(ctx, reg, op, "cli-1", args)
	} else { // the registry's refusal of the name (unknown, or killed)
		line, e := Envelope(tool, "cli-1", args)
		resp = worker.Response{Err: e}
		if e == nil {
			resp = reg.Dispatch(ctx, line)
		}
	}
	o := DKEOptions()
	return o.Text(op, resp), resp.OK() && o.Meta(op, resp)["status"] == "success"
}
