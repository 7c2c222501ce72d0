// Command bigdli writes a large, clean .dli file for measuring check and
// import on big input (issue 8 item 7): people, places, one fact and one
// relation per person, in the canonical surface.
//
//	go run ./bench/bigdli -mb 50 > big.dli
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
)

func main() {
	mb := flag.Int("mb", 50, "approximate size of the file in megabytes")
	flag.Parse()
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	fmt.Fprintln(w, "scope big")
	const places = 1000
	n := 0
	for i := 0; i < places; i++ {
		n += writef(w, "place place-%d \"Place %d\"   proposed  session-7c9\n", i, i)
	}
	for i := 0; n < *mb<<20; i++ {
		n += writef(w, "person p-%d \"Person %d\"   proposed  session-7c9\n", i, i)
		n += writef(w, "p-%d.title = \"Knight of the order %d\"   proposed  session-7c9\n", i, i%97)
		n += writef(w, "serves(p-%d, place-%d)   proposed  session-7c9\n", i, i%places)
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
