// The open workspaces as a reviewer sees them: what each is over, how much
// it stages, whether it is blocked and when it last changed. A read: it
// carries no fence and changes nothing.

package author

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/deloreis/deloreis/world"
)

// WorkspaceSummary is one open workspace in the list a reviewer reads.
type WorkspaceSummary struct {
	Workspace       string    `json:"workspace" desc:"the workspace id (ws-N)"`
	WorkspaceDigest string    `json:"workspace_digest" desc:"its current digest"`
	Scope           string    `json:"scope" desc:"the document it is bound to"`
	Fork            string    `json:"fork,omitempty" desc:"the question a fork explores; absent in a scope workspace"`
	Branch          string    `json:"branch" desc:"the branch it materializes to"`
	RootHash        string    `json:"root_hash" desc:"the base commit it stages over; \"\" before the first commit"`
	Staged          int       `json:"staged" desc:"how many declarations it stages"`
	Blocking        int       `json:"blocking" desc:"how many error findings stand, each barring author.materialize"`
	Changed         time.Time `json:"changed" desc:"when it opened or a mutation last applied to it"`
}

// Workspaces lists the open workspaces, by number (ws-1, ws-2, …). A
// workspace discarded while the list is read is left out.
func (s *Service) Workspaces(_ context.Context, _ *Empty) ([]WorkspaceSummary, error) {
	s.mu.Lock()
	open := make([]*Workspace, 0, len(s.workspaces))
	for _, ws := range s.workspaces {
		open = append(open, ws)
	}
	s.mu.Unlock()
	// Each workspace is read under its own lock, never under s.mu: retire
	// takes s.mu while holding a workspace's lock.
	out := make([]WorkspaceSummary, 0, len(open))
	for _, ws := range open {
		ws.mu.Lock()
		if !ws.discarded {
			n := 0
			for _, f := range ws.world.Findings() {
				if f.Severity == world.SeverityError {
					n++
				}
			}
			out = append(out, WorkspaceSummary{Workspace: ws.id, WorkspaceDigest: ws.digest, Scope: ws.scope, Fork: ws.fork,
				Branch: ws.branch, RootHash: hashString(ws.base), Staged: len(ws.staged), Blocking: n, Changed: ws.changed})
		}
		ws.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool { return wsNumber(out[i].Workspace) < wsNumber(out[j].Workspace) })
	return out, nil
}

// wsNumber is N of "ws-N", so that ws-10 sorts after ws-9.
func wsNumber(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "ws-"))
	return n
}
