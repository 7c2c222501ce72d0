package cli

import (
	"net/http"
	"strings"
	"testing"
)

// TestHostileWeakToken: mcp --http refuses a weak token (usage error,
// exit 2, before any project is loaded): a token of spaces on any address;
// off loopback one shorter than 32 characters or with fewer than 8
// different ones. Before, --token " " satisfied the bind check.
func TestHostileWeakToken(t *testing.T) {
	t.Setenv("DELOREIS_MCP_TOKEN", "")
	for _, tc := range []struct{ addr, token string }{
		{"127.0.0.1:0", " "},
		{"0.0.0.0:0", " "},
		{"0.0.0.0:0", "\t"},
		{"0.0.0.0:0", "s3cret"},
		{"0.0.0.0:0", strings.Repeat("a", 40)},
		{"0.0.0.0:0", strings.Repeat("ab12", 10)},
		{"0.0.0.0:0", "9d0c4b1e7f3a26c58e1d 0f4a7b2c9e63x"},
	} {
		_, errs, code := deloreis(t, "mcp", "--http", tc.addr, "--token", tc.token)
		if code != 2 || !strings.Contains(errs, "token is weak") {
			t.Errorf("mcp --http %s --token %q: exit %d, stderr %q", tc.addr, tc.token, code, errs)
		}
	}
	t.Setenv("DELOREIS_MCP_TOKEN", "short")
	if _, errs, code := deloreis(t, "mcp", "--http", "0.0.0.0:0"); code != 2 || !strings.Contains(errs, "token is weak") {
		t.Errorf("DELOREIS_MCP_TOKEN=short off loopback: exit %d, stderr %q", code, errs)
	}
}

// TestHostileBearerCase: the served endpoint takes the bearer scheme in
// any case (RFC 9110 §11.1), and still refuses a wrong token.
func TestHostileBearerCase(t *testing.T) {
	const token = "9d0c4b1e7f3a26c58e1d0f4a7b2c9e63"
	s := startHTTPMCP(t, "--token", token)
	c := clientFrom("127.0.0.1")
	for _, tc := range []struct {
		auth string
		want int
	}{
		{"bearer " + token, http.StatusOK},
		{"BEARER " + token, http.StatusOK},
		{"Bearer " + token, http.StatusOK},
		{"bearer " + token[1:] + "0", http.StatusUnauthorized},
	} {
		req, _ := http.NewRequest(http.MethodPost, s.endpoint, strings.NewReader(initializeBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", tc.auth)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Authorization %q: %d, want %d", tc.auth, resp.StatusCode, tc.want)
		}
	}
}
