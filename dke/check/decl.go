// Declarations: imports, classes and defs, their names and signatures,
// and what a program may not declare.

package check

import (
	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
)

// declare collects the module's declarations and its body.
func (c *checker) declare() {
	var defs []*defDecl
	for _, s := range c.f.Stmts {
		switch s := s.(type) {
		case *syntax.ImportStmt:
			c.declareImport(s)
		case *syntax.ClassStmt:
			c.declareClassName(s)
		case *syntax.DefStmt:
			if d := c.declareDefName(s); d != nil {
				defs = append(defs, d)
			}
		default:
			c.body = append(c.body, s)
		}
	}
	for _, k := range c.kindOrder {
		c.declareClassBody(k)
	}
	for _, d := range defs {
		c.declareSignature(d)
	}
}

func (c *checker) declareImport(s *syntax.ImportStmt) {
	name := s.Name.Name
	c.info.Imports = append(c.info.Imports, name)
	if prev, ok := c.imports[name]; ok {
		c.errorf(s.Name.NamePos, "module %s imported twice (first at line %d)", name, prev.pos.Line)
		return
	}
	d := &importDecl{pos: s.Name.NamePos}
	c.imports[name] = d
	if c.mode == Compile && name == c.module {
		c.errorf(s.Name.NamePos, "module %s cannot import itself: call its scripts by their names", name)
		return
	}
	m, ok := c.env.Module(name)
	if !ok {
		c.errorf(s.Name.NamePos, "unknown module %s: compile it before importing it", name)
		return
	}
	d.mod = m
}

// taken reports a name already declared in the module.
func (c *checker) taken(name string) (syntax.Pos, bool) {
	if d, ok := c.defs[name]; ok {
		return d.stmt.Name.NamePos, true
	}
	if k, ok := c.kinds[name]; ok {
		return k.stmt.Name.NamePos, true
	}
	if i, ok := c.imports[name]; ok {
		return i.pos, true
	}
	return syntax.Pos{}, false
}

func (c *checker) declareClassName(s *syntax.ClassStmt) {
	name := s.Name.Name
	if c.mode == Run {
		c.refusef(s.Class, "a program cannot declare a class (nor its computed fields): compile it as a module, then import it")
	}
	if p, ok := c.taken(name); ok {
		c.errorf(s.Name.NamePos, "%s redeclared (first at line %d)", name, p.Line)
		return
	}
	if k, ok := c.env.Kind(name); ok && k.Module != c.module {
		c.errorf(s.Name.NamePos, "kind %s is already declared by module %s", name, k.Module)
	}
	k := &kindDecl{stmt: s, info: &KindInfo{Name: name, Module: c.module}}
	c.kinds[name] = k
	c.kindOrder = append(c.kindOrder, k)
}

func (c *checker) declareClassBody(k *kindDecl) {
	seen := map[string]syntax.Pos{}
	add := func(id *syntax.Ident, a AttrInfo) {
		if p, ok := seen[id.Name]; ok {
			c.errorf(id.NamePos, "attribute %s declared twice in %s (first at line %d)", id.Name, k.info.Name, p.Line)
			return
		}
		seen[id.Name] = id.NamePos
		k.info.Attrs = append(k.info.Attrs, a)
	}
	for _, s := range k.stmt.Body {
		switch s := s.(type) {
		case *syntax.AttrDecl:
			t := c.resolveType(s.Type)
			if t.Tag == TList {
				c.errorf(s.Type.Start, "an attribute holds one value, not a %s: declare %s and remember one claim per value", t.Text(c.lang), c.word(keywords.String))
			}
			add(s.Name, AttrInfo{Name: s.Name.Name, Type: t})
		case *syntax.DefStmt:
			if d := c.declareComputed(k, s); d != nil {
				add(s.Name, AttrInfo{Name: s.Name.Name, Type: d.result, Computed: true})
			}
		case *syntax.SimpleStmt, *syntax.BadStmt:
		case *syntax.ExprStmt:
			if l, ok := s.X.(*syntax.Literal); !ok || l.Token != syntax.STRING {
				c.errorf(stmtPos(s), "a class body declares attributes `name: type` and @%s fields", c.word(keywords.Computed))
			}
		default:
			c.errorf(stmtPos(s), "a class body declares attributes `name: type` and @%s fields", c.word(keywords.Computed))
		}
	}
}

func stmtPos(s syntax.Stmt) syntax.Pos { p, _ := s.Span(); return p }

func (c *checker) declareComputed(k *kindDecl, s *syntax.DefStmt) *defDecl {
	if s.Decorator == nil || s.Decorator.ID != keywords.Computed {
		c.errorf(s.Def, "a class body declares attributes and @%s fields: declare `%s %s` at the top level of the module",
			c.word(keywords.Computed), c.word(keywords.Def), s.Name.Name)
		return nil
	}
	d := &defDecl{stmt: s, role: computedDef, kind: k, node: computedNode(k.info.Name, s.Name.Name)}
	subject := Subject(k.info.Name)
	if len(s.Params) != 1 {
		c.errorf(s.Name.NamePos, "a computed field takes one parameter, the subject: `%s %s(s):`", c.word(keywords.Def), s.Name.Name)
	}
	for _, p := range s.Params {
		t := subject
		if p.Type != nil {
			if t = c.resolveType(p.Type); t != subject && t.Tag != TInvalid {
				c.errorf(p.Type.Start, "the subject of a computed field of %s is a %s, not %s", k.info.Name, k.info.Name, t.Text(c.lang))
			}
		}
		d.params = append(d.params, Param{Name: p.Name.Name, Type: subject})
	}
	if s.Result == nil {
		c.errorf(s.Name.NamePos, "a computed field declares its type: `%s %s(s) -> %s:`", c.word(keywords.Def), s.Name.Name, c.word(keywords.String))
		d.result = Invalid
	} else {
		d.result = c.resolveType(s.Result)
	}
	c.defOrder = append(c.defOrder, d)
	return d
}

// declareDefName declares a top-level def's name and role.
func (c *checker) declareDefName(s *syntax.DefStmt) *defDecl {
	name := s.Name.Name
	d := &defDecl{stmt: s, role: procedure, node: scriptNode(c.module, name)}
	if s.Decorator != nil {
		switch s.Decorator.ID {
		case keywords.Rule:
			d.role = ruleDef
		case keywords.Constraint:
			d.role = constraintDef
		case keywords.Computed:
			c.errorf(s.Decorator.At, "@%s declares a field inside a class body", c.word(keywords.Computed))
		}
	}
	if d.role == procedure && s.Result != nil {
		d.role = valueScript
	}
	c.refuseInProgram(s, d.role)
	if p, ok := c.taken(name); ok {
		c.errorf(s.Name.NamePos, "%s redeclared (first at line %d)", name, p.Line)
		return nil
	}
	c.defs[name] = d
	c.defOrder = append(c.defOrder, d)
	return d
}

// declareSignature resolves a def's parameter and result types.
func (c *checker) declareSignature(d *defDecl) {
	s := d.stmt
	if d.role == ruleDef || d.role == constraintDef {
		if s.Result != nil {
			c.errorf(s.Result.Start, "a @%s has no result type", s.Decorator.Name.Name)
		}
		return
	}
	d.params = c.params(s.Params)
	d.result = NoValue
	if s.Result != nil {
		d.result = c.resolveType(s.Result)
	}
	d.script = &ScriptInfo{Name: s.Name.Name, Params: d.params, Result: d.result}
}

func (c *checker) refuseInProgram(s *syntax.DefStmt, r role) {
	if c.mode != Run {
		return
	}
	switch r {
	case ruleDef, constraintDef:
		c.refusef(stmtPos(s), "a program cannot declare a @%s: compile it as a module, where it becomes a standing declaration", s.Decorator.Name.Name)
	default:
		c.refusef(s.Def, "a program cannot declare a `%s`: compile it as a module, then `%s` the module and call the script",
			c.word(keywords.Def), c.word(keywords.Import))
	}
}

// params resolves a script's parameters.
func (c *checker) params(ps []*syntax.Param) []Param {
	seen := map[string]bool{}
	var out []Param
	for _, p := range ps {
		if seen[p.Name.Name] {
			c.errorf(p.Name.NamePos, "parameter %s declared twice", p.Name.Name)
		}
		seen[p.Name.Name] = true
		t := Invalid
		if p.Type == nil {
			c.errorf(p.Name.NamePos, "parameter %s needs a type: `%s: %s`", p.Name.Name, p.Name.Name, c.word(keywords.String))
		} else {
			t = c.resolveType(p.Type)
		}
		out = append(out, Param{Name: p.Name.Name, Type: t})
	}
	return out
}

// pythonTypes maps Python's type names to DKE Python's.
var pythonTypes = map[string]keywords.ID{
	"str": keywords.String, "integer": keywords.Int, "boolean": keywords.Bool,
	"double": keywords.Float, "List": keywords.StringList,
}

// resolveType returns the type a type expression names.
func (c *checker) resolveType(te *syntax.TypeExpr) Type {
	if te.ID != keywords.None {
		return builtinType(te.ID)
	}
	name := te.Name
	if _, ok := c.kinds[name]; ok {
		return Subject(name)
	}
	if _, ok := c.env.Kind(name); ok {
		return Subject(name)
	}
	if id, ok := pythonTypes[name]; ok {
		w := c.word(id)
		c.fixf(te.Start, replaceFrom(c.f.Src, te.End, w), "unknown type %s: write %s", name, w)
		return builtinType(id)
	}
	cands := func() map[string]string {
		out := c.keywordCands(keywords.Type)
		for k := range c.kinds {
			out[k] = k
		}
		return out
	}
	c.errorf(te.Start, "unknown type %s: a kind used as a type is declared by a class%s", name, c.didYouMean(name, cands))
	return Invalid
}
