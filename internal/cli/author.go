// Who signs the commits a command writes: --author, else DELOREIS_AUTHOR,
// else git's user.name and user.email (the store's config over the global
// one). With none of them a commit is refused, as git refuses one (the
// store's RequireAuthor); init and the servers sign author.DefaultAuthor
// instead (DL-0458).

package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/deloreis/deloreis/author"
)

// authorEnv names the environment variable that gives the author when
// --author does not.
const authorEnv = "DELOREIS_AUTHOR"

// resolveAuthor fills g.sig before a command runs. A malformed --author is
// a usage error and a malformed DELOREIS_AUTHOR an error; a git config that
// does not parse is warned about and skipped. fromGit is false for the
// commands that write no commit: reading git's config files is a good part
// of a `log -n 2`.
func (g *globals) resolveAuthor(fromGit bool) error {
	if g.author != "" {
		sig, err := author.ParseSignature(g.author)
		if err != nil {
			return usageError{msg: "--author: " + err.Error()}
		}
		g.sig = sig
		return nil
	}
	if v, ok := os.LookupEnv(authorEnv); ok && v != "" {
		sig, err := author.ParseSignature(v)
		if err != nil {
			return fmt.Errorf("%s: %w", authorEnv, err)
		}
		g.sig = sig
		return nil
	}
	if !fromGit {
		return nil // a command that writes no commit: git's config is not read
	}
	// The store's own config counts only when there is a store; init and
	// clone read the global config alone.
	gitDir := g.storeDir()
	if st, err := os.Stat(gitDir); err != nil || !st.IsDir() {
		gitDir = ""
	}
	sig, ok, err := author.GitAuthor(gitDir)
	if err != nil {
		// A git config we cannot read must not stop commands that write no
		// commit (fmt, log, fsck …); say so, and let a commit be refused.
		fmt.Fprintf(g.warn, "deloreis: warning: %v; git's user.name and user.email are not read\n", err)
		return nil
	}
	if ok {
		g.sig = sig
	}
	return nil // zero: a commit is refused, or signed author.DefaultAuthor (signsAsDefault)
}

// signsAsDefault are the commands that sign author.DefaultAuthor when no
// identity is set rather than refuse a commit (DL-0458): init, whose
// commits are the store's own set-up, and the servers, whose clients
// cannot answer a refusal with --author (they warn on stderr instead).
var signsAsDefault = map[string]bool{"init": true, "serve": true, "mcp": true, "dke mcp": true}

// requireAuthor sets whether the command at path refuses a commit that
// no identity signs, and warns when a server will sign as the default.
func (g *globals) requireAuthor(path string) {
	g.anonymousOK = signsAsDefault[path]
	if g.anonymousOK && path != "init" && g.sig.Name == "" {
		fmt.Fprintf(g.warn, "deloreis: warning: no author identity set (--author, %s or git config user.name and user.email); commits are signed %s <%s>\n",
			authorEnv, author.DefaultAuthor.Name, author.DefaultAuthor.Email)
	}
}

// noIdentityText is what a person is told of a commit refused for want of an
// author, in git's manner: how to say who they are.
const noIdentityText = `deloreis: author identity unknown: nothing was written

Tell deloreis who you are, with one of:

  deloreis --author "Your Name <you@example.com>" ...
  export ` + authorEnv + `="Your Name <you@example.com>"
  git config --global user.name "Your Name"
  git config --global user.email "you@example.com"

(omit --global to set the identity in this store only)
`

// commitDateEnv names the environment variable that fixes the time of
// every commit a command writes (RFC 3339), as SOURCE_DATE_EPOCH fixes
// build times: a replayed session writes the same commit ids.
const commitDateEnv = "DELOREIS_COMMIT_DATE"

// resolveClock fills g.now from DELOREIS_COMMIT_DATE; unset, commits take
// the time they are written.
func (g *globals) resolveClock() error {
	v, ok := os.LookupEnv(commitDateEnv)
	if !ok || v == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return fmt.Errorf("%s: %q is not an RFC 3339 time", commitDateEnv, v)
	}
	g.now = func() time.Time { return t }
	return nil
}
