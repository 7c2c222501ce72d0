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

	"github.com/deloreis/deloreis/datalog"
)

// lowerAndEval lowers the world and evaluates it, or takes the program and
// model of *compiled when the lowering has its shape (a lowering into a
// program that keeps no facts); a snapshot that does not fit is dropped
// and the world lowered again for real.
func (w *World) lowerAndEval(compiled **Compiled) error {
	w.arity = arities{}
	w.predIdentityRules = 0
	if c := *compiled; c != nil {
		shape, err := w.lower(datalog.NewShapeProgram())
		if err != nil {
			return err
		}
		if err := shape.Check(); err != nil {
			return err // unstratifiable: evaluate drops the cycle and comes back
		}
		if c.wait() == nil && shape.SameShape(c.prog) {
			w.prog, w.model, w.restored = c.prog, c.model, true
			*compiled = nil
			return nil
		}
		*compiled = nil
		w.arity = arities{}
		w.predIdentityRules = 0
	}
	p, err := w.lower(datalog.NewProgram())
	if err != nil {
		return err
	}
	m, err := p.Eval()
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
	done                  chan struct{} // closed when the rest is set
	err                   error
	prog                  *datalog.Program
	model                 *datalog.Model
	citations, references []Finding
}

// wait waits for the load and reports its error.
func (c *Compiled) wait() error {
	<-c.done
	return c.err
}

// Err waits for the load and reports its error: a snapshot that did not
// load is not used (Compile evaluates instead).
func (c *Compiled) Err() error { return c.wait() }

// compiledFindings is what a snapshot holds of the entry checks.
type compiledFindings struct {
	Citations  []Finding `json:"citations"`
	References []Finding `json:"references"`
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
func StartLoadCompiled(snapshot []byte) *Compiled {
	c := &Compiled{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		c.err = c.load(snapshot)
	}()
	return c
}

func (c *Compiled) load(snapshot []byte) error {
	if len(snapshot) < 8 {
		return errors.New("world: compiled snapshot cut short")
	}
	n := binary.LittleEndian.Uint64(snapshot)
	if n > uint64(len(snapshot)-8) {
		return errors.New("world: compiled snapshot cut short")
	}
	var fs compiledFindings
	if err := json.Unmarshal(snapshot[8:8+n], &fs); err != nil {
		return fmt.Errorf("world: compiled findings: %w", err)
	}
	p, m, err := datalog.LoadSnapshot(snapshot[8+n:])
	if err != nil {
		return err
	}
	c.prog, c.model, c.citations, c.references = p, m, fs.Citations, fs.References
	return nil
}

// WriteCompiled writes a snapshot of the world's evaluated program to out,
// for Input.Compiled of a later Compile of the same input. It refuses
// with datalog.ErrNoSnapshot, writing nothing, a state snapshots do not
// hold (truncated supports, say).
func (w *World) WriteCompiled(out io.Writer) error {
	if err := w.prog.Snapshotable(w.model); err != nil {
		return err
	}
	fs, err := json.Marshal(compiledFindings{Citations: w.groups[groupCitations], References: w.groups[groupReferences]})
	if err != nil {
		return err
	}
	head := binary.LittleEndian.AppendUint64(nil, uint64(len(fs)))
	if _, err := out.Write(append(head, fs...)); err != nil {
		return err
	}
	return w.prog.Snapshot(out, w.model)
}

// Restored reports whether the world's program and model came from
// Input.Compiled rather than an evaluation.
func (w *World) Restored() bool { return w.restored }
