// Checking every ref: what fsck reports when a ref file, packed-refs or
// HEAD is not well formed, while List and Read fail on the first one.

package refs

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// Check reads every ref under refs/, loose and packed, and HEAD. It
// returns the refs that are well formed (symbolic ones resolved, a loose
// ref overriding a packed one) and one error per problem: a name git
// would refuse, a ref file or packed-refs line that does not parse, a
// symbolic ref that dangles, a HEAD that is malformed or names a branch
// that does not exist. Nothing is changed.
func (s *Store) Check() ([]Ref, []error) {
	var problems []error
	names, err := s.looseNames("refs")
	if err != nil {
		return nil, []error{err}
	}
	values := map[string]plumbing.Hash{}
	var symbolic []string
	for _, name := range names {
		if err := CheckName(name); err != nil {
			problems = append(problems, err)
			continue
		}
		l, err := readLoose(s.path(name))
		switch {
		case err != nil:
			problems = append(problems, err)
		case l.kind == looseHash:
			values[name] = l.hash
		case l.kind == looseSymbolic:
			symbolic = append(symbolic, name)
		}
	}
	packed, err := readPacked(s.path("packed-refs"))
	if err != nil {
		problems = append(problems, fmt.Errorf("packed-refs: %w", err))
		packed = &packedFile{}
	}
	for _, e := range packed.entries {
		if err := CheckName(e.name); err != nil {
			problems = append(problems, fmt.Errorf("packed-refs: %w", err))
			continue
		}
		if _, ok := values[e.name]; !ok {
			values[e.name] = e.hash
		}
	}
	for _, name := range symbolic {
		h, err := s.resolve(name, packed)
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: symbolic ref does not resolve: %w", name, err))
			continue
		}
		values[name] = h
	}
	head, err := s.Head()
	switch {
	case errors.Is(err, ErrDetached):
	case err != nil:
		problems = append(problems, err)
	case strings.HasPrefix(head, "refs/"):
		if _, ok := values[head]; !ok {
			problems = append(problems, fmt.Errorf("%w: HEAD names %s, which does not exist", ErrNotFound, head))
		}
	}
	out := make([]Ref, 0, len(values))
	for name, h := range values {
		out = append(out, Ref{Name: name, Hash: h})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, problems
}
