// Command deloreis is the command line of the deloreis lorestore: every
// command, the servers (serve, mcp, dke mcp) and the git transports in
// one program (package internal/cli).
package main

import "github.com/deloreis/deloreis/internal/cli"

func main() { cli.Main() }
