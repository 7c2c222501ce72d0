// A tool call over HTTP ends with the HTTP request that carried it: a
// client that closes the request (or its connection) mid-call cancels the
// op's context (DL-0421). go-sdk ties them only in the stateless protocol
// (2026-07-28), which a server with sessions does not speak; in a session
// the result of a call whose request is gone cannot reach anyone (there is
// no event store to resume the stream from), so the work stops.

package mcpserve

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// requestHeader carries, from the HTTP guard to the tool handler, the
// number under which the HTTP request's context is kept. The guard always
// sets it (a client's own value is overwritten).
const requestHeader = "Deloreis-Http-Request"

// errRequestClosed is the cause of a call cancelled because its HTTP
// request ended first.
var errRequestClosed = errors.New("mcpserve: the client closed the HTTP request of this call")

var (
	httpRequests sync.Map // request number → the HTTP request's context
	httpRequestN atomic.Uint64
)

// trackRequest keeps r's context while r is served, under a number it
// writes into a copy of r's header; done forgets it.
func trackRequest(r *http.Request) (_ *http.Request, done func()) {
	key := strconv.FormatUint(httpRequestN.Add(1), 36)
	httpRequests.Store(key, r.Context())
	r2 := new(http.Request)
	*r2 = *r
	r2.Header = r.Header.Clone()
	r2.Header.Set(requestHeader, key)
	return r2, func() { httpRequests.Delete(key) }
}

// callContext is ctx, also cancelled when the HTTP request the call came
// in ends; stop releases it.
func callContext(ctx context.Context, req *mcp.CallToolRequest) (_ context.Context, stop func()) {
	if req.Extra == nil || req.Extra.Header == nil {
		return ctx, func() {}
	}
	v, ok := httpRequests.Load(req.Extra.Header.Get(requestHeader))
	if !ok {
		return ctx, func() {}
	}
	c, cancel := context.WithCancelCause(ctx)
	after := context.AfterFunc(v.(context.Context), func() { cancel(errRequestClosed) })
	return c, func() { after(); cancel(nil) }
}
