package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// rawMCP is a server process driven one raw line at a time over its
// standard input and output, as a misbehaving client would.
type rawMCP struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startRawMCP(t *testing.T, args ...string) *rawMCP {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Env = wpEnv()
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	m := &rawMCP{t: t, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	t.Cleanup(func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s did not exit 0 when its input closed: %v", strings.Join(args, " "), err)
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Errorf("%s did not end when its input closed", strings.Join(args, " "))
		}
	})
	m.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"0"}}}`)
	if r := m.recv(); r["result"] == nil {
		t.Fatalf("initialize: %v", r)
	}
	m.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return m
}

func (m *rawMCP) send(line string) {
	m.t.Helper()
	if _, err := io.WriteString(m.in, line+"\n"); err != nil {
		m.t.Fatalf("write to the server: %v", err)
	}
}

// recv reads the next response line; a server that ended or says nothing
// for 30 s fails the test.
func (m *rawMCP) recv() map[string]any {
	m.t.Helper()
	type res struct {
		line string
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		l, err := m.out.ReadString('\n')
		ch <- res{l, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			m.t.Fatalf("the server ended: %v", r.err)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(r.line), &v); err != nil {
			m.t.Fatalf("response %q: %v", r.line, err)
		}
		return v
	case <-time.After(30 * time.Second):
		m.t.Fatal("no response within 30 s")
	}
	return nil
}

// call calls a tool and returns its structured content; a refusal or a
// JSON-RPC error fails the test.
func (m *rawMCP) call(id, tool, args string) map[string]any {
	m.t.Helper()
	m.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args))
	r := m.recv()
	res, _ := r["result"].(map[string]any)
	if r["id"] != id || res == nil || res["isError"] == true {
		m.t.Fatalf("%s %s: %v", tool, args, r)
	}
	sc, _ := res["structuredContent"].(map[string]any)
	return sc
}

// hostileLine is one malformed line and the JSON-RPC error it gets: the
// code (0: any error code, for lines go-sdk itself answers) and the id.
type hostileLine struct {
	name, line string
	code       float64
	id         any
}

// hostileLines: lines that are not JSON, are JSON but no message, or are
// messages the server cannot take. The first seven ended deloreis mcp and
// dke mcp (exit 1, no answer) before they had their own stdio transport.
func hostileLines() []hostileLine {
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	return []hostileLine{
		{"garbage", "hello, server", -32700, nil},
		{"truncated", `{"jsonrpc":"2.0","id":7,"method":"tools/list"`, -32700, nil},
		{"batch", `[{"jsonrpc":"2.0","id":8,"method":"ping"}]`, -32600, nil},
		{"null", `null`, -32600, nil},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, nil},
		{"missing jsonrpc", `{"id":9,"method":"ping"}`, -32600, 9.0},
		{"100k-deep array", deep, -32700, nil},
		{"empty batch", `[]`, -32600, nil},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, nil},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, nil},
		{"wrong version", `{"jsonrpc":"1.0","id":"v","method":"ping"}`, -32600, "v"},
		{"number", `42`, -32600, nil},
		{"string", `"ping"`, -32600, nil},
		{"method not a string", `{"jsonrpc":"2.0","id":11,"method":5}`, -32600, 11.0},
		{"neither request nor response", `{"jsonrpc":"2.0"}`, -32600, nil},
		{"trailing garbage", `{"jsonrpc":"2.0","id":12,"method":"ping"} x`, -32700, nil},
		{"two messages on a line", `{"jsonrpc":"2.0","id":13,"method":"ping"}{"jsonrpc":"2.0","id":14,"method":"ping"}`, -32700, nil},
		{"100k-deep object", strings.Repeat(`{"a":`, 100_000) + "1" + strings.Repeat("}", 100_000), -32700, nil},
		{"invalid UTF-8", "\xff\xfe\xfd", -32700, nil},
		{"NUL byte", "{\x00}", -32700, nil},
		{"over --max-line", `{"jsonrpc":"2.0","id":15,"method":"ping","params":{"_meta":{"p":"` + strings.Repeat("p", 1_200_000) + `"}}}`, -32600, nil},
		{"params not an object", `{"jsonrpc":"2.0","id":16,"method":"tools/call","params":5}`, 0, 16.0},
		{"unknown method", `{"jsonrpc":"2.0","id":17,"method":"no/such"}`, 0, 17.0},
		{"unknown tool", `{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`, 0, 18.0},
	}
}

// checkHostileLine sends one malformed line and checks its answer.
func checkHostileLine(t *testing.T, m *rawMCP, h hostileLine) {
	t.Helper()
	m.send(h.line)
	r := m.recv()
	e, _ := r["error"].(map[string]any)
	code, _ := e["code"].(float64)
	if e == nil || h.code != 0 && code != h.code || r["id"] != h.id || r["jsonrpc"] != "2.0" {
		t.Errorf("%s: answered %v, want error %v with id %v", h.name, r, h.code, h.id)
	}
}

// TestHostileStdioLines: each malformed line sent to deloreis mcp over
// stdio is answered with a JSON-RPC error, and the workspace opened before
// the first of them still answers, unchanged, after each.
func TestHostileStdioLines(t *testing.T) {
	m := startRawMCP(t, "mcp", "--tools", "all", "--project", specProject(t), "--max-line", "1000000")
	open := m.call("open", "author_open", `{"scope":"storybook"}`)
	ws, digest := open["workspace"], open["workspace_digest"]
	if ws == nil || digest == nil {
		t.Fatalf("author_open: %v", open)
	}
	for i, h := range hostileLines() {
		checkHostileLine(t, m, h)
		st := m.call(fmt.Sprintf("status-%d", i), "author_status", fmt.Sprintf(`{"workspace":%q}`, ws))
		if st["workspace"] != ws || st["workspace_digest"] != digest {
			t.Fatalf("after %s: the workspace answered %v", h.name, st)
		}
	}
}

// TestHostileDKEStdioLines: the same lines sent to dke mcp over stdio, a
// tool call answering after each.
func TestHostileDKEStdioLines(t *testing.T) {
	m := startRawMCP(t, "dke", "mcp", "--max-line", "1000000")
	first := m.call("stores", "stores", `{}`)
	for i, h := range hostileLines() {
		checkHostileLine(t, m, h)
		got := m.call(fmt.Sprintf("stores-%d", i), "stores", `{}`)
		if fmt.Sprint(got) != fmt.Sprint(first) {
			t.Fatalf("after %s: stores answered %v, first %v", h.name, got, first)
		}
	}
}
