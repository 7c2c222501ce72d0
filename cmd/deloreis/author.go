// Who signs the commits a command writes: --author, else DELOREIS_AUTHOR,
// else git's user.name and user.email (the store's config over the global
// one), else lorestore.DefaultAuthor.

package main

import (
	"fmt"
	"os"

	"github.com/deloreis/deloreis/lorestore"
)

// authorEnv names the environment variable that gives the author when
// --author does not.
const authorEnv = "DELOREIS_AUTHOR"

// resolveAuthor fills g.sig before a command runs. A malformed --author is
// a usage error and a malformed DELOREIS_AUTHOR an error; a git config that
// does not parse is warned about and skipped.
func (g *globals) resolveAuthor() error {
	if g.author != "" {
		sig, err := lorestore.ParseSignature(g.author)
		if err != nil {
			return usageError{msg: "--author: " + err.Error()}
		}
		g.sig = sig
		return nil
	}
	if v, ok := os.LookupEnv(authorEnv); ok && v != "" {
		sig, err := lorestore.ParseSignature(v)
		if err != nil {
			return fmt.Errorf("%s: %w", authorEnv, err)
		}
		g.sig = sig
		return nil
	}
	// The store's own config counts only when there is a store; init and
	// clone read the global config alone.
	gitDir := g.storeDir()
	if st, err := os.Stat(gitDir); err != nil || !st.IsDir() {
		gitDir = ""
	}
	sig, ok, err := lorestore.GitAuthor(gitDir)
	if err != nil {
		// A git config we cannot read must not stop commands that write no
		// commit (fmt, log, fsck …); say so and sign with the default.
		fmt.Fprintf(g.warn, "deloreis: warning: %v; signing as %s <%s>\n", err, lorestore.DefaultAuthor.Name, lorestore.DefaultAuthor.Email)
		return nil
	}
	if ok {
		g.sig = sig
	}
	return nil // zero: the store signs with lorestore.DefaultAuthor
}
