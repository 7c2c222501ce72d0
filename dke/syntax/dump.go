// Dump: a position-free rendering of a tree, for comparing the trees of
// one program written on two surfaces.

package syntax

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/deloreis/deloreis/dke/keywords"
)

var (
	posType  = reflect.TypeOf(Pos{})
	kwType   = reflect.TypeOf(keywords.ID(0))
	langType = reflect.TypeOf(keywords.Lang(0))
)

// Dump renders n as an indented tree without positions, source text or
// surface: two sources have equal dumps exactly when they parse to the
// same tree. Keyword ids are rendered by their canonical names.
func Dump(n Node) string {
	var b strings.Builder
	dump(&b, reflect.ValueOf(n), 0)
	return b.String()
}

func dump(b *strings.Builder, v reflect.Value, depth int) {
	ind := strings.Repeat("  ", depth)
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil\n")
			return
		}
		dump(b, v.Elem(), depth)
	case reflect.Struct:
		fmt.Fprintf(b, "%s\n", v.Type().Name())
		for i := 0; i < v.NumField(); i++ {
			f, ft := v.Field(i), v.Type().Field(i)
			if ft.Type == posType || ft.Type == langType || ft.Name == "Src" || ft.Name == "Path" || ft.Name == "Raw" {
				continue
			}
			fmt.Fprintf(b, "%s  %s: ", ind, ft.Name)
			dump(b, f, depth+1)
		}
	case reflect.Slice:
		fmt.Fprintf(b, "[%d]\n", v.Len())
		for i := 0; i < v.Len(); i++ {
			fmt.Fprintf(b, "%s  - ", ind)
			dump(b, v.Index(i), depth+1)
		}
	default:
		if v.Type() == kwType {
			fmt.Fprintf(b, "%s\n", keywords.ID(v.Uint()))
			return
		}
		fmt.Fprintf(b, "%v\n", v.Interface())
	}
}
