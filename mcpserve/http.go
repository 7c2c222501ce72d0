// Streamable HTTP: the same server behind the guards a local MCP endpoint
// needs — go-sdk's own DNS-rebinding check on the Host header, an Origin
// check, an optional bearer token — and a bind rule: loopback only, unless
// a token guards the endpoint.

package mcpserve

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where the endpoint answers.
const Path = "/mcp"

// ErrOpenBind refuses a non-loopback address with no token to guard it.
var ErrOpenBind = errors.New("mcpserve: a non-loopback address needs a bearer token (--token or DELOREIS_MCP_TOKEN)")

// ErrWeakToken refuses a bearer token too weak to guard an endpoint that
// others can reach (DL-0420).
var ErrWeakToken = fmt.Errorf("mcpserve: the bearer token is weak: a non-loopback address needs one of at least %d visible ASCII characters, no spaces, at least %d of them different (e.g. `openssl rand -hex 32`)", MinTokenLength, minTokenDistinct)

// MinTokenLength is the shortest bearer token a non-loopback bind takes:
// 32 hexadecimal digits are 128 bits.
const MinTokenLength = 32

// minTokenDistinct is how many different characters a token needs: it
// refuses "aaaa…" and "abab…", which no generator of random tokens makes.
const minTokenDistinct = 8

// CheckBind reports whether addr (host:port) may be served with token: a
// loopback host always, any other only with a strong token (CheckToken).
// A token of whitespace only is refused on any address: it is a mistake,
// not a credential.
func CheckBind(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("mcpserve: address %q: %w", addr, err)
	}
	if token != "" && strings.TrimSpace(token) == "" {
		return ErrWeakToken
	}
	if loopbackHost(host) {
		return nil
	}
	if token == "" {
		return ErrOpenBind
	}
	return CheckToken(token)
}

// CheckToken reports whether token is strong enough to guard an endpoint
// others can reach: at least MinTokenLength characters, each visible
// ASCII (what an Authorization header carries unchanged), not all alike.
func CheckToken(token string) error {
	if len(token) < MinTokenLength {
		return ErrWeakToken
	}
	var seen [128]bool
	distinct := 0
	for i := 0; i < len(token); i++ {
		c := token[i]
		if c <= ' ' || c >= 0x7f {
			return ErrWeakToken
		}
		if !seen[c] {
			seen[c] = true
			distinct++
		}
	}
	if distinct < minTokenDistinct {
		return ErrWeakToken
	}
	return nil
}

// HTTPHandler serves s over streamable HTTP at Path under the default
// limits (see HTTPHandlerWith).
func HTTPHandler(s *mcp.Server, token string) http.Handler {
	return HTTPHandlerWith(s, token, DefaultLimits())
}

// HTTPHandlerWith serves s over streamable HTTP at Path under lim. A
// request whose Origin is not a loopback origin is refused (403): a
// browser page elsewhere must not drive a local lore store. With a token,
// a request without "Authorization: Bearer <token>" is refused (401). A
// request's body must arrive within lim.BodyTimeout; a request that would
// open a session past lim.MaxSessions is answered 503; idle sessions
// expire after lim.SessionIdle.
func HTTPHandlerWith(s *mcp.Server, token string, lim Limits) http.Handler {
	lim = lim.orDefaults()
	return withDeadlines(guarded(s, token, lim), lim)
}

// guarded is HTTPHandlerWith without the body deadline, which a caller
// that checks something first (KeyHandler) sets outside its own check.
func guarded(s *mcp.Server, token string, lim Limits) http.Handler {
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, lim.streamableOptions())
	lru := newSessionLRU(s, lim.MaxSessions)
	mux := http.NewServeMux()
	mux.Handle(Path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !loopbackOrigin(o) {
			http.Error(w, "Forbidden: origin "+o+" is not a loopback origin", http.StatusForbidden)
			return
		}
		if token != "" && !bearer(r, token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="deloreis"`)
			http.Error(w, "Unauthorized: a bearer token is required", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodPost && r.Header.Get(sessionHeader) == "" && !lru.admit() {
			w.Header().Set("Retry-After", "10")
			http.Error(w, "Service Unavailable: the server holds its maximum of "+strconv.Itoa(lim.MaxSessions)+" sessions, all busy; retry later", http.StatusServiceUnavailable)
			return
		}
		if r.Method == http.MethodPost {
			var done func()
			r, done = trackRequest(r)
			defer done()
		}
		lru.track(w, r, func(w http.ResponseWriter) { inner.ServeHTTP(w, r) })
	}))
	return mux
}

// bearer reports whether r carries token as its bearer credentials. The
// scheme is matched case-insensitively (RFC 9110 §11.1: "bearer" and
// "BEARER" are "Bearer"), the credentials exactly, in constant time.
func bearer(r *http.Request, token string) bool {
	scheme, got, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got = strings.TrimLeft(got, " ")
	return subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && loopbackHost(u.Hostname())
}

func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
