// The DKE server's keys over HTTP: a go-sdk token verifier over the DKE
// keyring (package dke/keys) and the handler that refuses (401) every
// request without a known key before the MCP layer — and so any tool —
// sees it. It lives here, in the transport, and not beside the keyring,
// so that the command line's key commands do not link the MCP SDK and
// net/http (DL-0330).

package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/deloreis/deloreis/dke/keys"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// grantKey is where a verified key's Grant sits in TokenInfo.Extra.
const grantKey = "dke.grant"

// KeyVerifier checks a bearer key against the keyring. An unknown key is
// auth.ErrInvalidToken (401); a keyring that cannot be read is a server
// error (500), never a grant. The TokenInfo's UserID is the key's hash,
// so go-sdk binds each HTTP session to the key that opened it: another
// key cannot ride on a session id it learned.
func KeyVerifier(r *keys.Ring) auth.TokenVerifier {
	return func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		g, err := r.Lookup(token)
		if errors.Is(err, keys.ErrUnknownKey) {
			return nil, fmt.Errorf("%w: unknown key", auth.ErrInvalidToken)
		}
		if err != nil {
			return nil, err
		}
		return &auth.TokenInfo{
			Scopes: []string{string(g.Mode)},
			UserID: g.Hash,
			Extra:  map[string]any{grantKey: g},
		}, nil
	}
}

// GrantOf returns the grant a verified request carries (a tool handler's
// req.Extra.TokenInfo); false when there is none.
func GrantOf(ti *auth.TokenInfo) (keys.Grant, bool) {
	if ti == nil {
		return keys.Grant{}, false
	}
	g, ok := ti.Extra[grantKey].(keys.Grant)
	return g, ok
}

// KeyHandler serves s over streamable HTTP at Path for holders of a key
// of r, under the default limits (see KeyHandlerWith).
func KeyHandler(s *mcp.Server, r *keys.Ring) http.Handler {
	return KeyHandlerWith(s, r, DefaultLimits())
}

// KeyHandlerWith serves s over streamable HTTP at Path for holders of a
// key of r, under lim: a request without "Authorization: Bearer <key>"
// (the scheme in any case) naming a key the ring holds is refused with
// 401. The Host and Origin guards and the limits of HTTPHandlerWith stay
// behind the key check; the body deadline is set before it, so that a
// refused request cannot hold its connection either. Keys carry no
// expiry (they last until revoked), so a missing expiration is accepted.
func KeyHandlerWith(s *mcp.Server, r *keys.Ring, lim Limits) http.Handler {
	lim = lim.orDefaults()
	guard := auth.RequireBearerToken(KeyVerifier(r), &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
	inner := guard(guarded(s, "", lim))
	return withDeadlines(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("Authorization") == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="deloreis-dke"`)
		}
		inner.ServeHTTP(w, req)
	}), lim)
}
