package mcpserve_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
)

// TestConnCaps: ServeHTTP caps connections per client address and in
// total; one past a cap is answered 503 naming it, and a closed
// connection gives its place back.
func TestConnCaps(t *testing.T) {
	s := mcpserve.New(newRegistry(t), worker.ProfileFiction)
	lim := mcpserve.Limits{MaxConns: 3, MaxConnsPerClient: 2}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- mcpserve.ServeHTTP(ctx, s, mcpserve.HTTPHandlerWith(s, "", lim), "127.0.0.1:0", pw, "MCP", "", lim)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	_, url, _ := strings.Cut(strings.TrimSpace(line), "streamable HTTP at ")
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), mcpserve.Path)

	dial := func(ip string) net.Conn {
		t.Helper()
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// ask sends a ping on c and returns the status line of the answer.
	ask := func(c net.Conn) string {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		st, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			t.Fatalf("no answer: %v", err)
		}
		return strings.TrimSpace(st)
	}
	a1, a2 := dial("127.0.0.1"), dial("127.0.0.1")
	defer a1.Close()
	defer a2.Close()
	time.Sleep(100 * time.Millisecond) // accepted
	if st := ask(dial("127.0.0.1")); !strings.HasPrefix(st, "HTTP/1.1 503") {
		t.Errorf("a third connection from one address: %q, want 503", st)
	}
	b1 := dial("127.0.0.2")
	time.Sleep(100 * time.Millisecond)
	if st := ask(dial("127.0.0.3")); !strings.HasPrefix(st, "HTTP/1.1 503") {
		t.Errorf("a fourth connection in all: %q, want 503", st)
	}
	b1.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c := dial("127.0.0.3")
		st := ask(c)
		c.Close()
		if !strings.HasPrefix(st, "HTTP/1.1 503") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a closed connection did not give its place back: %q", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
