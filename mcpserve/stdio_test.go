package mcpserve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/internal/testenv"
	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
)

// lineClient drives a server over pipes one raw line at a time.
type lineClient struct {
	t   *testing.T
	in  *io.PipeWriter
	out *bufio.Reader
}

func startLineServer(t *testing.T, reg *worker.Registry, lim mcpserve.Limits) *lineClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- mcpserve.ServeStdioWith(context.Background(), mcpserve.New(reg, worker.ProfileFiction), inR, outW, lim)
		outW.Close()
		inR.Close() // a client still writing learns the server ended
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("server: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("the server did not end when its input closed")
		}
	})
	c := &lineClient{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<20)}
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	c.recv()
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *lineClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// recv reads one response line.
func (c *lineClient) recv() map[string]any {
	c.t.Helper()
	type res struct {
		line string
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		l, err := c.out.ReadString('\n')
		ch <- res{l, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			c.t.Fatalf("read: %v (the server ended?)", r.err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(r.line), &m); err != nil {
			c.t.Fatalf("response %q: %v", r.line, err)
		}
		return m
	case <-time.After(20 * time.Second):
		c.t.Fatal("no response within 20 s")
	}
	return nil
}

// errCode is a response's error code (0 when none) and its id.
func errCode(m map[string]any) (float64, any) {
	e, _ := m["error"].(map[string]any)
	code, _ := e["code"].(float64)
	return code, m["id"]
}

// TestLineTransportLimits: a line longer than the cap is skipped to its
// end and answered -32600 with id null; a long line under the cap (longer
// than the reader's buffer) is served; blank lines are skipped; and the
// session goes on after each.
func TestLineTransportLimits(t *testing.T) {
	c := startLineServer(t, newRegistry(t), mcpserve.Limits{MaxLine: 200_000})
	pad := strings.Repeat("x", 150_000) // under the cap, over bufio's 64 KiB
	for _, tc := range []struct {
		name, line string
		code       float64
		id         any
	}{
		{"over the cap", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"p":"` + strings.Repeat("y", 300_000) + `"}}}`, -32600, nil},
		{"far over the cap", strings.Repeat("z", 3_000_000), -32600, nil},
		{"long, under the cap", `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"p":"` + pad + `"}}}`, 0, 2.0},
		{"blank lines before", "\n   \n\t\r\n" + `{"jsonrpc":"2.0","id":3,"method":"ping"}`, 0, 3.0},
		{"CRLF", `{"jsonrpc":"2.0","id":4,"method":"ping"}` + "\r", 0, 4.0},
	} {
		c.send(tc.line)
		code, id := errCode(c.recv())
		if code != tc.code || id != tc.id {
			t.Errorf("%s: code %v id %v, want %v %v", tc.name, code, id, tc.code, tc.id)
		}
		c.send(`{"jsonrpc":"2.0","id":99,"method":"ping"}`)
		if code, id := errCode(c.recv()); code != 0 || id != 99.0 {
			t.Fatalf("after %s: ping answered code %v id %v", tc.name, code, id)
		}
	}
}

// TestLineTransportAnswersBeforeEOF: requests piped in whole, the input
// ending right after them (`printf … | deloreis mcp`), are every one
// answered before the session ends; a call the client cancels is not
// waited for.
func TestLineTransportAnswersBeforeEOF(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`, // an id used again: the session still ends
		`{"jsonrpc":"2.0","id":"four","method":"tools/call","params":{"name":"author_open","arguments":{"scope":"camelot"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`,
	}, "\n") + "\n"
	var out testenv.LockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- mcpserve.ServeStdioWith(context.Background(), mcpserve.New(newRegistry(t), worker.ProfileFiction), strings.NewReader(in), &out, mcpserve.Limits{})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("server: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not end when its input ended")
	}
	var ids []any
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if code, id := errCode(m); code != 0 {
			if id != nil {
				t.Errorf("error response: %s", l)
			}
			continue // the id used again while in flight (go-sdk: id null)
		}
		ids = append(ids, m["id"])
	}
	slices.SortFunc(ids, func(a, b any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	ids = slices.CompactFunc(ids, func(a, b any) bool { return a == b })
	if got := fmt.Sprint(ids); got != "[1 2 3 four]" {
		t.Fatalf("answered ids %s, want [1 2 3 four]:\n%s", got, out.String())
	}
}

// TestLineTransportEOFAfterCancel: a call the client cancelled before its
// input ended is not waited for (the server need not answer it): the
// session ends at once, though the op would run a minute uncancelled.
func TestLineTransportEOFAfterCancel(t *testing.T) {
	reg, started, _ := blockRegistry()
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t_block","arguments":{}}}`,
	}, "\n") + "\n"
	inR, inW := io.Pipe()
	done := make(chan error, 1)
	var out testenv.LockedBuffer
	go func() {
		done <- mcpserve.ServeStdioWith(context.Background(), mcpserve.New(reg, worker.ProfileFiction), inR, &out, mcpserve.Limits{})
	}()
	io.WriteString(inW, in)
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the op did not start")
	}
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`+"\n")
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("server: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the session waited on for a cancelled call; it wrote:\n%s", out.String())
	}
}
