// The HTTP sessions a server holds: at most Limits.MaxSessions live at
// once. A request that would open one more closes the session that has
// waited longest since its last request, when one is idle (none of its
// POSTs in flight): its client, if it comes back, is told 404 and
// initializes again, as after an idle expiry. Only when every session is
// busy is the new one refused (503). So a client that opens sessions and
// leaves them can neither grow the server nor lock others out (DL-0419).
// Initializes that arrive at the same instant may each find room, so the
// cap can be passed by as many (each holds a connection: --max-conns
// bounds them).

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

// begin records a request of session id; end is its end.
func (l *sessionLRU) begin(id string) (end func()) {
	l.mu.Lock()
	u := l.seen[id]
	if u == nil {
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
func (l *sessionLRU) admit() bool {
	live := map[string]*mcp.ServerSession{}
	for ss := range l.s.Sessions() {
		live[ss.ID()] = ss
	}
	if len(live) < l.max {
		return true
	}
	l.mu.Lock()
	var victim string
	var oldest time.Time
	for id := range live {
		// A session not seen yet is one whose initialize is in flight:
		// it is busy.
		if u := l.seen[id]; u != nil && u.busy == 0 && (victim == "" || u.last.Before(oldest)) {
			victim, oldest = id, u.last
		}
	}
	for id := range l.seen { // forget sessions that ended (expired, closed)
		if _, ok := live[id]; !ok && l.seen[id].busy == 0 {
			delete(l.seen, id)
		}
	}
	delete(l.seen, victim)
	l.mu.Unlock()
	if victim == "" {
		return false
	}
	live[victim].Close()
	return true
}

// track wraps the serving of r: its session's use is recorded, and a
// session it opens is recorded from the answer's header.
func (l *sessionLRU) track(w http.ResponseWriter, r *http.Request, serve func()) {
	if id := r.Header.Get(sessionHeader); id != "" {
		end := l.begin(id)
		if r.Method != http.MethodPost {
			// A standing GET stream, or a DELETE, is no call in flight:
			// as for go-sdk's idle expiry, only POSTs keep a session busy.
			end()
			end = func() {}
		}
		defer end()
		serve()
		return
	}
	serve()
	if id := w.Header().Get(sessionHeader); id != "" {
		l.begin(id)()
	}
}
