// The branch and merge ops of DLI section 3.18.

package author

import "github.com/deloreis/deloreis/worker"

// registerBranch files this file's ops in a registry.
func registerBranch(r *worker.Registry, s *Service) {}
