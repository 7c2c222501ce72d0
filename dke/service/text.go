// The human text of compile's answer, in the surface it was asked in.

package service

import (
	"fmt"
	"strings"

	"github.com/deloreis/deloreis/dke/keywords"
)

// words are the response's own words, per surface (contract §8.1).
var words = map[keywords.Lang]map[string]string{
	keywords.Eng: {
		"compiled": "compiled module %s", "reloaded": "reloaded module %s", "installed": "installed", "restored": "restored",
		"class": "class", "script": "script", "rule": "rule", "constraint": "constraint", "computed": "computed field",
		"body": "body", "ok": "OK", "error": "error",
	},
	keywords.Nob: {
		"compiled": "kompilerte modul %s", "reloaded": "lastet modul %s på nytt", "installed": "installerte", "restored": "gjenopprettet",
		"class": "klasse", "script": "skript", "rule": "regel", "constraint": "begrensning", "computed": "beregnet felt",
		"body": "kropp", "ok": "OK", "error": "feil",
	},
}

func w(l keywords.Lang, k string) string {
	if m, ok := words[l]; ok {
		return m[k]
	}
	return words[keywords.Eng][k]
}

// compileText acknowledges the submission, states its installs, then the
// body's header and lines; each part only when it has something to say.
func compileText(res CompileResult, l keywords.Lang, reload bool) string {
	var b strings.Builder
	head := "compiled"
	if reload {
		head = "reloaded"
	}
	b.WriteString(fmt.Sprintf(w(l, head), res.Module) + "\n")
	if in := res.Installed; in != nil {
		b.WriteString(w(l, "installed") + ":\n")
		list := func(key string, xs []string) {
			for _, x := range xs {
				b.WriteString("  " + w(l, key) + " " + x + "\n")
			}
		}
		list("class", in.Classes)
		list("script", in.Scripts)
		list("rule", in.Rules)
		list("constraint", in.Constraints)
		list("computed", in.Computed)
	}
	if in := res.Restored; in != nil {
		b.WriteString(w(l, "restored") + ":\n")
		for _, x := range in.Scripts {
			b.WriteString("  " + w(l, "script") + " " + x + "\n")
		}
		for _, x := range in.Rules {
			b.WriteString("  " + w(l, "rule") + " " + x + "\n")
		}
		for _, x := range in.Constraints {
			b.WriteString("  " + w(l, "constraint") + " " + x + "\n")
		}
	}
	if res.Body != nil {
		b.WriteString(res.bodyText)
	}
	return b.String()
}
