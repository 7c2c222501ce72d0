package lorestore

import "github.com/go-git/go-git/v5/plumbing/transport/client"

// The store links no transport of its own (DL-0330); its tests use
// go-git's, as deloreis-net does.
func init() { UseTransports(client.NewClient) }
