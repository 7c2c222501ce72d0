// Package desktest holds what the reviewer's desk's tests share, in the
// desk's own package and in the command's: a client that acts as a
// browser on the desk's origin without following redirects, a request
// sent and read whole, and the decision form read off a rendered page.
package desktest

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"testing"
	"time"
)

// Client keeps the desk's cookies and stops at a redirect, so that a
// test reads the 303 a form post answers and where it points.
func Client() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// Send sends req and returns the answer's status, body and Location.
func Send(t testing.TB, c *http.Client, req *http.Request) (status int, body, location string) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b), resp.Header.Get("Location")
}

var (
	csrfField   = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)
	digestField = regexp.MustCompile(`name="digest" value="([^"]+)"`)
)

// Form reads the CSRF token and the digest of a rendered workspace page,
// the two fields every decision posts.
func Form(t testing.TB, page string) url.Values {
	t.Helper()
	c, d := csrfField.FindStringSubmatch(page), digestField.FindStringSubmatch(page)
	if c == nil || d == nil {
		t.Fatalf("no decision form on the page:\n%s", page)
	}
	return url.Values{"csrf": {c[1]}, "digest": {d[1]}}
}
