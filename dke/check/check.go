// The entry points and the checker's state: Check a parsed file, or
// Source to parse and check text in one call.

package check

import (
	"fmt"

	"github.com/deloreis/deloreis/dke/diag"
	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
)

// Mode says what a source is submitted as.
type Mode uint8

// The modes.
const (
	// Compile checks a module: declarations and a body, stored under a name.
	Compile Mode = iota
	// Run checks a program: statements only, executed once and not stored.
	Run
)

// Options configure a check.
type Options struct {
	// Module is the module's name (Compile); a program's calls are
	// recorded against "" .
	Module string
	Mode   Mode
	// Env is what is stored; nil is an empty store.
	Env Env
}

// Source parses and checks src in one call, returning the tree, the
// module summary and every diagnostic, sorted and de-duplicated, each
// carrying path as its File.
func Source(path, src string, lang keywords.Lang, opts Options) (*syntax.File, *ModuleInfo, diag.List) {
	f, errs := syntax.Parse(path, src, lang)
	info, terrs := Check(f, opts)
	errs = append(errs, terrs...)
	errs.Sort()
	return f, info, errs
}

// Check checks a parsed file. It returns the module's summary (also for a
// source with errors, as far as it could be made) and the diagnostics,
// sorted, each carrying f.Path as its File.
func Check(f *syntax.File, opts Options) (*ModuleInfo, diag.List) {
	env := opts.Env
	if env == nil {
		env = emptyEnv{}
	}
	c := &checker{
		f: f, lang: f.Lang, mode: opts.Mode, module: opts.Module, env: env,
		info:      &ModuleInfo{Name: opts.Module, Lang: f.Lang, Language: f.Lang.String()},
		imports:   map[string]*importDecl{},
		defs:      map[string]*defDecl{},
		kinds:     map[string]*kindDecl{},
		edges:     map[string][]edge{},
		writes:    map[string]bool{},
		spellLeft: spellBudget(f.Src),
	}
	c.run()
	for i := range c.errs {
		c.errs[i].File = f.Path
	}
	c.errs.Sort()
	return c.info, c.errs
}

// checker is the state of one check.
type checker struct {
	f      *syntax.File
	lang   keywords.Lang
	mode   Mode
	module string
	env    Env
	errs   diag.List
	info   *ModuleInfo

	imports   map[string]*importDecl
	defs      map[string]*defDecl
	defOrder  []*defDecl
	kinds     map[string]*kindDecl
	kindOrder []*kindDecl
	body      []syntax.Stmt // the module body: its statements in order

	// The body being checked.
	scope map[string]*variable
	cur   *defDecl // nil in the module body
	node  string   // call-graph node of cur; "" in the module body
	loops int

	edges  map[string][]edge // call-graph edges by node
	writes map[string]bool   // nodes that write directly

	localRules  []localRule
	local       map[string]bool   // this module's call-graph nodes
	spellLeft   int               // suggestion work left (see spellBudget)
	fixedNames  map[string]string // verbs and scripts, for suggestions
	attrIndexes map[*KindInfo]*attrIndex
}

type importDecl struct {
	pos syntax.Pos
	mod *ModuleInfo // nil when the module is unknown
}

// role is what a def is.
type role uint8

const (
	procedure role = iota
	valueScript
	ruleDef
	constraintDef
	computedDef
)

type defDecl struct {
	stmt   *syntax.DefStmt
	role   role
	node   string
	script *ScriptInfo // procedures and value scripts
	kind   *kindDecl   // computed fields
	result Type
	params []Param
	// firstValueReturn is a procedure's first `return <value>`.
	firstValueReturn *syntax.ReturnStmt
	valueReturnType  Type
	// noResultFits is set when declaring valueReturnType as the result
	// would not make a valid value script: a bare return, or a value
	// return of another type.
	noResultFits bool
}

type kindDecl struct {
	stmt *syntax.ClassStmt
	info *KindInfo
}

type variable struct {
	t   Type
	pos syntax.Pos
}

type edge struct {
	to  string
	pos syntax.Pos
}

func (c *checker) word(id keywords.ID) string { return keywords.Word(c.lang, id) }

// errorf reports a type error at p.
func (c *checker) errorf(p syntax.Pos, format string, args ...any) {
	c.errs.Add(diag.TypeError, int(p.Line), int(p.Col), fmt.Sprintf(format, args...), "")
}

// fixf reports a type error at p with a fix.
func (c *checker) fixf(p syntax.Pos, fix, format string, args ...any) {
	c.errs.Add(diag.TypeError, int(p.Line), int(p.Col), fmt.Sprintf(format, args...), fix)
}

// refusef reports a structural refusal (class parse_error) at p.
func (c *checker) refusef(p syntax.Pos, format string, args ...any) {
	c.errs.Add(diag.ParseError, int(p.Line), int(p.Col), fmt.Sprintf(format, args...), "")
}

func (c *checker) run() {
	c.declare()
	for _, d := range c.defOrder {
		switch d.role {
		case ruleDef:
			c.checkRule(d)
		case constraintDef:
			c.checkConstraint(d)
		default:
			c.checkDef(d)
		}
	}
	c.checkModuleBody()
	c.finishGraph()
	c.stratify()
	c.fillInfo()
}

// checkModuleBody checks the module's (or program's) statements.
func (c *checker) checkModuleBody() {
	c.cur, c.node, c.scope, c.loops = nil, "", map[string]*variable{}, 0
	if c.mode == Run {
		n := 0
		for _, s := range c.body {
			if _, ok := s.(*syntax.BadStmt); !ok {
				n++
			}
		}
		if n == 0 && len(c.defOrder) == 0 && len(c.kindOrder) == 0 && !c.hasBadStmt() {
			c.refusef(syntax.Pos{Line: 1, Col: 1}, "nothing to run: the program has no statements (a program is statements that read, write and call compiled scripts)")
		}
	}
	c.stmts(c.body)
}

func (c *checker) hasBadStmt() bool {
	for _, s := range c.f.Stmts {
		if _, ok := s.(*syntax.BadStmt); ok {
			return true
		}
	}
	return false
}

// fillInfo completes the module summary.
func (c *checker) fillInfo() {
	for _, d := range c.defOrder {
		if d.script != nil {
			d.script.Calls = edgeTargets(c.edges[d.node])
			d.script.Writes = c.writes[d.node]
			c.info.Scripts = append(c.info.Scripts, *d.script)
		}
		if d.role == constraintDef {
			c.info.Constraints = append(c.info.Constraints, d.stmt.Name.Name)
		}
	}
	for _, k := range c.kindOrder {
		for i := range k.info.Attrs {
			a := &k.info.Attrs[i]
			if a.Computed {
				a.Calls = edgeTargets(c.edges[computedNode(k.info.Name, a.Name)])
			}
		}
		c.info.Kinds = append(c.info.Kinds, *k.info)
	}
}

func edgeTargets(es []edge) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range es {
		if !seen[e.to] {
			seen[e.to] = true
			out = append(out, e.to)
		}
	}
	return out
}

// scriptNode is the call-graph node of a script.
func scriptNode(module, name string) string { return module + "." + name }

// computedNode is the call-graph node of a computed field.
func computedNode(kind, attr string) string { return "@" + kind + "." + attr }
