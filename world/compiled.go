// Compiled worlds (DL-0384): a world's evaluated program written as a
// snapshot, and a Compile that takes it instead of lowering and
// evaluating when the input's lowering has its shape.

package world

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/deloreis/deloreis/base/phases"
	"github.com/deloreis/deloreis/datalog"
)

// errNotTaken says a compiled snapshot does not fit the world's lowering.
var errNotTaken = errors.New("world: the compiled snapshot does not fit")

// lowerAndEval lowers the world and evaluates it, or, given compiled,
// takes its program and model when the lowering has their shape (a
// lowering into a program that keeps no facts, the entries' part taken
// from the snapshot) and returns errNotTaken when it has not.
func (w *World) lowerAndEval(c *Compiled) error {
	w.arity = newArities()
	w.predIdentityRules = 0
	if c != nil {
		// The entries' part of the lowering comes with the snapshot.
		if c.waitHead() != nil {
			return errNotTaken
		}
		shape, err := w.lowerFrom(datalog.NewShapeProgram(), c.lowering)
		if err != nil {
			return err
		}
		if err := shape.Check(); err != nil {
			return err // unstratifiable: evaluate drops the cycle and comes back
		}
		if c.wait() == nil && shape.SameShape(c.prog) {
			w.prog, w.model, w.restored = c.prog, c.model, true
			return nil
		}
		return errNotTaken
	}
	endLower := phases.Start(PhaseLower)
	p, err := w.lower(datalog.NewProgram())
	endLower()
	if err != nil {
		return err
	}
	if w.rebase != nil {
		w.rebase()
		w.rebase = nil // a lowering again, after a cycle's rules are dropped, reads the new base
	}
	endEval := phases.Start(PhaseEvaluate)
	m, err := w.eval(p)
	endEval()
	if err != nil {
		return err
	}
	w.prog, w.model = p, m
	return nil
}

// Compiled is a world's evaluated program loaded from a snapshot
// (LoadCompiled), for Input.Compiled, with the findings of the checks of
// each entry on its own (citations and references), which depend on the
// entries alone.
type Compiled struct {
	head, done            chan struct{} // closed when the findings, then the rest, are set
	headErr, err          error
	prog                  *datalog.Program
	model                 *datalog.Model
	citations, references []Finding
	lowering              *entryLowering
}

// waitHead waits for the findings and the entries' lowering, which are
// read before the program.
func (c *Compiled) waitHead() error {
	<-c.head
	return c.headErr
}

// wait waits for the load and reports its error.
func (c *Compiled) wait() error {
	<-c.done
	return c.err
}

// Err waits for the load and reports its error: a snapshot that did not
// load is not used (Compile evaluates instead).
func (c *Compiled) Err() error { return c.wait() }

// compiledFindings is what a snapshot holds of the entry checks, and of
// the entries' lowering (entryLowering).
type compiledFindings struct {
	Citations   []Finding      `json:"citations"`
	References  []Finding      `json:"references"`
	Arity       map[string]int `json:"arity"`
	ArityClaims []Finding      `json:"arity_claims"`
}

// LoadCompiled loads a snapshot WriteCompiled wrote.
func LoadCompiled(snapshot []byte) (*Compiled, error) {
	c := StartLoadCompiled(snapshot)
	return c, c.wait()
}

// StartLoadCompiled loads a snapshot WriteCompiled wrote on a goroutine of
// its own: it works on the snapshot alone, so it runs beside the decoding
// of the input and the start of the Compile it is given to, which waits
// for it only where it needs it. The caller must keep snapshot's bytes
// unchanged until Err returns.
func StartLoadCompiled(snapshot []byte) *Compiled { return startLoadCompiled(snapshot, false, nil) }

// StartLoadCompiledAliased is StartLoadCompiled for bytes that outlive the
// compiled program and every world built from it (a read-only mapping of
// a file never written in place, kept mapped for the process's life):
// the snapshot's columns are used in place where they lie aligned
// (datalog.LoadSnapshotAliased) instead of copied. The caller must never
// change the bytes, nor unmap them once the load succeeded. release, when
// not nil, is handed the stretches of the snapshot the load is done with
// as it goes (datalog.LoadSnapshotAliased).
func StartLoadCompiledAliased(snapshot []byte, release func([]byte)) *Compiled {
	return startLoadCompiled(snapshot, true, release)
}

func startLoadCompiled(snapshot []byte, alias bool, release func([]byte)) *Compiled {
	c := &Compiled{head: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		at, err := c.loadHead(snapshot)
		c.headErr = err
		close(c.head)
		if err != nil {
			c.err = err
			return
		}
		if alias {
			c.prog, c.model, c.err = datalog.LoadSnapshotAliased(snapshot[at:], release)
		} else {
			c.prog, c.model, c.err = datalog.LoadSnapshot(snapshot[at:])
		}
	}()
	return c
}

// loadHead reads the findings and the entries' lowering, and returns the
// offset of the datalog snapshot, past the zero bytes that pad the head.
func (c *Compiled) loadHead(snapshot []byte) (int, error) {
	if len(snapshot) < 8 {
		return 0, errors.New("world: compiled snapshot cut short")
	}
	n := binary.LittleEndian.Uint64(snapshot)
	if n > uint64(len(snapshot)-8) {
		return 0, errors.New("world: compiled snapshot cut short")
	}
	at := 8 + int(n) + headPad(int(n))
	if at > len(snapshot) {
		return 0, errors.New("world: compiled snapshot cut short")
	}
	for _, b := range snapshot[8+n : at] {
		if b != 0 {
			return 0, errors.New("world: compiled snapshot: padding not zero")
		}
	}
	var fs compiledFindings
	if err := json.Unmarshal(snapshot[8:8+n], &fs); err != nil {
		return 0, fmt.Errorf("world: compiled findings: %w", err)
	}
	if fs.Arity == nil {
		return 0, errors.New("world: compiled snapshot without the entries' arities")
	}
	c.citations, c.references = fs.Citations, fs.References
	c.lowering = &entryLowering{arity: fs.Arity, claims: fs.ArityClaims}
	return at, nil
}

// headPad is the number of zero bytes after findings of n bytes (and
// their length, 8 bytes): the datalog snapshot then begins at a multiple
// of 8 from the start, so that where the whole lies aligned its columns
// do too (datalog.LoadSnapshotAliased).
func headPad(n int) int { return (8 - n%8) % 8 }

// WriteCompiled writes a snapshot of the world's evaluated program to out,
// for Input.Compiled of a later Compile of the same input. It refuses
// with datalog.ErrNoSnapshot, writing nothing, a state snapshots do not
// hold (truncated supports, say).
func (w *World) WriteCompiled(out io.Writer) error {
	if err := w.prog.Snapshotable(w.model); err != nil {
		return err
	}
	el, err := w.entryLoweringOf()
	if err != nil {
		return err
	}
	fs, err := json.Marshal(compiledFindings{Citations: w.groups[groupCitations], References: w.groups[groupReferences],
		Arity: el.arity, ArityClaims: el.claims})
	if err != nil {
		return err
	}
	head := binary.LittleEndian.AppendUint64(nil, uint64(len(fs)))
	head = append(append(head, fs...), make([]byte, headPad(len(fs)))...)
	if _, err := out.Write(head); err != nil {
		return err
	}
	return w.prog.Snapshot(out, w.model)
}

// Restored reports whether the world's program and model came from
// Input.Compiled rather than an evaluation.
func (w *World) Restored() bool { return w.restored }
