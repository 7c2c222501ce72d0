// The demo project: the demo store inside a project folder with its
// deloreis.toml, and two more documents beside camelot, so that `deloreis
// serve` and `deloreis mcp` with no --project have documents to open, an
// open question with options to fork, and lore to query.

package demoworld

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// Documents are the scopes the demo project declares.
var Documents = []string{"broceliande", Scope, "lyonesse"}

// ProjectFile is the demo project's deloreis.toml.
func ProjectFile() string {
	var b strings.Builder
	b.WriteString("# The bundled demo project of deloreis.\n")
	for _, d := range Documents {
		fmt.Fprintf(&b, "\n[[document]]\nscope = %q\n", d)
	}
	return b.String()
}

// BuildProject creates the demo project in dir (which must not exist or be
// empty): dir/deloreis.toml and the store at dir/.lore holding the demo
// history of Build and one commit for each of the other documents.
func BuildProject(dir string) (*lorestore.Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "deloreis.toml"), []byte(ProjectFile()), 0o644); err != nil {
		return nil, err
	}
	s, err := Build(filepath.Join(dir, lorestore.DefaultDir))
	if err != nil {
		return nil, err
	}
	for _, st := range projectSteps() {
		b := lorestore.NewBatch()
		for _, o := range st.objects {
			if _, err := b.Put(st.scope, o); err != nil {
				s.Close()
				return nil, fmt.Errorf("demoworld: %s: %w", st.scope, err)
			}
		}
		if _, err := s.Commit(b, lorestore.NewMessage(st.summary, "materialize", st.scope), lorestore.CommitOptions{}); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

type scopedStep struct {
	scope, summary string
	objects        []objects.Object
}

func projectSteps() []scopedStep {
	return []scopedStep{
		{"broceliande", "materialize broceliande: 3 entities, 2 facts, 1 question", []objects.Object{
			&objects.Entity{Kind: objects.KindPerson, Ident: "merlin", Name: "Merlin", Provenance: proposed()},
			&objects.Entity{Kind: objects.KindPerson, Ident: "nimue", Name: "Nimue", Provenance: proposed()},
			&objects.Entity{Kind: objects.KindPlace, Ident: "the-forest", Name: "The Forest of Broceliande", Provenance: proposed()},
			&objects.Fact{Entity: "merlin", Key: "taught", Value: "nimue", Provenance: proposed()},
			&objects.Fact{Entity: "nimue", Key: "title", Value: "Lady of the Lake", Provenance: proposed()},
			&objects.Question{Ident: "what-binds-merlin", Prompt: "What holds Merlin at last?", Options: []objects.Option{
				{Ident: "a-tower-of-air", Label: "A tower of air in the forest", Implies: &objects.GroundAtom{Pred: "bound-in", Args: []string{"merlin", "the-forest"}}},
				{Ident: "a-stone", Label: "A stone beneath a hill"},
			}},
		}},
		{"lyonesse", "materialize lyonesse: 2 entities, 1 relation", []objects.Object{
			&objects.Entity{Kind: objects.KindPerson, Ident: "tristan", Name: "Tristan", Provenance: proposed()},
			&objects.Entity{Kind: objects.KindPlace, Ident: "lyonesse", Name: "Lyonesse", Provenance: proposed()},
			&objects.Relation{Relation: "born-in", From: "tristan", To: "lyonesse", Provenance: proposed()},
		}},
	}
}
