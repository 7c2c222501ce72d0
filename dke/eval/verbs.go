// Calls: the verbs, conversions, script calls and the store-derived
// collections.

package eval

import (
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
)

func (in *interp) call(fr *frame, e *syntax.CallExpr) (value, error) {
	switch fn := e.Fn.(type) {
	case *syntax.KeywordExpr:
		return in.verb(fr, fn, e)
	case *syntax.Ident:
		if d, ok := fr.info.defs[fn.Name]; ok {
			return in.script(fr, fr.file, fr.module, d, e)
		}
	case *syntax.DotExpr:
		if id, ok := fn.X.(*syntax.Ident); ok && fr.info.imports[id.Name] {
			if _, isVar := fr.vars[id.Name]; !isVar {
				// Resolved as the calling module was compiled (§9.2).
				f, ok := in.opts.Modules.Import(fr.module, id.Name)
				if ok {
					if d, ok := in.index(f).defs[fn.Name.Name]; ok {
						return in.script(fr, f, id.Name, d, e)
					}
				}
				return nil, fail(keywords.Error, fn.Name.NamePos, mNoScript, id.Name+"."+fn.Name.Name)
			}
		}
	}
	p, _ := e.Fn.Span()
	return nil, fail(keywords.Error, p, mNoScript, "?")
}

// script calls d, declared in f (module mod), with e's arguments
// evaluated in the caller's frame. The callee runs in its own surface.
func (in *interp) script(caller *frame, f *syntax.File, mod string, d *syntax.DefStmt, e *syntax.CallExpr) (value, error) {
	args := make([]value, len(e.Args))
	for i, a := range e.Args {
		v, err := in.expr(caller, a.Value)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	return in.invoke(f, mod, d, args)
}

func (in *interp) invoke(f *syntax.File, mod string, d *syntax.DefStmt, args []value) (value, error) {
	fr := in.newFrame(f, mod)
	for i, p := range d.Params {
		if i >= len(args) {
			break
		}
		v := args[i]
		if n, ok := v.(int64); ok && p.Type != nil && p.Type.ID == keywords.Float {
			v = float64(n)
		}
		fr.vars[p.Name.Name] = v
	}
	c, err := in.block(fr, d.Body)
	var re *rtError
	if errors.As(err, &re) && re.module == "" && f != in.root {
		re.module = mod
	}
	if err != nil {
		return nil, err
	}
	if c == ctlReturn {
		return fr.ret, nil
	}
	return nil, nil
}

func (in *interp) args(fr *frame, e *syntax.CallExpr) ([]value, value, error) {
	var out []value
	var before value
	for _, a := range e.Args {
		v, err := in.expr(fr, a.Value)
		if err != nil {
			return nil, nil, err
		}
		if a.Name != nil {
			before = v // only forget takes a named argument: before=
			continue
		}
		out = append(out, v)
	}
	return out, before, nil
}

func (in *interp) verb(fr *frame, fn *syntax.KeywordExpr, e *syntax.CallExpr) (value, error) {
	args, before, err := in.args(fr, e)
	if err != nil {
		return nil, err
	}
	p := fn.Start
	arg := func(i int) value {
		if i < len(args) {
			return args[i]
		}
		return nil
	}
	switch fn.ID {
	case keywords.Print:
		parts := make([]string, len(args))
		for i, a := range args {
			parts[i] = show(fr.lang, a)
		}
		n := len(parts)
		for _, x := range parts {
			n += len(x)
		}
		// Output is paid for: a printed line stays in the transcript.
		if err := in.charge(n); err != nil {
			return nil, err
		}
		in.res.add(Entry{Type: EntryPrint, Lang: fr.lang, Text: strings.Join(parts, " ")})
		return nil, nil
	case keywords.Remember, keywords.Update, keywords.Forget:
		return nil, in.write(fr, fn.ID, p, args, before)
	case keywords.Current, keywords.Why, keywords.WhyNot, keywords.WhatNeeds:
		c, err := cellOf(fr, arg(0), p)
		if err != nil {
			return nil, err
		}
		return in.read(fr, fn.ID, c, p)
	case keywords.ListScripts:
		return append([]string{}, in.opts.Modules.ScriptNames()...), nil
	case keywords.Len:
		switch x := arg(0).(type) {
		case string:
			return int64(utf8.RuneCountInString(x)), nil
		case []string:
			return int64(len(x)), nil
		case []value:
			return int64(len(x)), nil
		}
		return nil, fail(keywords.Conversion, p, mConversion, show(fr.lang, arg(0)), keywords.Word(fr.lang, keywords.StringList))
	}
	v, err := convert(fr, fn.ID, p, arg(0))
	if str, ok := v.(string); ok && err == nil {
		err = in.charge(len(str))
	}
	return v, err
}

// write runs remember, update and forget, and records the effect.
func (in *interp) write(fr *frame, id keywords.ID, p syntax.Pos, args []value, before value) error {
	if len(args) == 0 {
		return fail(keywords.Error, p, mNotData, "()")
	}
	c, err := cellOf(fr, args[0], p)
	if err != nil {
		return err
	}
	ent := Entry{Lang: fr.lang, Cell: c}
	var apply func(tx *claims.Tx) int
	switch id {
	case keywords.Forget:
		ent.Type = EntryForget
		apply = func(tx *claims.Tx) int { return tx.Forget(c) }
		if before != nil {
			at, ok := before.(int64)
			if !ok {
				return fail(keywords.Conversion, p, mConversion, show(fr.lang, before), keywords.Word(fr.lang, keywords.Int))
			}
			ent.Before, ent.HasBefore = at, true
			apply = func(tx *claims.Tx) int { return tx.ForgetBefore(c, at) }
		}
	default:
		if len(args) < 3 {
			return fail(keywords.Error, p, mNotData, "()")
		}
		v, ok := toClaim(in.coerce(c, args[1]))
		if !ok {
			return fail(keywords.Error, p, mNotData, show(fr.lang, args[1]))
		}
		if v.Tag == claims.TFloat && (math.IsInf(v.Float, 0) || math.IsNaN(v.Float)) {
			return fail(keywords.Arithmetic, p, mOverflow, show(fr.lang, args[1]))
		}
		src, _ := args[2].(string)
		ent.Value, ent.Source, ent.Text = v, src, literal(fr.lang, fromClaim(v))
		ent.Type = EntryRemember
		apply = func(tx *claims.Tx) int { return tx.Remember(c, v, src) }
		if id == keywords.Update {
			ent.Type = EntryUpdate
			apply = func(tx *claims.Tx) int { return tx.Update(c, v, src) }
		}
	}
	// Outside a branch a write is its own change set: when another writer
	// moved the store since this run last read it, the write is applied
	// again over the new state (once), as any single write would be.
	// What a run writes is paid for: it goes into the commit.
	if err := in.charge(len(ent.Text) + len(ent.Source) + len(c.Kind) + len(c.Subject) + len(c.Attr)); err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		ent.Count = apply(in.tx)
		if ent.Count == 0 {
			return nil // changed nothing: silent (contract §4.2)
		}
		in.dirty = append(in.dirty, c)
		if in.inBranch {
			break
		}
		err := in.flush(p)
		var re *rtError
		if err == nil {
			break
		}
		if attempt > 0 || !errors.As(err, &re) || re.kind != keywords.Conflict {
			return err
		}
		if err := in.refresh(p); err != nil {
			return err
		}
	}
	in.res.add(ent)
	return nil
}

// coerce widens an int written to an attribute its class declares float.
func (in *interp) coerce(c claims.Cell, v value) value {
	n, ok := v.(int64)
	if !ok {
		return v
	}
	if a := in.attrDecl(c.Kind, c.Attr); a != nil && a.Type != nil && a.Type.ID == keywords.Float {
		return float64(n)
	}
	return v
}

// class finds the class declaring a kind: in the source running, else in
// the module the store says declares it.
func (in *interp) class(kind string) (*syntax.ClassStmt, *syntax.File, string) {
	if cl, ok := in.index(in.root).classes[kind]; ok {
		return cl, in.root, in.opts.Module
	}
	mod, ok := in.opts.Modules.KindModule(kind)
	if !ok {
		return nil, nil, ""
	}
	f, ok := in.opts.Modules.Module(mod)
	if !ok {
		return nil, nil, ""
	}
	return in.index(f).classes[kind], f, mod
}

func (in *interp) attrDecl(kind, attr string) *syntax.AttrDecl {
	cl, _, _ := in.class(kind)
	if cl == nil {
		return nil
	}
	for _, s := range cl.Body {
		if a, ok := s.(*syntax.AttrDecl); ok && a.Name.Name == attr {
			return a
		}
	}
	return nil
}

// computed returns the computed field declared for a cell's attribute.
func (in *interp) computed(c claims.Cell) (*syntax.DefStmt, *syntax.File, string) {
	cl, f, mod := in.class(c.Kind)
	if cl == nil {
		return nil, nil, ""
	}
	for _, s := range cl.Body {
		if d, ok := s.(*syntax.DefStmt); ok && d.Decorator != nil && d.Decorator.ID == keywords.Computed && d.Name.Name == c.Attr {
			return d, f, mod
		}
	}
	return nil, nil, ""
}

// current reads the value in force at c, computing a computed field.
func (in *interp) current(c claims.Cell) (*resultVal, error) {
	if d, f, mod := in.computed(c); d != nil {
		v, err := in.invoke(f, mod, d, []value{subject{c.Kind, c.Subject}})
		if err != nil {
			return nil, err
		}
		return &resultVal{cell: c, found: true, val: v, src: keywords.Computed.String()}, nil
	}
	cl, ok := in.tx.Current(c)
	if ok {
		return &resultVal{cell: c, found: true, val: fromClaim(cl.Value), src: cl.Source, at: cl.At}, nil
	}
	con, err := in.conclusion(c)
	if err != nil || con == nil {
		return &resultVal{cell: c}, err
	}
	return &resultVal{cell: c, found: true, val: con.val, src: ruleSource(con)}, nil
}

// conclusion is what the rules derive at c, or nil.
func (in *interp) conclusion(c claims.Cell) (*conclusion, error) {
	if !in.concludes(c) {
		return nil, nil
	}
	rm, err := in.derived()
	if err != nil {
		return nil, err
	}
	con, _ := rm.conclude(c)
	return con, nil
}

// ruleSource is a derived value's source: the rule that concluded it.
func ruleSource(con *conclusion) string {
	if len(con.rules) == 0 {
		return ""
	}
	return con.rules[0]
}

func (in *interp) read(fr *frame, id keywords.ID, c claims.Cell, p syntax.Pos) (value, error) {
	r, err := in.current(c)
	if err != nil {
		return nil, err
	}
	switch id {
	case keywords.Current:
		return r, nil
	case keywords.Why:
		return in.why(fr, c, r)
	}
	var needs []string
	if !r.found && in.concludes(c) {
		rm, err := in.derived()
		if err != nil {
			return nil, err
		}
		needs = rm.needs(c)
	}
	if needs == nil {
		needs = []string{}
	}
	if id == keywords.WhatNeeds {
		return needs, nil
	}
	ev := &explVal{found: r.found, needs: needs}
	if r.found {
		ev.text = c.String() + " = " + literal(fr.lang, r.val)
	} else {
		ev.text = c.String() + ": " + word(fr.lang, wMissing)
		for _, n := range needs {
			ev.text += "\n  " + word(fr.lang, wNeeds) + " " + n
		}
	}
	return ev, nil
}

// why builds the proof tree of the value in force at c: the claim, or the
// rules and the claims a derivation rests on.
func (in *interp) why(fr *frame, c claims.Cell, r *resultVal) (value, error) {
	pv := &proofVal{found: r.found, val: r.val, sources: []string{}}
	if !r.found {
		pv.text = c.String() + ": " + word(fr.lang, wMissing)
		return pv, nil
	}
	head := c.String() + " = " + literal(fr.lang, r.val)
	if _, claimed := in.tx.Current(c); claimed || r.src == keywords.Computed.String() {
		pv.sources = []string{r.src}
		pv.text = head + "\n  " + word(fr.lang, wClaim) + " " + strconv.Quote(r.src) + " @" + strconv.FormatInt(r.at, 10)
		return pv, nil
	}
	con, err := in.conclusion(c)
	if err != nil || con == nil {
		return pv, err
	}
	pv.derived, pv.rule = true, ruleSource(con)
	lines := []string{head}
	for _, rule := range con.rules {
		lines = append(lines, "  "+keywords.Word(fr.lang, keywords.Rule)+" "+rule)
	}
	seen := map[string]bool{}
	for _, cl := range con.from {
		lines = append(lines, "    "+cl.Cell.String()+" = "+literal(fr.lang, fromClaim(cl.Value))+" "+word(fr.lang, wFrom)+" "+strconv.Quote(cl.Source)+" @"+strconv.FormatInt(cl.At, 10))
		if !seen[cl.Source] {
			seen[cl.Source] = true
			pv.sources = append(pv.sources, cl.Source)
		}
	}
	for _, n := range con.negs {
		lines = append(lines, "    "+n)
	}
	sort.Strings(pv.sources)
	pv.text = strings.Join(lines, "\n")
	return pv, nil
}

func (in *interp) collection(fr *frame, e *syntax.CollectionExpr) (value, error) {
	x, err := in.expr(fr, e.X)
	if err != nil {
		return nil, err
	}
	p, _ := e.X.Span()
	if e.Form == keywords.Claims {
		c, err := cellOf(fr, x, p)
		if err != nil {
			return nil, err
		}
		var out []value
		for _, cl := range in.tx.Claims(c) {
			out = append(out, &resultVal{cell: c, found: true, val: fromClaim(cl.Value), src: cl.Source, at: cl.At})
		}
		return out, in.step(p, len(out))
	}
	var kind string
	switch k := x.(type) {
	case kindRef:
		kind = string(k)
	case string:
		kind = k
	default:
		return nil, fail(keywords.Conversion, p, mConversion, show(fr.lang, x), keywords.Word(fr.lang, keywords.String))
	}
	if e.Form == keywords.Attributes {
		out := in.tx.Attributes(kind)
		return out, in.step(p, len(out))
	}
	names := in.tx.Subjects(kind)
	if err := in.step(p, len(names)); err != nil {
		return nil, err
	}
	if _, ok := x.(string); ok {
		return names, nil
	}
	out := make([]value, len(names))
	for i, n := range names {
		out[i] = subject{kind, n}
	}
	return out, nil
}

// convert runs int(), float(), bool(), string() and string_list().
func convert(fr *frame, id keywords.ID, p syntax.Pos, x value) (value, error) {
	bad := func() (value, error) {
		return nil, fail(keywords.Conversion, p, mConversion, literal(fr.lang, x), keywords.Word(fr.lang, id))
	}
	switch id {
	case keywords.Int:
		switch v := x.(type) {
		case int64:
			return v, nil
		case float64:
			if v != v || v >= 9.223372036854775807e18 || v < -9.223372036854775808e18 {
				return bad()
			}
			return int64(v), nil
		case bool:
			if v {
				return int64(1), nil
			}
			return int64(0), nil
		case string:
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return bad()
			}
			return n, nil
		}
	case keywords.Float:
		switch v := x.(type) {
		case int64:
			return float64(v), nil
		case float64:
			return v, nil
		case string:
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return bad()
			}
			return f, nil
		}
	case keywords.Bool:
		switch v := x.(type) {
		case bool:
			return v, nil
		case int64:
			return v != 0, nil
		case float64:
			return v != 0, nil
		case string:
			switch v {
			case keywords.Word(keywords.Eng, keywords.True), keywords.Word(keywords.Nob, keywords.True), "true":
				return true, nil
			case keywords.Word(keywords.Eng, keywords.False), keywords.Word(keywords.Nob, keywords.False), "false":
				return false, nil
			}
		}
	case keywords.String:
		if x != nil {
			return show(fr.lang, x), nil
		}
	case keywords.StringList:
		if v, ok := x.([]string); ok {
			return append([]string{}, v...), nil
		}
	}
	return bad()
}
