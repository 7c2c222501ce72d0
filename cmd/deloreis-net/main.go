// Command deloreis-net is the deloreis command line with its network half
// linked in (package internal/netparts): the MCP servers, the DKE tools,
// the casebook replay and git's transports. deloreis runs it for those
// commands; it runs every other command the same way deloreis does
// (DL-0330).
package main

import (
	"github.com/deloreis/deloreis/internal/cli"
	"github.com/deloreis/deloreis/internal/netparts"
)

func main() {
	cli.Main(&cli.Net{
		Transports:     netparts.Transports,
		StartServer:    netparts.StartServer,
		CheckBind:      netparts.CheckBind,
		ServeMCP:       netparts.ServeMCP,
		DKERegistry:    netparts.DKERegistry,
		DKEReadTools:   netparts.DKEReadTools,
		ServeDKE:       netparts.ServeDKE,
		CallDKE:        netparts.CallDKE,
		BuildDKEDemo:   netparts.BuildDKEDemo,
		ReplayCasebook: netparts.ReplayCasebook,
	})
}
