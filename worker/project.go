// The registry every transport serves over a project.

package worker

import (
	"github.com/deloreis/deloreis/author"
)

// ProjectRegistry is the one registry every transport serves over a
// project (stdio, MCP, the casebook's replay): every DLI op bound to the
// project's use cases. version is what dli.version and dli.hello report
// as the build.
func ProjectRegistry(svc *author.Service, version string) *Registry {
	reg := NewRegistry()
	RegisterAuthor(reg, svc)
	RegisterDLI(reg, svc, version)
	return reg
}
