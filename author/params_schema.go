// The schema hook of the claim ops' params, which decode themselves.

package author

import (
	"sort"

	"github.com/deloreis/deloreis/objects"
)

// JSONSchema states what ClaimParams accepts (worker.Schemer): the
// workspace and the fields of one T object as package objects defines
// them (objects.Fields), without "type" (the op says what it stages),
// closed as UnmarshalJSON is.
func (ClaimParams[T]) JSONSchema() map[string]any {
	var zero T
	props := map[string]any{"workspace": map[string]any{"type": "string", "minLength": 1, "description": "the workspace id author.open returned (ws-N)"}}
	required := []string{"workspace"}
	for _, f := range objects.Fields(zero.Type()) {
		props[f.Name] = f.Schema
		if f.Required {
			required = append(required, f.Name)
		}
	}
	sort.Strings(required)
	return map[string]any{
		"type":                 "object",
		"description":          "the workspace and the fields of one " + string(zero.Type()) + " object, as the object registry defines them, without \"type\"",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	}
}
