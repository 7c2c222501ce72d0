// The result of a run: its entries in execution order, the terminal
// status, the transcript rendering and the machine-readable form.

package eval

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/keywords"
)

// EntryType says what a transcript entry records.
type EntryType string

// The entry types.
const (
	EntryPrint    EntryType = "print"
	EntryRemember EntryType = "remember"
	EntryUpdate   EntryType = "update"
	EntryForget   EntryType = "forget"
	// EntryBind is a value script's result bound to a name.
	EntryBind EntryType = "bind"
)

// Entry is one line of the transcript's body.
type Entry struct {
	Type EntryType `json:"type"`
	// Lang is the surface of the code that produced the entry: a called
	// module's effects render in the module's surface.
	Lang keywords.Lang `json:"-"`
	// Language is Lang's tag, for the machine-readable result.
	Language string `json:"language"`
	// Text is the printed line (print), the value's literal (remember,
	// update, bind).
	Text   string       `json:"text,omitempty"`
	Cell   claims.Cell  `json:"cell,omitzero"`
	Value  claims.Value `json:"value,omitzero"`
	Source string       `json:"source,omitempty"`
	// Before is a range forget's instant, when HasBefore.
	Before    int64 `json:"before,omitempty"`
	HasBefore bool  `json:"-"`
	// Count is the claims the write added or removed.
	Count int    `json:"count,omitempty"`
	Name  string `json:"name,omitempty"`
	VType string `json:"value_type,omitempty"`
}

// Status is a run's terminal status.
type Status string

// The statuses.
const (
	StatusOK    Status = "ok"
	StatusError Status = "error"
)

// Result is what a run did.
type Result struct {
	// Lang is the surface the source was compiled in: the header's.
	Lang    keywords.Lang
	Status  Status
	Entries []Entry
	// Err is the failure, for a run that failed.
	Err error
	// Steps is the budget the run used.
	Steps int

	rules *Rules // the run's rule model at its end (carry.go)
}

func (r *Result) add(e Entry) {
	e.Language = e.Lang.String()
	r.Entries = append(r.Entries, e)
}

// dropEffects removes the store effects recorded since mark: a rolled-back
// branch wrote nothing. Its prints happened and stay.
func (r *Result) dropEffects(mark int) {
	kept := r.Entries[:mark]
	for _, e := range r.Entries[mark:] {
		if e.Type == EntryPrint || e.Type == EntryBind {
			kept = append(kept, e)
		}
	}
	r.Entries = kept
}

func (r *Result) fail(err error) {
	r.Status, r.Err = StatusError, err
}

// Written is the number of claims the run wrote.
func (r *Result) Written() int { return r.tally(EntryRemember) + r.tally(EntryUpdate) }

// Removed is the number of claims the run removed.
func (r *Result) Removed() int { return r.tally(EntryForget) }

// Prints returns the print sequence: each printed line, in order.
func (r *Result) Prints() []string {
	var out []string
	for _, e := range r.Entries {
		if e.Type == EntryPrint {
			out = append(out, e.Text)
		}
	}
	return out
}

func (r *Result) tally(t EntryType) int {
	n := 0
	for _, e := range r.Entries {
		if e.Type == t {
			n += e.Count
		}
	}
	return n
}

// OK reports whether the run succeeded.
func (r *Result) OK() bool { return r.Status != StatusError }

// Verdict renders the tally: claims written, claims removed, print lines.
func (r *Result) Verdict() string {
	l := r.Lang
	return fmt.Sprintf("%s %s, %s %s, %s %s",
		count(l, r.Written(), wClaimOne, wClaimMany), word(l, wWritten),
		count(l, r.Removed(), wClaimOne, wClaimMany), word(l, wRemoved),
		count(l, len(r.Prints()), wLineOne, wLineMany), word(l, wPrinted))
}

// Reason renders a failed run's reason: where, the handler kind, what.
func (r *Result) Reason() string {
	var re *rtError
	if !errors.As(r.Err, &re) {
		return r.Err.Error()
	}
	line := map[keywords.Lang]string{keywords.Eng: "line", keywords.Nob: "linje"}[r.Lang]
	msg := message(r.Lang, re.msg, re.args)
	if re.kind != keywords.None {
		msg = keywords.Word(r.Lang, re.kind) + ": " + msg
	}
	if re.pos.Line > 0 && re.module != "" {
		return fmt.Sprintf("%s %s, %s %d: %s", map[keywords.Lang]string{keywords.Eng: "module", keywords.Nob: "modul"}[r.Lang], re.module, line, re.pos.Line, msg)
	}
	if re.pos.Line > 0 {
		return fmt.Sprintf("%s %d: %s", line, re.pos.Line, msg)
	}
	return msg
}

// Header is the transcript's first line.
func (r *Result) Header() string {
	if !r.OK() {
		return word(r.Lang, wFailed) + " — " + r.Reason()
	}
	return word(r.Lang, wOK) + ": " + r.Verdict()
}

// Transcript renders the header and the body, one entry a line, each in
// its own surface. The same source over the same store gives the same
// bytes.
func (r *Result) Transcript() string {
	return r.Header() + "\n" + r.Body()
}

// Body renders the entries alone, one a line: what a compile response
// reports of the module body after what the module installed.
func (r *Result) Body() string {
	var b strings.Builder
	for _, e := range r.Entries {
		b.WriteString(e.Line())
		b.WriteByte('\n')
	}
	return b.String()
}

// Line renders one entry.
func (e Entry) Line() string {
	l := e.Lang
	switch e.Type {
	case EntryPrint:
		// A printed text with line breaks keeps them, indented under its
		// verb so the body stays one entry per print.
		lines := strings.Split(e.Text, "\n")
		for i := 1; i < len(lines); i++ {
			if lines[i] != "" {
				lines[i] = "  " + lines[i]
			}
		}
		return keywords.Word(l, keywords.Print) + ": " + strings.Join(lines, "\n")
	case EntryRemember, EntryUpdate:
		id := keywords.Remember
		if e.Type == EntryUpdate {
			id = keywords.Update
		}
		return fmt.Sprintf("%s %s = %s %s %s", keywords.Word(l, id), e.Cell, e.Text, word(l, wFrom), strconv.Quote(e.Source))
	case EntryForget:
		head := keywords.Word(l, keywords.Forget) + " " + e.Cell.String()
		if e.HasBefore {
			head += " " + keywords.Word(l, keywords.Before) + "=" + strconv.FormatInt(e.Before, 10)
		}
		return head + ": " + count(l, e.Count, wClaimOne, wClaimMany) + " " + word(l, wRemoved)
	case EntryBind:
		return e.Name + ": " + e.VType + " = " + e.Text
	}
	return string(e.Type)
}

// Machine is the machine-readable result: terminal status, the print
// sequence, the tallies and the effects.
type Machine struct {
	Status  Status   `json:"status"`
	Reason  string   `json:"reason,omitempty"`
	Written int      `json:"claims_written"`
	Removed int      `json:"claims_removed"`
	Prints  []string `json:"prints"`
	Entries []Entry  `json:"entries"`
}

// Machine returns the machine-readable form.
func (r *Result) Machine() Machine {
	m := Machine{Status: StatusOK, Written: r.Written(), Removed: r.Removed(), Prints: r.Prints(), Entries: r.Entries}
	if !r.OK() {
		m.Status, m.Reason = StatusError, r.Reason()
	}
	if m.Prints == nil {
		m.Prints = []string{}
	}
	if m.Entries == nil {
		m.Entries = []Entry{}
	}
	return m
}
