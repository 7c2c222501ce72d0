package cli

import (
	"github.com/deloreis/deloreis/internal/netparts"
	"github.com/deloreis/deloreis/lorestore"
)

// The tests run every command in process, the network half included, as
// deloreis-net does (cmd/deloreis-net).
func init() {
	linked = netparts.Parts{}
	lorestore.UseTransports(linked.Transports)
}
