// A scanner over JSON already known to be valid (decodeStrict checks it
// with jcs first): it walks an object's members or an array's items as
// sub-slices of the input, so that the required-field check copies
// nothing and builds no map per call (DL-0296).

package worker

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sync"
)

// members calls f with each member of the object data (key unescaped,
// value a sub-slice of data) and reports whether data is an object.
func members(data []byte, f func(key string, value []byte)) bool {
	return rawMembers(data, func(key, value []byte) { f(unquote(key), value) })
}

// rawMembers is members with each key as its literal, quotes and escapes
// kept, for a caller that copies members on: data is valid JSON.
func rawMembers(data []byte, f func(key, value []byte)) bool {
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipWS(data, i+1)
	for i < len(data) && data[i] != '}' {
		end := skipString(data, i)
		key := data[i:end]
		i = skipWS(data, skipWS(data, end)+1) // past the colon
		vend := skipValue(data, i)
		f(key, data[i:vend])
		i = skipWS(data, vend)
		if i < len(data) && data[i] == ',' {
			i = skipWS(data, i+1)
		}
	}
	return true
}

// keyIs reports whether the key literal lit spells name; only an escaped
// one is unescaped to tell.
func keyIs(lit []byte, name string) bool {
	if len(lit) == len(name)+2 && string(lit[1:len(lit)-1]) == name {
		return true
	}
	return bytes.IndexByte(lit, '\\') >= 0 && unquote(lit) == name
}

// items calls f with each item of the array data and reports whether data
// is an array.
func items(data []byte, f func(i int, item []byte)) bool {
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '[' {
		return false
	}
	i = skipWS(data, i+1)
	for n := 0; i < len(data) && data[i] != ']'; n++ {
		end := skipValue(data, i)
		f(n, data[i:end])
		i = skipWS(data, end)
		if i < len(data) && data[i] == ',' {
			i = skipWS(data, i+1)
		}
	}
	return true
}

func skipWS(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index past the string starting at data[i] ('"').
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(data)
}

// skipValue returns the index past the value starting at data[i].
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				i = skipString(data, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(data)
	}
	for i < len(data) && data[i] != ',' && data[i] != '}' && data[i] != ']' && data[i] != ' ' &&
		data[i] != '\t' && data[i] != '\n' && data[i] != '\r' {
		i++
	}
	return i
}

// unquote is the text of a JSON string literal; only one with escapes
// takes the decoder (and allocates beyond the string itself).
func unquote(lit []byte) string {
	for _, c := range lit {
		if c == '\\' {
			var s string
			_ = json.Unmarshal(lit, &s)
			return s
		}
	}
	if len(lit) < 2 {
		return ""
	}
	return string(lit[1 : len(lit)-1])
}

// fieldCache holds jsonFields by type: the params types are few and fixed,
// and listing their fields by reflection on every call was most of the
// garbage of the strict decoding.
var fieldCache sync.Map // reflect.Type -> []jsonField

// cachedFields is jsonFields(t), computed once per type.
func cachedFields(t reflect.Type) []jsonField {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]jsonField)
	}
	f, _ := fieldCache.LoadOrStore(t, jsonFields(t))
	return f.([]jsonField)
}
