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
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where the endpoint answers.
const Path = "/mcp"

// ErrOpenBind refuses a non-loopback address with no token to guard it.
var ErrOpenBind = errors.New("mcpserve: a non-loopback address needs a bearer token (--token or DELOREIS_MCP_TOKEN)")

// CheckBind reports whether addr (host:port) may be served: a loopback
// host always, any other only with a token.
func CheckBind(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("mcpserve: address %q: %w", addr, err)
	}
	if loopbackHost(host) || token != "" {
		return nil
	}
	return ErrOpenBind
}

// HTTPHandler serves s over streamable HTTP at Path. A request whose Origin
// is not a loopback origin is refused (403): a browser page elsewhere must
// not drive a local lore store. With a token, a request without
// "Authorization: Bearer <token>" is refused (401).
func HTTPHandler(s *mcp.Server, token string) http.Handler {
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
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
		inner.ServeHTTP(w, r)
	}))
	return mux
}

func bearer(r *http.Request, token string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
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
