// Command fastimport turns a .dli file into a git fast-import stream of
// one commit holding the same blobs at the same paths as the lorestore
// files them (scopes/<scope>/<section>/…/<id>.json), so that git
// fast-import can be timed doing the work of a bulk import (issue 13).
//
//	go run ./bench/fastimport big.dli > big.fi
//	git init -q --bare fi.git && git --git-dir fi.git fast-import --quiet < big.fi
package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"

	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/objects"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: fastimport FILE.dli > stream")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "fastimport:", err)
		os.Exit(1)
	}
}

func run(file string) error {
	src, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	doc, err := dli.Parse(file, src)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	paths := map[string]int{} // path -> mark: a repeated object is one file
	for i, d := range doc.Decls {
		data, err := objects.Canonical(d.Object)
		if err != nil {
			return err
		}
		id, _ := d.Object.ID()
		p := path(doc.Scope, d.Object, id)
		if _, ok := paths[p]; ok {
			continue
		}
		paths[p] = i + 1
		fmt.Fprintf(w, "blob\nmark :%d\ndata %d\n%s\n", i+1, len(data), data)
	}
	fmt.Fprintf(w, "commit refs/heads/main\ncommitter t <t@t> 1700000000 +0000\ndata 12\nbulk import\n")
	keys := make([]string, 0, len(paths))
	for p := range paths {
		keys = append(keys, p)
	}
	sort.Strings(keys)
	for _, p := range keys {
		fmt.Fprintf(w, "M 100644 :%d %s\n", paths[p], p)
	}
	return w.Flush()
}

// path is where the lorestore files an object (lorestore/layout.go).
func path(scope string, o objects.Object, id objects.ID) string {
	base := "scopes/" + scope + "/"
	switch sec := objects.Section(o.Type()); sec {
	case objects.SectionClaims:
		return fmt.Sprintf("%s%s/%02x/%s.json", base, sec, id[0], id)
	case objects.SectionStanding:
		return fmt.Sprintf("%s%s/%s/%s.json", base, sec, o.(*objects.Standing).Revises(), id)
	default:
		return fmt.Sprintf("%s%s/%s.json", base, sec, id)
	}
}
