// Import and check, as every surface asks for them: a parsed .dli
// document staged over its scope's head (or as a world of its own), its
// findings placed at line and column, its consequence diff, and, when
// asked and allowed, one commit. dli.import and dli.check (text in a
// request) and `deloreis import` and `check` (files) all come here; the
// streaming bulk import (BulkImport) commits objects checked alone.

package author

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/deloreis/deloreis/base/gcphase"
	"github.com/deloreis/deloreis/base/progress"
	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// SeverityError is the severity of a finding that blocks a commit.
const SeverityError = world.SeverityError

// ImportRequest is one import of a parsed document.
type ImportRequest struct {
	Doc *dli.Document // its Scope is the scope written to
	// Parsed is the text parsed for import (ParseImport), in place of
	// Doc: what a big file is imported from.
	Parsed *ImportDoc
	// Branch is the branch staged over and committed to; "" is the
	// serving branch.
	Branch      string
	Materialize bool
	// Source names where the text came from, for the commit message
	// ("import <Source> into <scope>: …"); "" for a request's text.
	Source string
	// Listed bounds the consequences the result lists (DL-0507): 0 lists
	// every one, in every list (the wire's form); n > 0 the first n of
	// each kind and a negative number every one of each kind, both
	// leaving GradeChanged empty. ImportResult.Counts counts them all.
	Listed int
}

// Import stages r.Doc over its scope's head, and with Materialize commits
// it — only when no finding is an error. The scope must be declared. A
// refused commit answers the result beside the error, its findings and
// diff filled in, and writes nothing.
func (s *Service) Import(ctx context.Context, r ImportRequest) (ImportResult, error) {
	doc := r.Parsed
	if doc == nil {
		doc = wholeDoc(r.Doc)
	}
	if err := s.mayImport(doc.Scope, r.Materialize); err != nil {
		return ImportResult{}, err
	}
	st, err := s.stagerOn(r.Branch)
	if err != nil {
		return ImportResult{}, err
	}
	ctx, cancel := s.budgeted(ctx)
	defer cancel()
	// A big file's worlds are a large build: collect at the default pace,
	// against a memory limit of the live heap plus a headroom (DL-0379),
	// not at twice the live heap (DL-0508), and a smaller headroom than a
	// world's compile: an import's peak is its own, not a server's steady
	// state (DL-0506).
	built := gcphase.BuildingWithin(importHeadroom)
	defer built()
	sg, err := st.stageDoc(ctx, doc)
	if err != nil {
		return ImportResult{}, budgetErr("import", s.cfg.Budget.Time, err)
	}
	// Steps, counted on from the compile's report (step 0): the
	// consequences (1), a step per object written.
	pr := &steps{ctx: ctx}
	pr.of(doc.Len() + 2)
	pr.to(1, "computing the consequences")
	fs := sg.After.Findings()
	res := ImportResult{Scope: doc.Scope, Base: hashOrEmpty(sg.Base), Declarations: doc.Len(), Findings: doc.placed(fs),
		Blocked: world.Blocking(fs)}
	if res.Consequences, res.Counts, err = sg.listConsequences(r.Listed); err != nil {
		return ImportResult{}, err
	}
	if !r.Materialize {
		return res, nil
	}
	if res.Blocked {
		return res, fault.Errorf(fault.Refused, CodeMaterializeBlocked,
			"The text cannot be committed to %s: error findings stand. Nothing was committed.", doc.Scope).With("findings", res.Findings)
	}
	sg.Release() // a big file's worlds need not sit beside the pack Materialize writes
	built()
	what := "import into " + doc.Scope
	if r.Source != "" {
		what = "import " + r.Source + " into " + doc.Scope
	}
	branch := s.branchOr(r.Branch)
	m := lorestore.NewMessage(what+": "+declarations(doc.Len()), "import", doc.Scope)
	big := doc.Len() > bigStage
	doc, r = nil, ImportRequest{} // the parse tree need not sit beside the pack either: the objects are sg's
	if big {
		// The worlds are gone: the write is paced from what it holds,
		// the objects, not from the last collection's heap, which held
		// the worlds too and would let it grow to twice that (DL-0506).
		runtime.GC()
	}
	cr, err := sg.materialize(m, pr)
	var stale *lorestore.StaleError
	switch {
	case errors.As(err, &stale):
		return res, fault.Errorf(fault.Refused, CodeBranchMoved,
			"Branch %s moved while the text was checked; check it again over the new head. Nothing was committed.", branch).
			With("root_hash", hashOrEmpty(stale.Actual))
	case errors.Is(err, ErrBlocked):
		return res, fault.Errorf(fault.Refused, CodeMaterializeBlocked, "%v", err).With("findings", res.Findings)
	case err != nil:
		return res, err
	}
	res.Committed, res.Commit = !cr.Empty, cr.Commit.String()
	return res, nil
}

// mayImport refuses an import into scope before anything is read: with
// no store, into a scope the project does not declare, or, committing, in
// a project pinned to a snapshot.
func (s *Service) mayImport(scope string, materialize bool) error {
	if _, err := s.needStore(); err != nil {
		return err
	}
	if err := s.checkDocument(scope); err != nil {
		return err
	}
	if materialize && s.cfg.Pin != "" {
		return fault.Errorf(fault.Refused, CodeProjectPinned,
			"This project is pinned to %s; an import cannot commit over a pinned snapshot. Nothing was committed.", s.cfg.Pin).With("pin", s.cfg.Pin)
	}
	return nil
}

// importHeadroom is the least an import's heap may grow past its live
// heap before a collection starts (gcphase.BuildingWithin, DL-0506).
const importHeadroom = 256 << 20

// branchOr is branch, or the serving branch for "".
func (s *Service) branchOr(branch string) string {
	if branch == "" {
		return s.cfg.Branch
	}
	return branch
}

// stagerOn is a stager over a branch's head: the kept one for the serving
// branch (stagerAt), a fresh one for another.
func (s *Service) stagerOn(branch string) (*Stager, error) {
	if branch == "" || branch == s.cfg.Branch {
		st, _, err := s.stagerAt()
		return st, err
	}
	if err := checkBranchName("branch", branch); err != nil {
		return nil, err
	}
	st, err := NewStager(s.store, branch)
	if err != nil {
		return nil, err
	}
	return st.WithDialects(s.dialects()), nil
}

// CheckRequest is one check of a parsed document.
type CheckRequest struct {
	Doc *dli.Document // what parsed; its Scope may be ""
	// ParseErrors are the document's parse errors, reported beside.
	ParseErrors []TextError
	// Standalone checks it as a world of its own, not over the store.
	Standalone bool
	// Branch is the branch checked over; "" is the serving branch.
	Branch string
}

// CheckDocument runs the check battery on a document: over its scope's
// head in the store, or as a world of its own (Standalone, no store, or a
// document of no scope). The scope, when the check is over the store,
// must be declared.
func (s *Service) CheckDocument(ctx context.Context, r CheckRequest) (TextCheckResult, error) {
	doc := r.Doc
	var st *Stager
	var err error
	if r.Standalone || s.store == nil || doc.Scope == "" {
		if st, err = NewStager(nil, ""); err == nil {
			st.WithDialects(s.dialects())
		}
	} else {
		if err := s.checkDocument(doc.Scope); err != nil {
			return TextCheckResult{}, err
		}
		st, err = s.stagerOn(r.Branch)
	}
	if err != nil {
		return TextCheckResult{}, err
	}
	ctx, cancel := s.budgeted(ctx)
	defer cancel()
	sg, err := st.StageContext(ctx, doc.Scope, docObjects(doc))
	if err != nil {
		return TextCheckResult{}, budgetErr("check", s.cfg.Budget.Time, err)
	}
	fs := sg.After.Findings()
	res := TextCheckResult{Scope: doc.Scope, Base: hashOrEmpty(sg.Base), ParseErrors: r.ParseErrors, Findings: placed(doc, fs)}
	if res.ParseErrors == nil {
		res.ParseErrors = []TextError{}
	}
	res.Clean = len(res.ParseErrors) == 0 && !world.Blocking(fs)
	return res, nil
}

// CheckStandalone is CheckDocument with no project: a world of its own.
func CheckStandalone(ctx context.Context, doc *dli.Document) (TextCheckResult, error) {
	s, err := New(Config{})
	if err != nil {
		return TextCheckResult{}, err
	}
	return s.CheckDocument(ctx, CheckRequest{Doc: doc, Standalone: true})
}

// DocumentOf is the document whose source is the file at abs, when the
// project declares one ("" when none): a file checked with no scope line
// is checked as that document.
func (s *Service) DocumentOf(abs string) (string, error) {
	p, err := s.Project()
	if err != nil {
		return "", err
	}
	for _, d := range p.Documents {
		if d.Source == abs {
			return d.Scope, nil
		}
	}
	return "", nil
}

// SourceOf is the source file (absolute) the project declares for scope,
// or "" when it declares none.
func (s *Service) SourceOf(scope string) (string, error) {
	p, err := s.Project()
	if err != nil {
		return "", err
	}
	if d, ok := p.Document(scope); ok {
		return d.Source, nil
	}
	return "", nil
}

// BulkRequest is one streamed import: declarations come from Next in
// file order until it reports no more.
type BulkRequest struct {
	Scope string
	// Next yields the next chunk of declarations; more false: the stream
	// has ended and decls is empty.
	Next func() (decls []dli.Decl, more bool, err error)
	// First is the stream's first chunk, read before the call to learn
	// the scope; More says it holds one (false: the stream was empty).
	First       []dli.Decl
	More        bool
	Branch      string // "" is the serving branch
	Materialize bool
	Source      string // for the commit message
	// Name names the stream in the errors of a declaration that does not
	// make a valid object.
	Name string
}

// BulkResult says what a bulk import did.
type BulkResult struct {
	Declarations int
	Committed    bool   // false on a dry run, or when nothing was new
	Empty        bool   // materialized, but every declaration was on the branch already
	Commit       string // the branch's head after the call
	Branch       string
}

// TrailerChecked marks a commit whose objects were checked as objects
// only, its world not compiled (a bulk import).
const TrailerChecked = "Lore-Checked"

// BulkImport streams declarations into one commit, each checked as an
// object (ids, fields, canonical encoding, scope) in memory that does not
// grow with the stream; the world is not compiled, so no finding is
// reported or blocks the commit. A declaration that is not a valid object
// commits nothing: its error is a dli.ErrorList placing it.
func (s *Service) BulkImport(ctx context.Context, r BulkRequest) (BulkResult, error) {
	st, err := s.needStore()
	if err != nil {
		return BulkResult{}, err
	}
	if err := s.checkDocument(r.Scope); err != nil {
		return BulkResult{}, err
	}
	branch := s.branchOr(r.Branch)
	if err := checkBranchName("branch", branch); err != nil {
		return BulkResult{}, err
	}
	res := BulkResult{Branch: branch}
	put := checkOnly()
	var bulk *lorestore.Bulk
	if r.Materialize {
		if s.cfg.Pin != "" {
			return BulkResult{}, fault.Errorf(fault.Refused, CodeProjectPinned, "This project is pinned to %s; an import cannot commit over it.", s.cfg.Pin)
		}
		if bulk, err = st.NewBulk(r.Scope); err != nil {
			return BulkResult{}, err
		}
		defer bulk.Close()
		put = func(obj objects.Object) error { _, err := bulk.Put(obj); return err }
	}
	// One count of declarations, then a step for the commit.
	reading := "checking declarations"
	if bulk != nil {
		reading = "writing declarations"
	}
	progress.Report(ctx, 0, 0, reading)
	// more says decls holds a chunk; the stream's end holds none.
	for decls, more := r.First, r.More; more; {
		if res.Declarations > 0 {
			progress.Report(ctx, float64(res.Declarations), 0, reading)
		}
		for _, d := range decls {
			if err := put(d.Object); err != nil {
				var list dli.ErrorList
				list.Add(r.Name, d.Pos, err.Error())
				return BulkResult{}, list
			}
			res.Declarations++
		}
		if decls, more, err = r.Next(); err != nil {
			return BulkResult{}, err
		}
	}
	if bulk == nil {
		return res, nil
	}
	progress.Report(ctx, float64(res.Declarations+1), 0, "committing")
	m := lorestore.NewMessage(fmt.Sprintf("bulk import %s into %s: %s", r.Source, r.Scope, declarations(res.Declarations)), "import", r.Scope)
	m.Trailers = append(m.Trailers, lorestore.Trailer{Key: TrailerChecked, Value: "objects"})
	cr, err := bulk.Commit(m, lorestore.CommitOptions{Branch: branch})
	if err != nil {
		return BulkResult{}, err
	}
	res.Committed, res.Empty, res.Commit = !cr.Empty, cr.Empty, cr.Commit.String()
	return res, nil
}

// checkOnly validates an object as a commit would (its canonical
// encoding) and keeps nothing: a dry run's put.
func checkOnly() func(objects.Object) error {
	var scratch []byte
	return func(obj objects.Object) error {
		var err error
		scratch, err = obj.AppendCanonical(scratch[:0])
		return err
	}
}

// declarations counts declarations for a commit's subject: "1
// declaration", "2 declarations".
func declarations(n int) string {
	if n == 1 {
		return "1 declaration"
	}
	return fmt.Sprintf("%d declarations", n)
}
