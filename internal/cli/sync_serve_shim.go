// A bridge that lives only until serve_cmd.go keeps the author.Service it
// serves: serve --sync still hands its open store to syncLoop, which makes
// a Service over that store and runs syncEvery on it. When serve passes
// its Service to syncEvery, delete this file.

package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/lorestore"
)

// syncLoop is syncEvery over a Service of st.
func syncLoop(ctx context.Context, st *lorestore.Store, remote, branch string, every time.Duration, log io.Writer) func() {
	s, err := author.New(author.Config{Store: st, Branch: branch})
	if err != nil {
		fmt.Fprintf(log, "deloreis: sync %s: failed: %s\n", remote, oneLine(err))
		return func() {}
	}
	return syncEvery(ctx, s, remote, branch, every, log)
}
