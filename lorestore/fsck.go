// Fsck: the store's own checks, each problem reported rather than the
// first one failing the call. It reads everything once: the packs and
// their indexes, every ref and HEAD, and the full history of every
// branch, object by object, as a merge would before taking it in.

package lorestore

import (
	"errors"
	"fmt"
	"strings"

	"github.com/deloreis/deloreis/lorestore/odb"
)

// Problem is one thing Fsck found wrong: where, and what.
type Problem struct {
	Where string // a pack file, a ref, or "commit <id> at <path>"
	What  string
}

func (p Problem) String() string { return p.Where + ": " + p.What }

// Fsck runs the store's checks and returns every problem found (nil when
// the store is sound):
//
//   - every pack and index in objects/pack is readable (an unusable one is
//     skipped by every other command, as git skips it);
//   - every ref and HEAD is well formed, and every ref names a commit;
//   - every commit reachable from every branch decodes, holds a valid
//     lore.json, and every object file it holds sits where its id says and
//     decodes and validates; every DKE module and claim is canonical JSON
//     filed under valid names, a claim under its own id and kind; every
//     file of project/ is a canonical JSON object filed under the scope or
//     dialect id it names.
//
// Remote-tracking refs are quarantine: they must name commits, but what
// they hold is checked only when it is merged. The error is for a check
// that could not run at all.
func (s *Store) Fsck() ([]Problem, error) {
	var out []Problem
	for _, err := range s.db.CheckPacks() {
		where := "objects/pack"
		var ce *odb.CorruptError
		if errors.As(err, &ce) && ce.File != "" {
			where = ce.File
		}
		out = append(out, Problem{Where: where, What: trimPrefix(err.Error())})
	}
	good, bad := s.refs.Check()
	for _, err := range bad {
		out = append(out, Problem{Where: "refs", What: trimPrefix(err.Error())})
	}
	var trusted []Hash
	for _, r := range good {
		if _, err := s.readCommit(Hash(r.Hash)); err != nil {
			out = append(out, Problem{Where: r.Name, What: fmt.Sprintf("names %s, which is not a readable commit: %s", r.Hash, trimPrefix(err.Error()))})
			continue
		}
		if !strings.HasPrefix(r.Name, "refs/heads/") {
			continue
		}
		v := newVerifier(s)
		v.collect = true
		if err := v.verify(Hash(r.Hash), trusted); err != nil {
			v.found = append(v.found, err)
		}
		for _, err := range v.found {
			out = append(out, contentProblem(r.Name, err))
		}
		// What this branch reaches has now been read; the next branches
		// check only what they add.
		trusted = append(trusted, Hash(r.Hash))
	}
	return out, nil
}

func contentProblem(branch string, err error) Problem {
	var ce *ContentError
	if !errors.As(err, &ce) {
		return Problem{Where: branch, What: trimPrefix(err.Error())}
	}
	where := "commit " + short(ce.Commit) + " on " + strings.TrimPrefix(branch, "refs/heads/")
	if ce.Path != "" {
		where += " at " + ce.Path
	}
	if !ce.Object.IsZero() && ce.Object != ce.Commit {
		where += " (git object " + short(ce.Object) + ")"
	}
	return Problem{Where: where, What: ce.Reason}
}

// trimPrefix drops the package prefixes ("lorestore: ", "odb: ", "refs: ")
// an error message starts with, so a report says each thing once.
func trimPrefix(msg string) string {
	for _, p := range []string{"lorestore: ", "odb: ", "refs: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}
