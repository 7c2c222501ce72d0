// The stdio transport: newline-delimited JSON-RPC on a reader and a
// writer, where a line that is not one JSON-RPC message is answered with a
// JSON-RPC error and the session goes on (DL-0418). go-sdk's IOTransport
// ends the session on such a line, and with it every open workspace.

package mcpserve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxLine is the longest line the stdio transport reads: longer
// lines are skipped to their end and answered with an invalid-request
// error. It is go-sdk's own default frame cap.
const DefaultMaxLine = mcp.DefaultMaxLineLength

// LineTransport is an mcp.Transport over newline-delimited JSON-RPC: one
// message a line, read from In and written to Out; neither is closed when
// the session ends. A line that is not one JSON-RPC message gets an error
// response — parse error (-32700) when it is not one JSON value, invalid
// request (-32600) when it is one but not a message (a batch, null, a
// wrong id or version), or when it is longer than MaxLine — with the
// line's id when it has a valid one, else null, and the next line is read.
// Blank lines are skipped.
type LineTransport struct {
	In  io.Reader
	Out io.Writer
	// MaxLine caps a line's length in bytes; 0 means DefaultMaxLine.
	MaxLine int
}

// Connect implements mcp.Transport.
func (t *LineTransport) Connect(context.Context) (mcp.Connection, error) {
	max := t.MaxLine
	if max <= 0 {
		max = DefaultMaxLine
	}
	c := &lineConn{out: t.Out, incoming: make(chan jsonrpc.Message), closed: make(chan struct{}), done: make(chan struct{})}
	go c.readLoop(t.In, max)
	return c, nil
}

// lineConn is a LineTransport's connection. A goroutine reads and decodes
// the lines, so that Close can end a Read blocked on input (go-sdk's
// ioConn does the same); it answers bad lines itself.
type lineConn struct {
	out     io.Writer
	writeMu sync.Mutex

	incoming chan jsonrpc.Message
	readErr  error         // why the read loop ended; set before done is closed
	done     chan struct{} // closed when the read loop ends

	closeOnce sync.Once
	closed    chan struct{}

	// The calls read and not yet answered, by their ids' raw values: at
	// the end of input the session ends only once they are answered, so
	// that requests piped in whole get their responses. An id is held
	// once: go-sdk answers a call that reuses an id in flight with an
	// error of id null, so counting it would wait for ever.
	callsMu  sync.Mutex
	calls    map[any]struct{}
	idle     chan struct{} // made by drained, closed when calls is empty
	idleDone bool
}

// opened notes a call read.
func (c *lineConn) opened(id jsonrpc.ID) {
	c.callsMu.Lock()
	defer c.callsMu.Unlock()
	if c.calls == nil {
		c.calls = map[any]struct{}{}
	}
	c.calls[id.Raw()] = struct{}{}
}

// settled notes a call answered. (A call the client cancels is answered
// too: go-sdk answers every call it reads.)
func (c *lineConn) settled(raw any) {
	c.callsMu.Lock()
	defer c.callsMu.Unlock()
	delete(c.calls, raw)
	if len(c.calls) == 0 && c.idle != nil && !c.idleDone {
		close(c.idle)
		c.idleDone = true
	}
}

func (c *lineConn) SessionID() string { return "" }

// drained returns a channel closed once no call read is unanswered.
func (c *lineConn) drained() <-chan struct{} {
	c.callsMu.Lock()
	defer c.callsMu.Unlock()
	if c.idle == nil {
		c.idle = make(chan struct{})
		if len(c.calls) == 0 {
			close(c.idle)
			c.idleDone = true
		}
	}
	return c.idle
}

// Read returns the next message; io.EOF once the connection closed, or
// once the input ended and every call read from it is answered.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m := <-c.incoming:
		return m, nil
	case <-c.done:
		select {
		case <-c.drained():
		case <-c.closed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return nil, c.readErr
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write writes msg as one line.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Response); ok {
		defer c.settled(r.ID.Raw()) // answered, or never to be
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := encodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(b)
}

// encodeMessage is jsonrpc.EncodeMessage's bytes. A successful response
// with a number id, the common case, is written around its result as it
// is: go-sdk marshalled the result already, and EncodeMessage would scan
// and copy it again (DL-0440).
func encodeMessage(msg jsonrpc.Message) ([]byte, error) {
	r, ok := msg.(*jsonrpc.Response)
	if !ok || r.Error != nil || len(r.Result) == 0 {
		return jsonrpc.EncodeMessage(msg)
	}
	id, ok := r.ID.Raw().(int64)
	if !ok {
		return jsonrpc.EncodeMessage(msg)
	}
	b := make([]byte, 0, len(r.Result)+64)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"result":`...)
	b = append(b, r.Result...)
	return append(b, '}'), nil
}

func (c *lineConn) writeLine(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(b, '\n'))
	return err
}

// Close ends the connection; the input and output stay open.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// readLoop reads lines until the input ends or fails, or the connection
// closes. A message goes to Read; a bad line is answered here.
func (c *lineConn) readLoop(in io.Reader, max int) {
	defer close(c.done)
	br := bufio.NewReaderSize(in, 64<<10)
	var long []byte // a line longer than the reader's buffer, gathered
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(line) > max {
				long = long[:0]
				if err = skipLine(br); err == nil || err == io.EOF {
					err2 := c.writeLine(errorLine(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: the line is longer than "+strconv.Itoa(max)+" bytes"))
					if err == nil {
						err = err2
					}
				}
				if err != nil {
					c.readErr = eofOr(err)
					return
				}
				continue
			}
			long = append(long, line...)
			continue
		}
		if len(long) > 0 {
			long = append(long, line...)
			if len(long) > max {
				long = long[:0]
				if werr := c.writeLine(errorLine(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: the line is longer than "+strconv.Itoa(max)+" bytes")); werr != nil {
					c.readErr = werr
					return
				}
				line = nil
			} else {
				line, long = long, long[:0:0] // the message may keep none of it, but do not share it
			}
		}
		if len(bytes.TrimSpace(line)) > 0 {
			msg, bad := decodeLine(line)
			if bad != nil {
				if werr := c.writeLine(bad); werr != nil {
					c.readErr = werr
					return
				}
			} else {
				if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
					c.opened(req.ID)
				}
				select {
				case c.incoming <- msg:
				case <-c.closed:
					c.readErr = io.EOF
					return
				}
			}
		}
		if err != nil {
			c.readErr = eofOr(err)
			return
		}
	}
}

// eofOr is io.EOF for the end of input, else err.
func eofOr(err error) error {
	if errors.Is(err, io.EOF) {
		return io.EOF
	}
	return err
}

// skipLine reads to the end of the current line (past its newline).
func skipLine(br *bufio.Reader) error {
	for {
		_, err := br.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

// decodeLine decodes one line as a JSON-RPC message, or returns the error
// response line that answers it.
func decodeLine(line []byte) (jsonrpc.Message, []byte) {
	if !json.Valid(line) {
		return nil, errorLine(nil, jsonrpc.CodeParseError, "Parse error: the line is not one JSON value")
	}
	v := bytes.TrimLeft(line, " \t\r\n")
	switch {
	case v[0] == '[':
		return nil, errorLine(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: batches are not supported; send one message a line")
	case v[0] != '{':
		return nil, errorLine(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: a message is a JSON object")
	}
	msg, err := decodeMessage(line)
	if err != nil {
		return nil, errorLine(lineID(line), jsonrpc.CodeInvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message")
	}
	return msg, nil
}

// decodeMessage decodes a line that holds one JSON object as
// jsonrpc.DecodeMessage does — keys matched exactly, a version of "2.0",
// an id that is a string, a number or absent, a request when "method" is
// present — with encoding/json: go-sdk's decoder takes a 32 KB buffer for
// each message, the largest share of the garbage of a call (DL-0440).
// FuzzDecodeMessage holds the two to one answer.
func decodeMessage(line []byte) (jsonrpc.Message, error) {
	var top map[string]json.RawMessage // exact keys, values copied
	if err := json.Unmarshal(line, &top); err != nil {
		return nil, err
	}
	var version string
	if err := json.Unmarshal(top["jsonrpc"], &version); err != nil || version != "2.0" {
		return nil, errors.New("not JSON-RPC 2.0")
	}
	var rawID any
	if raw := top["id"]; raw != nil {
		if err := json.Unmarshal(raw, &rawID); err != nil {
			return nil, err
		}
	}
	id, err := jsonrpc.MakeID(rawID)
	if err != nil {
		return nil, err
	}
	if raw, ok := top["method"]; ok {
		var method string
		if err := json.Unmarshal(raw, &method); err != nil {
			return nil, err
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: top["params"]}, nil
	}
	// A response (to a server's request: rare) is decoded by go-sdk.
	return jsonrpc.DecodeMessage(line)
}

// lineID is the id of a line that holds one JSON object, when it is a
// valid JSON-RPC id (a string or a number), as JSON; nil otherwise.
func lineID(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	switch m.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return m.ID
	}
	return nil
}

// errorLine is a JSON-RPC error response with id (null when nil).
func errorLine(id json.RawMessage, code int64, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg}})
	return b
}
