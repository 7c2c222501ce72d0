package lorestore_test

import (
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/lorestore/wire"
)

// The store links no transport and no git protocol of its own (DL-0330,
// DL-0350); its tests use package wire, as the command line does. This file is
// of the external test package because wire imports lorestore; its init
// runs before every test of the package, internal ones included.
func init() { lorestore.UseTransports(wire.Dial) }
