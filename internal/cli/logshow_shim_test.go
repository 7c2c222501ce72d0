package cli

import (
	"io"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/lorestore"
)

// show runs the show command's body over a bare store, as the tests build
// them: a Service over the store, the store left open.
func show(w io.Writer, st *lorestore.Store, rev string, f *showFlags) error {
	s, err := author.New(author.Config{Store: st})
	if err != nil {
		return err
	}
	return showRev(w, s, rev, f)
}

// changeSign is the sign show prints before a change of the store's diff.
func changeSign(c lorestore.Change) string { return signOf(c.Removed) }
