// Command deloreis is the command line of the deloreis lorestore (package
// internal/cli) without its network half: it starts in about the time git
// does, and hands the commands that talk to a remote or serve MCP to
// deloreis-net, installed beside it (DL-0330).
package main

import "github.com/deloreis/deloreis/internal/cli"

func main() { cli.Main(nil) }
