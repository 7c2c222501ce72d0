// Command parsemem measures dli.Parse on one large file, for a figure of
// peak memory taken with /usr/bin/time -v:
//
//	go run ./dli/internal/parsemem -gen /tmp/big.dli   # write a 50 MB document
//	go build -o /tmp/parsemem ./dli/internal/parsemem
//	/usr/bin/time -v /tmp/parsemem /tmp/big.dli        # parse it once
//
// It prints the size, the parse time, MB/s, the bytes allocated and the
// live heap after the parse.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/dli/internal/bigdoc"
)

func main() {
	gen := flag.String("gen", "", "write a generated document to this file instead of parsing")
	mb := flag.Int("mb", 50, "size of the generated document in MB")
	flag.Parse()
	if *gen != "" {
		if err := generate(*gen, *mb<<20); err != nil {
			fmt.Fprintln(os.Stderr, "parsemem:", err)
			os.Exit(1)
		}
		return
	}
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: parsemem [-gen FILE [-mb N]] | FILE")
		os.Exit(2)
	}
	if err := measure(flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "parsemem:", err)
		os.Exit(1)
	}
}

// generate writes a document of at least size bytes.
func generate(path string, size int) error {
	doc := &dli.Document{Grammar: dli.Grammar, Scope: "camelot"}
	for _, o := range bigdoc.Objects(1000) {
		doc.Decls = append(doc.Decls, dli.Decl{Object: o})
	}
	n := size/len(dli.Format(doc))*1000 + 1000
	doc.Decls = doc.Decls[:0]
	for _, o := range bigdoc.Objects(n) {
		doc.Decls = append(doc.Decls, dli.Decl{Object: o})
	}
	return os.WriteFile(path, dli.Format(doc), 0o644)
}

// measure parses the file once and prints the figures.
func measure(path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	doc, err := dli.Parse(path, src)
	took := time.Since(start)
	if err != nil {
		return err
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	mbs := float64(len(src)) / (1 << 20)
	fmt.Printf("%.1f MB, %d declarations: parsed in %v (%.1f MB/s), %d MB allocated, %d MB live after\n",
		mbs, len(doc.Decls), took.Round(time.Millisecond), mbs/took.Seconds(),
		(after.TotalAlloc-before.TotalAlloc)>>20, after.HeapAlloc>>20)
	runtime.KeepAlive(doc)
	return nil
}
