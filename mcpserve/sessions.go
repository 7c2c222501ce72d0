// The HTTP sessions a server holds: at most Limits.MaxSessions live at
// once. A request that would open one more closes the session that has
// waited longest since its last request, when one is idle (none of its
// POSTs in flight): its client, if it comes back, is told 404 and
// initializes again, as after an idle expiry. Only when every session is
// busy is the new one refused (503). So a client that opens sessions and
// leaves them can neither grow the server nor lock others out (DL-0419).
// Sessions being opened are not counted until their opening request
// ends, and initializes that arrive at the same instant may each find
// room, so the cap can be passed by as many as there are requests in
// flight (each holds a connection: --max-conns bounds them).

package mcpserve

import (
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionHeader is where streamable HTTP carries the session id.
const sessionHeader = "Mcp-Session-Id"

// sessionLRU records, per session id, when its last request began and how
// many of its requests are in flight.
type sessionLRU struct {
	s   *mcp.Server
	max int

	mu   sync.Mutex
	seen map[string]*sessionUse
}

type sessionUse struct {
	last time.Time
	busy int
}

func newSessionLRU(s *mcp.Server, max int) *sessionLRU {
	return &sessionLRU{s: s, max: max, seen: map[string]*sessionUse{}}
}

// begin records a request of session id; end is its end. Only a session
// opened through this handler (open) makes a new record: a request naming
// an unknown id (go-sdk answers it 404) must not grow the table.
func (l *sessionLRU) begin(id string, open bool) (end func()) {
	l.mu.Lock()
	u := l.seen[id]
	if u == nil {
		if !open {
			l.mu.Unlock()
			return func() {}
		}
		u = &sessionUse{}
		l.seen[id] = u
	}
	u.last = time.Now()
	u.busy++
	l.mu.Unlock()
	return func() {
		l.mu.Lock()
		u.busy--
		u.last = time.Now()
		l.mu.Unlock()
	}
}

// admit reports whether a request may open a session: yes under the cap;
// at it, after closing the idle session used longest ago, if there is one.
// Only sessions whose opening request has ended count: one being opened
// (or one whose opening failed and is being closed) is transient, and the
// connection caps bound how many of those there are.
func (l *sessionLRU) admit() bool {
	live := map[string]*mcp.ServerSession{}
	for ss := range l.s.Sessions() {
		live[ss.ID()] = ss
	}
	l.mu.Lock()
	n := 0
	var victim string
	var oldest time.Time
	for id, u := range l.seen {
		if live[id] == nil { // ended (expired, closed): forget it
			if u.busy == 0 {
				delete(l.seen, id)
			}
			continue
		}
		n++
		if u.busy == 0 && (victim == "" || u.last.Before(oldest)) {
			victim, oldest = id, u.last
		}
	}
	if n < l.max {
		l.mu.Unlock()
		return true
	}
	delete(l.seen, victim)
	l.mu.Unlock()
	if victim == "" {
		return false
	}
	live[victim].Close()
	return true
}

// track serves r through serve with its session's use recorded. A
// session r opens is recorded as its answer's header is sent, before the
// client can name it in a next request.
func (l *sessionLRU) track(w http.ResponseWriter, r *http.Request, serve func(http.ResponseWriter)) {
	if id := r.Header.Get(sessionHeader); id != "" {
		end := l.begin(id, false)
		if r.Method != http.MethodPost {
			// A standing GET stream, or a DELETE, is no call in flight:
			// as for go-sdk's idle expiry, only POSTs keep a session busy.
			end()
			end = func() {}
		}
		defer end()
		serve(w)
		return
	}
	serve(&openWriter{ResponseWriter: w, l: l})
}

// openWriter records the session its answer names as the header goes out.
type openWriter struct {
	http.ResponseWriter
	l    *sessionLRU
	sent bool
}

func (w *openWriter) record() {
	if !w.sent {
		w.sent = true
		if id := w.Header().Get(sessionHeader); id != "" {
			w.l.begin(id, true)()
		}
	}
}

func (w *openWriter) WriteHeader(code int) {
	w.record()
	w.ResponseWriter.WriteHeader(code)
}

func (w *openWriter) Write(p []byte) (int, error) {
	w.record()
	return w.ResponseWriter.Write(p)
}

func (w *openWriter) FlushError() error {
	w.record()
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *openWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
