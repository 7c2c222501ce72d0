// The op reference, docs/ops.md, generated from a registry: one section
// per served op (its summary, profiles, whether it mutates, its params and
// result fields as the schema generator reads them, and the codes it is
// known to answer with), then the killed forms and the error-code
// reference. Nothing in it is written by hand, so it cannot drift.

package worker

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// OpsDoc renders the op reference of every op the registry serves, sorted
// by name. codes is the error-code reference (code → class): the
// protocol's codes and every handler package's.
func OpsDoc(r *Registry, codes map[string]Class) []byte {
	var b bytes.Buffer
	ops := r.Ops(ProfileExtended)
	fiction := 0
	for _, op := range ops {
		if op.Fiction {
			fiction++
		}
	}
	b.WriteString("<!-- Generated from the op registry by `go test ./internal/cli -run TestOpsDoc -update`. Do not edit. -->\n\n")
	b.WriteString("# Op reference\n\n")
	fmt.Fprintf(&b, "Contract %s serves %d ops (%d in the fiction profile). Every request is\n", Version, len(ops), fiction)
	b.WriteString("`{\"dli\", \"id\", \"op\", \"params\"}`; a mutating op also takes `expected_digest` and\n")
	b.WriteString("`idempotency_key`. A response is `{\"id\", \"ok\": true, …result fields}` or\n")
	b.WriteString("`{\"id\", \"ok\": false, \"error\": {\"code\", \"class\", \"message\", …data}}`. A field is\n")
	b.WriteString("required when the table says so; a struct admits no other fields. `dli.schema`\n")
	b.WriteString("serves the full JSON Schema of each op.\n\n")
	for _, op := range ops {
		fmt.Fprintf(&b, "- [`%s`](#%s)\n", op.Name, anchor(op.Name))
	}
	for _, op := range ops {
		b.WriteString("\n## " + op.Name + "\n\n")
		b.WriteString(op.Summary + "\n\n")
		profiles := []string{string(ProfileExtended)}
		if op.Fiction {
			profiles = append(profiles, string(ProfileFiction))
		}
		fmt.Fprintf(&b, "- profiles: %s\n", strings.Join(profiles, ", "))
		if op.Mutating {
			b.WriteString("- mutating: yes (takes `expected_digest` and `idempotency_key`)\n")
		} else {
			b.WriteString("- mutating: no\n")
		}
		if len(op.Errors) > 0 {
			es := append([]string(nil), op.Errors...)
			sort.Strings(es)
			parts := make([]string, len(es))
			for i, e := range es {
				if c, ok := codes[e]; ok {
					parts[i] = fmt.Sprintf("`%s` (%s)", e, c)
				} else {
					parts[i] = "`" + e + "`"
				}
			}
			fmt.Fprintf(&b, "- errors: %s\n", strings.Join(parts, ", "))
		}
		b.WriteString("\nParams:\n\n")
		fieldTable(&b, op.ParamsSchema())
		b.WriteString("\nResult:\n\n")
		fieldTable(&b, op.ResultSchema())
	}
	if ks := r.KilledForms(); len(ks) > 0 {
		b.WriteString("\n## Killed forms\n\n")
		b.WriteString("Answered with `killed-op` (class refused), naming the replacement. A contract\n")
		fmt.Fprintf(&b, "version before %s is answered with `killed-version`.\n\n", Version)
		b.WriteString("| op | replacement | why |\n| --- | --- | --- |\n")
		for _, k := range ks {
			repl := "—"
			if k.Replacement != "" {
				repl = "`" + k.Replacement + "`"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", k.Name, repl, cell(k.Note))
		}
	}
	b.WriteString("\n## Error codes\n\n")
	writeCodeTable(&b, codes)
	return b.Bytes()
}

// ErrorCodesDoc is the error-code reference: every code an op may answer
// with and its class, and what each class means.
func ErrorCodesDoc(codes map[string]Class) []byte {
	var b bytes.Buffer
	b.WriteString("<!-- Generated from the op registry by `go generate ./internal/cli`. Do not edit. -->\n\n")
	fmt.Fprintf(&b, "# Error codes of contract %s\n\n", Version)
	b.WriteString("A refusal is `{\"id\", \"ok\": false, \"error\": {\"code\", \"class\", \"message\", …data}}`.\n")
	b.WriteString("The class says what to do: `schema` — the request is malformed, fix it;\n")
	b.WriteString("`refused` — well-formed but a precondition failed (re-read, then decide);\n")
	b.WriteString("`conflict` — an idempotency key reused for another call; `not-found` — the\n")
	b.WriteString("named thing does not exist; `internal` — the server failed, nothing was stored.\n\n")
	writeCodeTable(&b, codes)
	return b.Bytes()
}

func writeCodeTable(b *bytes.Buffer, codes map[string]Class) {
	b.WriteString("| code | class |\n| --- | --- |\n")
	names := make([]string, 0, len(codes))
	for c := range codes {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, c := range names {
		fmt.Fprintf(b, "| `%s` | %s |\n", c, codes[c])
	}
}

// fieldTable writes the top-level fields of an object schema as a table.
func fieldTable(b *bytes.Buffer, s map[string]any) {
	props, _ := s["properties"].(map[string]any)
	if len(props) == 0 {
		if _, own := s["type"]; !own {
			fmt.Fprintf(b, "%s\n", cell(describe(s)))
			return
		}
		b.WriteString("none\n")
		return
	}
	if d, ok := s["description"].(string); ok {
		b.WriteString(cell(d) + ".\n\n")
	}
	if open, _ := s["additionalProperties"].(bool); open {
		defer b.WriteString("\nOther fields are read by the params type itself.\n")
	}
	b.WriteString("| field | type | required | description |\n| --- | --- | --- | --- |\n")
	fieldRows(b, "", s)
}

// fieldRows writes a row for each field of object schema s, sorted by
// name and prefixed by path, each followed by the rows of the fields
// nested in its value.
func fieldRows(b *bytes.Buffer, path string, s map[string]any) {
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	if r, ok := s["required"].([]string); ok {
		for _, n := range r {
			required[n] = true
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p, _ := props[n].(map[string]any)
		req := "no"
		if required[n] {
			req = "yes"
		}
		desc, _ := p["description"].(string)
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", path+n, cell(typeName(p)), req, cell(desc))
		nestedRows(b, path+n, p)
	}
}

// nestedRows writes the rows of the fields inside value schema s of the
// field at path: an object's members (path.member), those of an array's
// items (path[].member) or a map's values (path{}.member), and those of
// each oneOf branch in turn.
func nestedRows(b *bytes.Buffer, path string, s map[string]any) {
	if _, ok := s["properties"].(map[string]any); ok {
		fieldRows(b, path+".", s)
	}
	if items, ok := s["items"].(map[string]any); ok {
		nestedRows(b, path+"[]", items)
	}
	if ap, ok := s["additionalProperties"].(map[string]any); ok {
		nestedRows(b, path+"{}", ap)
	}
	branches, _ := s["oneOf"].([]any)
	for _, br := range branches {
		if m, ok := br.(map[string]any); ok {
			nestedRows(b, path, m)
		}
	}
}

// typeName says what kind of JSON value a schema admits, shortly.
func typeName(s map[string]any) string {
	if c, ok := s["const"]; ok {
		return fmt.Sprintf("%v", c)
	}
	if e, ok := s["enum"].([]string); ok {
		return strings.Join(e, " | ") // cell escapes the bars
	}
	switch t, _ := s["type"].(string); t {
	case "array":
		items, _ := s["items"].(map[string]any)
		return "array of " + typeName(items)
	case "object":
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			return "map of " + typeName(ap)
		}
		return "object"
	case "":
		if _, ok := s["properties"]; ok {
			return "object"
		}
		if bs, ok := s["oneOf"].([]any); ok && len(bs) > 0 {
			kinds := map[string]bool{}
			for _, br := range bs {
				m, _ := br.(map[string]any)
				kinds[typeName(m)] = true
			}
			if len(kinds) == 1 {
				for k := range kinds {
					return k // every branch is one kind of value
				}
			}
		}
		return "any"
	default:
		return t
	}
}

// describe says what a schema with no type admits.
func describe(s map[string]any) string {
	if d, ok := s["description"].(string); ok {
		return d
	}
	return "any JSON value"
}

// cell makes text safe in a table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ")
}

// anchor is the GitHub heading anchor of an op name.
func anchor(name string) string {
	return strings.ReplaceAll(name, ".", "")
}
