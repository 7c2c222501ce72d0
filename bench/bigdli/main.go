// Command bigdli writes a large, clean .dli file for measuring check and
// import on big input (issue 8 item 7, issue 13): people, places, one fact
// and one relation per person, in the canonical surface. It streams, so a
// pipe into `deloreis import --bulk -` needs no file on disk.
//
//	go run ./bench/bigdli -mb 50 > big.dli      (about 50 MB)
//	go run ./bench/bigdli -n 10000000 | ...      (exactly 10M declarations)
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
)

func main() {
	mb := flag.Int("mb", 50, "approximate size of the file in megabytes (when -n is 0)")
	n := flag.Int("n", 0, "write exactly this many declarations (objects) instead")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	fmt.Fprintln(w, "scope big")
	more := func(bytes, decls int) bool {
		if *n > 0 {
			return decls < *n
		}
		return bytes < *mb<<20
	}
	const places = 1000
	size, decls := 0, 0
	for i := 0; i < places && more(size, decls); i++ {
		size += writef(w, "place place-%d \"Place %d\"   proposed  session-7c9\n", i, i)
		decls++
	}
	lines := [3]string{
		"person p-%d \"Person %d\"   proposed  session-7c9\n",
		"p-%d.title = \"Knight of the order %d\"   proposed  session-7c9\n",
		"serves(p-%d, place-%d)   proposed  session-7c9\n",
	}
	for i := 0; more(size, decls); i++ {
		args := [3][]any{{i, i}, {i, i % 97}, {i, i % places}}
		for k := 0; k < 3 && more(size, decls); k++ {
			size += writef(w, lines[k], args[k]...)
			decls++
		}
	}
}

// writef writes one formatted line and returns its length.
func writef(w *bufio.Writer, format string, args ...any) int {
	k, err := fmt.Fprintf(w, format, args...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bigdli:", err)
		os.Exit(1)
	}
	return k
}
