package cli

import (
	"github.com/deloreis/deloreis/internal/netparts"
	"github.com/deloreis/deloreis/lorestore"
)

// The tests run every command in process, the network half included, as
// deloreis-net does (cmd/deloreis-net).
func init() {
	linked = &Net{
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
	}
	lorestore.UseTransports(netparts.Transports)
}
