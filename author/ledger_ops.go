// The standing ops of DLI section 3.10: decisions, standing and defeat.

package author

import "github.com/deloreis/deloreis/worker"

// registerLedger files this file's ops in a registry.
func registerLedger(r *worker.Registry, s *Service) {}
