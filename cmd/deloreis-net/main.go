// Command deloreis-net is the deloreis command line with its network half
// linked in (package internal/netparts): the servers, the DKE tools, the
// casebook replay and git's transports. deloreis runs it for those
// commands; it runs every other command the same way deloreis does
// (DL-0330).
package main

import (
	"github.com/deloreis/deloreis/internal/cli"
	"github.com/deloreis/deloreis/internal/netparts"
)

func main() { cli.Main(netparts.Parts{}) }
