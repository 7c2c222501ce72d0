// Package deloreis holds what the module embeds from its root, where the
// testdata it ships lives: the Holmes casebook's script and starting
// project, so that `deloreis casebook` replays it from any folder.
package deloreis

import (
	"embed"
	"io/fs"
)

//go:embed testdata/casebook
var casebookFiles embed.FS

// Casebook returns the Holmes casebook's starting project (the text of
// its deloreis.toml) and its script (holmes.jsonl).
func Casebook() (project, script []byte) {
	project, err := fs.ReadFile(casebookFiles, "testdata/casebook/deloreis.toml")
	if err != nil {
		panic(err) // embedded above: only a broken build lacks it
	}
	script, err = fs.ReadFile(casebookFiles, "testdata/casebook/holmes.jsonl")
	if err != nil {
		panic(err)
	}
	return project, script
}
