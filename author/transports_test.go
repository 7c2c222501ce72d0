package author

import (
	"github.com/deloreis/deloreis/lorestore"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
)

// The store links no transport of its own (DL-0330); tests that fetch use
// go-git's, as deloreis-net does.
func init() { lorestore.UseTransports(client.NewClient) }
