// The DKE server's adaptation: the registry of the DKE tools (see
// worker.RegisterDKE) served with the name, the _meta and the text that
// dke-mcp-contract.txt gives every result (§4.1, §6.1).

package mcpserve

import (
	"encoding/json"

	"github.com/deloreis/deloreis/dke/service"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DKEOptions adapt the server to the DKE contract: its name and version
// (deloreis-dke, dke-1), the _meta of every result and the human text of
// each tool. A caller serving over HTTP sets Context to carry the grant of
// the caller's key (see GrantOf).
func DKEOptions() Options {
	return Options{Name: "deloreis-dke", Version: "dke-1", Meta: dkeMeta, Text: dkeText}
}

// dkeMeta is a result's _meta: status, and for a compile error its
// compile_status and diagnostics.
func dkeMeta(_ *worker.Op, resp worker.Response) mcp.Meta {
	if resp.Err != nil {
		if resp.Err.Code == service.CodeCompileError {
			return mcp.Meta{"status": "compile_error", "compile_status": resp.Err.Data["compile_status"], "diagnostics": resp.Err.Data["diagnostics"]}
		}
		return mcp.Meta{"status": "error", "code": resp.Err.Code}
	}
	var r struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(resp.Result, &r)
	switch r.Status {
	case "ok", "success", "":
		return mcp.Meta{"status": "success"}
	}
	return mcp.Meta{"status": "runtime_error"}
}

// dkeText is a result's text content: the transcript or the tool's text,
// or the refusal's message.
func dkeText(_ *worker.Op, resp worker.Response) string {
	if resp.Err != nil {
		return "error: " + resp.Err.Message
	}
	var r struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(resp.Result, &r)
	return r.Text
}
