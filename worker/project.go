package dliops

import (
	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/project"
	"github.com/deloreis/deloreis/worker"
)

// ProjectRegistry is the one registry every transport serves over a
// project (stdio, MCP, the casebook's replay): the author.* ops over its
// documents and the dli.* ops over the project. version is what
// dli.version and dli.hello report as the build.
func ProjectRegistry(s *lorestore.Store, p *project.Project, version string) (*worker.Registry, error) {
	docs := make([]string, len(p.Documents))
	for i, d := range p.Documents {
		docs[i] = d.Scope
	}
	svc, err := author.New(author.Config{Store: s, Documents: docs, Branch: p.Branch, Pin: p.Pin, Dialects: p.Dialects})
	if err != nil {
		return nil, err
	}
	reg := worker.NewRegistry()
	worker.RegisterAuthor(reg, svc)
	Register(reg, Config{Store: s, Project: p, Version: version})
	return reg, nil
}
