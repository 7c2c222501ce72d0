package author

import (
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/lorestore/wire"
)

// The store links no transport of its own (DL-0330, DL-0350); tests that
// fetch use package wire, as the command line does.
func init() { lorestore.UseTransports(wire.Dial) }
