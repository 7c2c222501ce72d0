// Who signs the commits a command writes: --author, else DELOREIS_AUTHOR,
// else git's user.name and user.email (the store's config over the global
// one), else author.DefaultAuthor.

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
		// commit (fmt, log, fsck …); say so and sign with the default.
		fmt.Fprintf(g.warn, "deloreis: warning: %v; signing as %s <%s>\n", err, author.DefaultAuthor.Name, author.DefaultAuthor.Email)
		return nil
	}
	if ok {
		g.sig = sig
	}
	return nil // zero: the store signs with author.DefaultAuthor
}

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
