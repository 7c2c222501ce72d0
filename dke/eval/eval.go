// The interpreter's entry point and state, and statements.

package eval

import (
	"context"
	"errors"
	"strconv"

	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
)

// DefaultBudget is the step budget of a run when Options.Budget is 0.
const DefaultBudget = 1_000_000

// Modules is what is compiled in the store, as evaluation needs it: the
// parsed module a call resolves to. The service hands over the versions a
// caller was compiled against (contract §9.4).
type Modules interface {
	// Module returns the parsed source of a stored module, as it is now.
	Module(name string) (*syntax.File, bool)
	// Import returns the version of module name that module caller was
	// compiled against; caller "" (a program, compiled now) gets the
	// current one.
	Import(caller, name string) (*syntax.File, bool)
	// ModuleNames returns the stored modules' names, sorted.
	ModuleNames() []string
	// ScriptNames returns the stored module.script names, in the stable
	// order list_scripts() gives them.
	ScriptNames() []string
	// KindModule returns the module whose class declares the kind.
	KindModule(kind string) (string, bool)
}

// Options configure a run.
type Options struct {
	Store claims.Store
	// Modules resolves imports and kinds; nil is a store with no modules.
	Modules Modules
	// Module is the name of the module whose body runs; "" for a program.
	Module string
	// Budget is the step budget; 0 means DefaultBudget.
	Budget int
	// Memory is the memory budget in bytes (budget.go); 0 means
	// DefaultMemory.
	Memory int64
	// Rules, when set, is the store's rule model at the snapshot Store
	// gives (an earlier run's Result.Rules, carry.go): a program's run
	// advances it instead of rebuilding it, and leaves it unchanged.
	Rules *Rules
}

// Run executes the statements of f — a checked program, or a module's
// body — and returns what it did. Declarations are not executed: they
// are the compiler's to store.
func Run(f *syntax.File, opts Options) *Result {
	return RunContext(context.Background(), f, opts)
}

// RunContext is Run under ctx: when ctx is done the run stops, failing
// with a *BudgetError, as it does past its memory budget.
func RunContext(ctx context.Context, f *syntax.File, opts Options) *Result {
	in := &interp{opts: opts, budget: opts.Budget, files: map[*syntax.File]*fileInfo{}, meter: newMeter(ctx, opts.Memory)}
	if in.budget <= 0 {
		in.budget = DefaultBudget
	}
	if in.opts.Modules == nil {
		in.opts.Modules = noModules{}
	}
	in.res = &Result{Lang: f.Lang, Status: StatusOK}
	in.root = f
	snap, err := opts.Store.Snapshot()
	if err != nil {
		in.res.fail(&rtError{kind: keywords.Error, msg: mStore, args: []string{err.Error()}})
		return in.res
	}
	in.tx = claims.NewTx(snap)
	in.carryIn()
	if err := in.meter.alive(); err != nil {
		in.res.fail(err)
		return in.res
	}
	fr := in.newFrame(f, opts.Module)
	fr.body = true
	if _, err := in.block(fr, f.Stmts); err != nil {
		in.res.fail(err)
	}
	in.res.Steps = in.steps
	in.res.rules = in.carryOut()
	return in.res
}

// interp is the state of one run.
type interp struct {
	opts     Options
	root     *syntax.File
	tx       *claims.Tx
	inBranch bool
	steps    int
	budget   int
	meter    *meter
	res      *Result
	files    map[*syntax.File]*fileInfo

	// The store's rules and constraints, lowered once, and their model
	// over the current view, behind by the cells written since (dirty).
	std   *standing
	rules *ruleModel
	dirty []claims.Cell
	// stdFiles are the modules the standing declarations come from.
	stdFiles map[string]*syntax.File
}

// fileInfo indexes a module's declarations.
type fileInfo struct {
	defs    map[string]*syntax.DefStmt
	classes map[string]*syntax.ClassStmt
	imports map[string]bool
}

// frame is a script's or a body's activation.
type frame struct {
	lang   keywords.Lang
	file   *syntax.File
	info   *fileInfo
	module string
	vars   map[string]value
	ret    value
	// body is set for the source's own statements, not a script's.
	body bool
}

func (in *interp) index(f *syntax.File) *fileInfo {
	if fi, ok := in.files[f]; ok {
		return fi
	}
	fi := &fileInfo{defs: map[string]*syntax.DefStmt{}, classes: map[string]*syntax.ClassStmt{}, imports: map[string]bool{}}
	for _, s := range f.Stmts {
		switch s := s.(type) {
		case *syntax.DefStmt:
			fi.defs[s.Name.Name] = s
		case *syntax.ClassStmt:
			fi.classes[s.Name.Name] = s
		case *syntax.ImportStmt:
			fi.imports[s.Name.Name] = true
		}
	}
	in.files[f] = fi
	return fi
}

func (in *interp) newFrame(f *syntax.File, module string) *frame {
	return &frame{lang: f.Lang, file: f, info: in.index(f), module: module, vars: map[string]value{}}
}

// ctl is how a statement ends.
type ctl uint8

const (
	ctlNext ctl = iota
	ctlBreak
	ctlContinue
	ctlReturn
	ctlCommit
	ctlRollback
)

// rtError is a runtime error. kind is its handler kind; None marks the
// budget, which no handler catches.
type rtError struct {
	kind keywords.ID
	pos  syntax.Pos
	// module is the module whose source pos is in, when it is not the
	// source that was run.
	module string
	msg    msgID
	args   []string
}

func (e *rtError) Error() string { return message(keywords.Eng, e.msg, e.args) }

func fail(kind keywords.ID, p syntax.Pos, m msgID, args ...string) error {
	return &rtError{kind: kind, pos: p, msg: m, args: args}
}

// step charges n steps to the budget.
func (in *interp) step(p syntax.Pos, n int) error {
	in.steps += n
	if in.steps > in.budget {
		return &rtError{kind: keywords.None, pos: p, msg: mBudget, args: []string{strconv.Itoa(in.budget)}}
	}
	return in.meter.tick(n)
}

// charge counts n bytes the run builds against its memory budget.
func (in *interp) charge(n int) error {
	return in.meter.charge(int64(n))
}

func (in *interp) block(fr *frame, stmts []syntax.Stmt) (ctl, error) {
	for _, s := range stmts {
		c, err := in.stmt(fr, s)
		if err != nil || c != ctlNext {
			return c, err
		}
	}
	return ctlNext, nil
}

func (in *interp) stmt(fr *frame, s syntax.Stmt) (ctl, error) {
	p, _ := s.Span()
	if err := in.step(p, 1); err != nil {
		return ctlNext, err
	}
	switch s := s.(type) {
	case *syntax.ImportStmt, *syntax.DefStmt, *syntax.ClassStmt:
		return ctlNext, nil // declarations: stored by compile, not run
	case *syntax.AssignStmt:
		return ctlNext, in.assign(fr, s)
	case *syntax.ExprStmt:
		if _, ok := s.X.(*syntax.Literal); ok {
			return ctlNext, nil // a docstring
		}
		_, err := in.expr(fr, s.X)
		return ctlNext, err
	case *syntax.IfStmt:
		b, err := in.cond(fr, s.Cond)
		if err != nil {
			return ctlNext, err
		}
		if b {
			return in.block(fr, s.Then)
		}
		return in.block(fr, s.Else)
	case *syntax.MatchStmt:
		return in.match(fr, s)
	case *syntax.ForStmt:
		return in.forStmt(fr, s)
	case *syntax.BranchStmt:
		return in.branch(fr, s)
	case *syntax.TryStmt:
		return in.try(fr, s)
	case *syntax.ReturnStmt:
		if s.Result != nil {
			v, err := in.expr(fr, s.Result)
			if err != nil {
				return ctlNext, err
			}
			fr.ret = v
		}
		return ctlReturn, nil
	case *syntax.SimpleStmt:
		switch s.ID {
		case keywords.Break:
			return ctlBreak, nil
		case keywords.Continue:
			return ctlContinue, nil
		case keywords.Commit:
			return ctlCommit, nil
		case keywords.Rollback:
			return ctlRollback, nil
		}
		return ctlNext, nil
	}
	return ctlNext, fail(keywords.Error, p, mNotData, "statement")
}

func (in *interp) assign(fr *frame, s *syntax.AssignStmt) error {
	id, ok := s.LHS.(*syntax.Ident)
	if !ok {
		p, _ := s.LHS.Span()
		return fail(keywords.Error, p, mNotData, "target")
	}
	v, err := in.expr(fr, s.RHS)
	if err != nil {
		return err
	}
	switch s.Op {
	case syntax.PLUSEQ:
		v, err = in.arith(syntax.Add, s.OpPos, fr.vars[id.Name], v)
	case syntax.MINUSEQ:
		v, err = in.arith(syntax.Sub, s.OpPos, fr.vars[id.Name], v)
	case syntax.STAREQ:
		v, err = in.arith(syntax.Mul, s.OpPos, fr.vars[id.Name], v)
	}
	if err != nil {
		return err
	}
	fr.vars[id.Name] = v
	if call, ok := s.RHS.(*syntax.CallExpr); ok && fr.body && s.Op != syntax.PLUSEQ && s.Op != syntax.MINUSEQ && s.Op != syntax.STAREQ {
		if _, isVerb := call.Fn.(*syntax.KeywordExpr); !isVerb {
			// A value script's result is a typed entry (contract §4.2).
			e := Entry{Type: EntryBind, Lang: fr.lang, Name: id.Name, VType: typeName(fr.lang, v), Text: literal(fr.lang, v)}
			if err := in.charge(len(e.Text)); err != nil {
				return err
			}
			in.res.add(e)
		}
	}
	return nil
}

func (in *interp) cond(fr *frame, e syntax.Expr) (bool, error) {
	v, err := in.expr(fr, e)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		p, _ := e.Span()
		return false, fail(keywords.Conversion, p, mConversion, show(fr.lang, v), keywords.Word(fr.lang, keywords.Bool))
	}
	return b, nil
}

func (in *interp) match(fr *frame, s *syntax.MatchStmt) (ctl, error) {
	x, err := in.expr(fr, s.X)
	if err != nil {
		return ctlNext, err
	}
	for _, c := range s.Cases {
		for _, pat := range c.Patterns {
			if pat == nil {
				return in.block(fr, c.Body)
			}
			if id, ok := pat.(*syntax.Ident); ok && id.Name == "_" {
				return in.block(fr, c.Body)
			}
			v, err := in.expr(fr, pat)
			if err != nil {
				return ctlNext, err
			}
			if equal(x, v) {
				return in.block(fr, c.Body)
			}
		}
	}
	return ctlNext, nil
}

func (in *interp) forStmt(fr *frame, s *syntax.ForStmt) (ctl, error) {
	// The collection is read once: the loop walks that snapshot, whatever
	// its body writes.
	coll, err := in.expr(fr, s.X)
	if err != nil {
		return ctlNext, err
	}
	var items []value
	switch xs := coll.(type) {
	case []string:
		for _, x := range xs {
			items = append(items, x)
		}
	case []value:
		items = xs
	default:
		p, _ := s.X.Span()
		return ctlNext, fail(keywords.Conversion, p, mConversion, show(fr.lang, coll), keywords.Word(fr.lang, keywords.StringList))
	}
	for _, it := range items {
		if err := in.step(s.For, 1); err != nil {
			return ctlNext, err
		}
		fr.vars[s.Var.Name] = it
		c, err := in.block(fr, s.Body)
		if err != nil {
			return ctlNext, err
		}
		switch c {
		case ctlBreak:
			return ctlNext, nil
		case ctlContinue, ctlNext:
			continue
		default:
			return c, nil
		}
	}
	return ctlNext, nil
}

func (in *interp) branch(fr *frame, s *syntax.BranchStmt) (ctl, error) {
	mark := len(in.res.Entries)
	if in.inBranch {
		return in.innerBranch(fr, s, mark)
	}
	in.inBranch = true
	c, err := in.block(fr, s.Body)
	in.inBranch = false
	if err == nil && c != ctlRollback {
		if err = in.flush(s.Branch); err == nil {
			if c == ctlCommit {
				c = ctlNext
			}
			return c, nil
		}
		// A branch that cannot commit rolls back, and says so as conflict.
	}
	if rerr := in.refresh(s.Branch); rerr != nil {
		return ctlNext, rerr
	}
	in.res.dropEffects(mark)
	if c == ctlRollback {
		c = ctlNext
	}
	return c, err
}

// innerBranch runs a branch reached through a call from inside another:
// a savepoint of the outer transaction, which alone commits to the store.
func (in *interp) innerBranch(fr *frame, s *syntax.BranchStmt, mark int) (ctl, error) {
	saved := in.tx.Clone()
	c, err := in.block(fr, s.Body)
	if err == nil && c != ctlRollback {
		if c == ctlCommit {
			c = ctlNext
		}
		return c, nil
	}
	in.tx, in.rules, in.dirty = saved, nil, nil
	in.res.dropEffects(mark)
	if c == ctlRollback {
		c = ctlNext
	}
	return c, err
}

func (in *interp) try(fr *frame, s *syntax.TryStmt) (ctl, error) {
	c, err := in.block(fr, s.Body)
	var re *rtError
	if err == nil || !errors.As(err, &re) || re.kind == keywords.None {
		return c, err
	}
	for _, h := range s.Handlers {
		if h.Kind != keywords.Error && h.Kind != re.kind {
			continue
		}
		if h.As != nil {
			fr.vars[h.As.Name] = &errVal{kind: re.kind, msg: message(fr.lang, re.msg, re.args)}
		}
		return in.block(fr, h.Body)
	}
	return c, err
}

// flush commits what the Tx holds; outside a branch every write is
// flushed at once, so a later failure cannot take it back.
func (in *interp) flush(p syntax.Pos) error {
	cs := in.tx.Changes()
	if cs.Empty() {
		return nil
	}
	made, err := in.opts.Store.Commit(cs)
	if err != nil {
		if errors.Is(err, claims.ErrConflict) {
			return fail(keywords.Conflict, p, mConflict, err.Error())
		}
		return fail(keywords.Error, p, mStore, err.Error())
	}
	snap, err := in.opts.Store.Snapshot()
	if err != nil {
		return fail(keywords.Error, p, mStore, err.Error())
	}
	in.tx = claims.NewTx(snap)
	if snap.Version() != made {
		// Another writer came in after this commit: the rule model no
		// longer describes the store.
		in.rules, in.dirty = nil, nil
	}
	return nil
}

// refresh drops what the Tx holds, and the rule model with it, and reads
// the store afresh.
func (in *interp) refresh(p syntax.Pos) error {
	snap, err := in.opts.Store.Snapshot()
	if err != nil {
		return fail(keywords.Error, p, mStore, err.Error())
	}
	in.tx, in.rules, in.dirty = claims.NewTx(snap), nil, nil
	return nil
}

type noModules struct{}

func (noModules) Module(string) (*syntax.File, bool) { return nil, false }
func (noModules) Import(string, string) (*syntax.File, bool) {
	return nil, false
}
func (noModules) ScriptNames() []string            { return nil }
func (noModules) ModuleNames() []string            { return nil }
func (noModules) KindModule(string) (string, bool) { return "", false }
