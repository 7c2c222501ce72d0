package cli

import (
	"github.com/deloreis/deloreis/dke/service"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/worker"
)

// dkeRegistry is the registry of the DKE tools over the open lorestore s,
// as `deloreis dke mcp` builds it over the service it opens: the tests
// that hold a store open themselves call it.
func (g *globals) dkeRegistry(s *lorestore.Store) (*worker.Registry, error) {
	svc, err := service.New(service.Config{Store: s, Now: g.now})
	if err != nil {
		return nil, err
	}
	return dkeRegistry(svc), nil
}
