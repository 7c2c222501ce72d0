// How each result field is shown: findings as their code, severity and
// message; answers with their grade; a list of committed objects by type;
// anything else as compact JSON.

package casebook

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// writeField writes one result field as a list item (with sub-items).
func writeField(b *strings.Builder, st *Step, k string, v any) {
	switch k {
	case "error":
		writeError(b, v)
	case "findings":
		writeFindings(b, "findings", v)
	case "rendered":
		writeLines(b, k, v)
	case "answers":
		writeAnswers(b, st, v)
	case "committed":
		writeCommitted(b, v)
	case "questions":
		writeQuestions(b, v)
	case "staged", "standing":
		writeRows(b, k, v, stagedRow)
	case "conflicts":
		writeRows(b, k, v, conflictRow)
	case "branches":
		writeRows(b, k, v, branchRow)
	case "entities":
		writeRows(b, k, v, entityRow)
	case "added_in":
		writeRows(b, k, v, commitRow)
	case "consequences":
		writeConsequences(b, v)
	default:
		fmt.Fprintf(b, "- %s: %s\n", k, code(scalar(v)))
	}
}

// scalar is a string as itself and anything else as compact JSON.
func scalar(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return compact(v)
}

func writeError(b *strings.Builder, v any) {
	e, _ := v.(map[string]any)
	fmt.Fprintf(b, "- %s (%s): %s\n", code(scalar(e["code"])), scalar(e["class"]), short(scalar(e["message"])))
	if f, ok := e["findings"]; ok {
		writeFindings(b, "its findings", f)
	}
}

// writeFindings lists findings as `code` (severity): message.
func writeFindings(b *strings.Builder, label string, v any) {
	list, _ := v.([]any)
	if len(list) == 0 {
		fmt.Fprintf(b, "- %s: none\n", label)
		return
	}
	fmt.Fprintf(b, "- %s:\n", label)
	for _, f := range list {
		m, _ := f.(map[string]any)
		fmt.Fprintf(b, "  - %s (%s): %s\n", code(scalar(m["code"])), scalar(m["severity"]), short(scalar(m["message"])))
	}
}

// writeLines lists strings (rendered .dli lines) as code.
func writeLines(b *strings.Builder, k string, v any) {
	list, _ := v.([]any)
	switch len(list) {
	case 0:
		fmt.Fprintf(b, "- %s: none\n", k)
	case 1:
		fmt.Fprintf(b, "- %s: %s\n", k, code(scalar(list[0])))
	default:
		fmt.Fprintf(b, "- %s:\n", k)
		for _, l := range list {
			fmt.Fprintf(b, "  - %s\n", code(scalar(l)))
		}
	}
}

// writeAnswers lists query answers as atoms of the goal's predicate with
// their grades.
func writeAnswers(b *strings.Builder, st *Step, v any) {
	list, _ := v.([]any)
	pred := ""
	if p, err := lookup(sentArgs(st), "goal.pred"); err == nil {
		pred = p
	}
	if len(list) == 0 {
		fmt.Fprintf(b, "- answers: none\n")
		return
	}
	fmt.Fprintf(b, "- answers:\n")
	for _, a := range list {
		m, _ := a.(map[string]any)
		fmt.Fprintf(b, "  - %s: %s\n", code(atomText(pred, m["args"])), scalar(m["grade"]))
	}
}

// writeCommitted says what a commit wrote: objects counted by type, or
// the ids of the revisions a standing op wrote.
func writeCommitted(b *strings.Builder, v any) {
	list := asList(v)
	counts := map[string]int{}
	var ids []string
	for _, c := range list {
		switch x := c.(type) {
		case map[string]any:
			counts[scalar(x["type"])]++
		default:
			ids = append(ids, code(scalar(x)))
		}
	}
	if len(ids) > 0 {
		fmt.Fprintf(b, "- committed: %s\n", strings.Join(ids, ", "))
		return
	}
	types := make([]string, 0, len(counts))
	for t := range counts {
		types = append(types, t)
	}
	sort.Strings(types)
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = fmt.Sprintf("%d %s", counts[t], t)
	}
	fmt.Fprintf(b, "- committed: %s\n", strings.Join(parts, ", "))
}

// writeQuestions lists questions with their options and whether they
// stand open.
func writeQuestions(b *strings.Builder, v any) {
	fmt.Fprintf(b, "- questions:\n")
	for _, q := range asList(v) {
		m, _ := q.(map[string]any)
		state := "open"
		if a, _ := m["answer"].(string); a != "" {
			state = "answered " + code(a)
		}
		var opts []string
		for _, o := range asList(m["options"]) {
			om, _ := o.(map[string]any)
			opts = append(opts, code(scalar(om["id"])))
		}
		fmt.Fprintf(b, "  - %s (%s): options %s\n", code(scalar(m["id"])), state, strings.Join(opts, ", "))
	}
}

// writeRows lists each element of an array as row renders it.
func writeRows(b *strings.Builder, k string, v any, row func(map[string]any) string) {
	list := asList(v)
	if len(list) == 0 {
		fmt.Fprintf(b, "- %s: none\n", k)
		return
	}
	fmt.Fprintf(b, "- %s:\n", k)
	for _, r := range list {
		m, _ := r.(map[string]any)
		fmt.Fprintf(b, "  - %s\n", row(m))
	}
}

// stagedRow is a staged declaration (or a standing revision): its
// declaration id, when it has one, and its rendered lines.
func stagedRow(m map[string]any) string {
	var parts []string
	if d, ok := m["decl"].(string); ok && m["type"] != "standing" {
		parts = append(parts, code(d)+":")
	}
	for _, l := range asList(m["rendered"]) {
		parts = append(parts, code(scalar(l)))
	}
	return strings.Join(parts, " ")
}

// conflictRow is a merge conflict (its kind) or a finding (its code),
// with its message.
func conflictRow(m map[string]any) string {
	name, ok := m["kind"]
	if !ok {
		name = m["code"]
	}
	return code(scalar(name)) + ": " + short(scalar(m["message"]))
}

// branchRow is a branch and its head.
func branchRow(m map[string]any) string {
	return code(scalar(m["name"])) + " at " + code(scalar(m["head"]))
}

// commitRow is a commit and its summary.
func commitRow(m map[string]any) string {
	return code(scalar(m["commit"])) + " " + scalar(m["summary"])
}

// entityRow is an entity with its kind and grade.
func entityRow(m map[string]any) string {
	return fmt.Sprintf("%s (%s): %s", code(scalar(m["id"])), scalar(m["kind"]), scalar(m["grade"]))
}

// writeConsequences lists the derived-consequence diff: each atom whose
// grade changed, and the conflicts that arose.
func writeConsequences(b *strings.Builder, v any) {
	m, _ := v.(map[string]any)
	rows := asList(m["grade_changed"])
	conflicts := asList(m["conflicts"])
	if len(rows)+len(conflicts) == 0 {
		fmt.Fprintf(b, "- consequences: none\n")
		return
	}
	fmt.Fprintf(b, "- consequences:\n")
	for _, r := range rows {
		a, _ := r.(map[string]any)
		fmt.Fprintf(b, "  - %s: %s → %s\n", code(atomText(scalar(a["pred"]), a["args"])), scalar(a["before"]), scalar(a["after"]))
	}
	for _, c := range conflicts {
		cm, _ := c.(map[string]any)
		fmt.Fprintf(b, "  - conflict %s\n", conflictRow(cm))
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// sentArgs is the decoded arguments a step sent.
func sentArgs(st *Step) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(st.Sent, &m)
	return m
}

// atomText is an atom as the story prints it: pred(arg, arg).
func atomText(pred string, args any) string {
	var out []string
	for _, x := range asList(args) {
		out = append(out, scalar(x))
	}
	return pred + "(" + strings.Join(out, ", ") + ")"
}
