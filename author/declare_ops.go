// The declaration ops of DLI sections 3.11–3.15.

package author

import "github.com/deloreis/deloreis/worker"

// registerDeclarations files this file's ops in a registry.
func registerDeclarations(r *worker.Registry, s *Service) {}
