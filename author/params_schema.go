// The schema hook of the claim ops' params, which decode themselves.

package author

// JSONSchema states what ClaimParams accepts (worker.Schemer): the
// workspace and the fields of one T object as package objects defines
// them, without "type" (the op says what it stages).
func (ClaimParams[T]) JSONSchema() map[string]any {
	var zero T
	return map[string]any{
		"type":                 "object",
		"description":          "the workspace and the fields of one " + string(zero.Type()) + " object, as the object registry defines them, without \"type\"",
		"properties":           map[string]any{"workspace": map[string]any{"type": "string"}},
		"required":             []string{"workspace"},
		"additionalProperties": true,
	}
}
