// The JSON-on-stdio server: one request a line in, one response a line
// out, in order.

package worker

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
)

// MaxFrame is the longest request line the stdio server reads (16 MiB).
const MaxFrame = 16 << 20

// ServeStdio reads requests from r, one JSON object a line, and writes
// each response as one line to w, in the order the requests came. Blank
// lines are skipped. A line longer than MaxFrame is answered with a
// frame-too-large error and skipped. It returns nil at the end of r, or the
// first read or write error, or the context's error.
//
// Requests are answered one at a time: a client that pipelines calls on
// one workspace gets them applied in the order it sent them.
func (r *Registry) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	// The lines are read on their own goroutine, so that a cancelled
	// context (SIGTERM to an idle server) ends the loop even while a read
	// waits for a line that may never come; that goroutine then ends with
	// its input, or with the process.
	frames := make(chan stdioFrame)
	go func() {
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			var f stdioFrame
			f.line, f.tooLong, f.err = readFrame(br)
			select {
			case frames <- f:
			case <-ctx.Done():
				return
			}
			if f.err != nil {
				return
			}
		}
	}()
	bw := bufio.NewWriter(out)
	for {
		var f stdioFrame
		select {
		case <-ctx.Done():
			return ctx.Err()
		case f = <-frames:
		}
		if len(f.line) > 0 || f.tooLong {
			var resp Response
			if f.tooLong {
				resp = Response{Err: Errorf(ClassSchema, CodeFrameTooLarge, "request line longer than %d bytes", MaxFrame)}
			} else {
				resp = r.Dispatch(ctx, f.line)
			}
			data, merr := json.Marshal(resp)
			if merr != nil {
				data, _ = json.Marshal(Response{ID: resp.ID, Err: Errorf(ClassInternal, CodeInternal, "response: %v", merr)})
			}
			bw.Write(data)
			bw.WriteByte('\n')
			if ferr := bw.Flush(); ferr != nil {
				return ferr
			}
		}
		if errors.Is(f.err, io.EOF) {
			return nil
		}
		if f.err != nil {
			return f.err
		}
	}
}

// stdioFrame is one line read, or the read's error.
type stdioFrame struct {
	line    []byte
	tooLong bool
	err     error
}

// readFrame reads one line without its newline (and a trailing \r),
// trimming surrounding blanks. A line over MaxFrame is consumed and
// reported as too long.
func readFrame(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, isPrefix, rerr := br.ReadLine()
		if !tooLong {
			if len(buf)+len(chunk) > MaxFrame {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if rerr != nil {
			return trim(buf), tooLong, rerr
		}
		if !isPrefix {
			return trim(buf), tooLong, nil
		}
	}
}

func trim(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
