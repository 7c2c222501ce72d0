// The names a person may type where a revision goes, for the command
// line's completion: branches, remote-tracking branches and tags.

package author

import "github.com/deloreis/deloreis/lorestore"

// RevisionNames are the short names of the store's branches ("main"),
// remote-tracking branches ("origin/main") and tags, each list sorted.
type RevisionNames = lorestore.RefNames

// RevisionNames lists the names a revision may use besides HEAD and
// commit ids.
func (s *Service) RevisionNames() (RevisionNames, error) {
	st, err := s.needStore()
	if err != nil {
		return RevisionNames{}, err
	}
	return st.Names()
}
