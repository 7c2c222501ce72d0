// Paths into a decoded result, for let bindings, and the "$name"
// substitution of bound values into a call's arguments.

package casebook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// step is one segment of a path: a field, then optionally an index or a
// filter that picks the first element of an array whose key equals value.
type step struct {
	field string // "" when the segment is only a selector
	index int    // -1 when there is none
	key   string // a filter's dotted key, "" when there is none
	value string
}

// parsePath splits "a.b[2].c[x.y=v].d" into steps; a "." inside brackets
// belongs to the filter.
func parsePath(p string) ([]step, error) {
	var out []step
	for p != "" {
		end := len(p)
		depth := 0
		for i, r := range p {
			if r == '[' {
				depth++
			} else if r == ']' {
				depth--
			} else if r == '.' && depth == 0 {
				end = i
				break
			}
		}
		seg := p[:end]
		p = strings.TrimPrefix(p[end:], ".")
		s := step{field: seg, index: -1}
		if i := strings.IndexByte(seg, '['); i >= 0 {
			if !strings.HasSuffix(seg, "]") {
				return nil, fmt.Errorf("segment %q: unclosed [", seg)
			}
			s.field = seg[:i]
			sel := seg[i+1 : len(seg)-1]
			if k, v, ok := strings.Cut(sel, "="); ok {
				if k == "" {
					return nil, fmt.Errorf("segment %q: empty filter key", seg)
				}
				s.key, s.value = k, v
			} else if n, err := strconv.Atoi(sel); err == nil && n >= 0 {
				s.index = n
			} else {
				return nil, fmt.Errorf("segment %q: want [N] or [key=value]", seg)
			}
		}
		if s.field == "" && s.index < 0 && s.key == "" {
			return nil, fmt.Errorf("empty segment")
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty path")
	}
	return out, nil
}

// lookup follows a path through a decoded JSON value and returns the
// string it ends on.
func lookup(v any, path string) (string, error) {
	steps, err := parsePath(path)
	if err != nil {
		return "", err
	}
	for _, s := range steps {
		if s.field != "" {
			m, ok := v.(map[string]any)
			if !ok {
				return "", fmt.Errorf("%s: %q is not in an object", path, s.field)
			}
			if v, ok = m[s.field]; !ok {
				return "", fmt.Errorf("%s: no field %q", path, s.field)
			}
		}
		if s.index < 0 && s.key == "" {
			continue
		}
		arr, ok := v.([]any)
		if !ok {
			return "", fmt.Errorf("%s: %q is not an array", path, s.field)
		}
		if v, err = pick(arr, s); err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
	}
	str, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: ends on %T, not a string", path, v)
	}
	return str, nil
}

// pick selects one element of an array by index or by filter.
func pick(arr []any, s step) (any, error) {
	if s.index >= 0 {
		if s.index >= len(arr) {
			return nil, fmt.Errorf("index %d of %d elements", s.index, len(arr))
		}
		return arr[s.index], nil
	}
	for _, e := range arr {
		if got, err := lookup(e, s.key); err == nil && got == s.value {
			return e, nil
		}
	}
	return nil, fmt.Errorf("no element with %s=%s", s.key, s.value)
}

// substitute replaces every string "$name" in args (at any depth) by the
// bound value; an unbound name is an error. It works on the JSON text, so
// the arguments keep the order the script wrote them in.
func substitute(args json.RawMessage, vars map[string]string) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, args); err != nil {
		return nil, err
	}
	in := buf.Bytes()
	var out []byte
	for i := 0; i < len(in); i++ {
		if in[i] != '"' {
			out = append(out, in[i])
			continue
		}
		end := stringEnd(in, i)
		lit := in[i : end+1]
		i = end
		var str string
		if err := json.Unmarshal(lit, &str); err != nil {
			return nil, err
		}
		name, ok := strings.CutPrefix(str, "$")
		if !ok {
			out = append(out, lit...)
			continue
		}
		val, bound := vars[name]
		if !bound {
			return nil, fmt.Errorf("$%s is not bound by an earlier let", name)
		}
		q, _ := json.Marshal(val)
		out = append(out, q...)
	}
	return out, nil
}

// stringEnd is the index of the quote closing the JSON string literal
// that opens at in[start] (valid JSON: it is there).
func stringEnd(in []byte, start int) int {
	for j := start + 1; j < len(in); j++ {
		switch in[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(in) - 1
}
