// Progress on the terminal, as git draws it: one line on stderr per stage
// of a long command, redrawn in place (at most ten times a second) with a
// count and a rate when the work is counted, or the time spent when it is
// not, and ended with ", done." when the next stage begins or the work
// ends. Only a terminal gets it: piped or redirected, stderr hears nothing
// from here, so a log holds no carriage returns. A stage that ends within
// half a second of the command's start is never drawn, so quick commands
// stay quiet (DL-0470, DL-0471).
//
// The reports come from the use cases: author reports on the call's
// context (base/progress, the same reports the MCP adapter sends as
// notifications), and the network operations through their
// TransferProgress callbacks with lorestore's counts.

package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/base/progress"
	"golang.org/x/term"
)

const (
	// progressInterval is the least time between two draws of a line.
	progressInterval = 100 * time.Millisecond
	// progressDelay is how long a command runs before anything is drawn.
	progressDelay = 500 * time.Millisecond
)

// meter draws the progress of one command on a terminal. A nil *meter
// (stderr is not a terminal) draws nothing, and all its methods may be
// called on it.
type meter struct {
	w        io.Writer
	now      func() time.Time
	interval time.Duration
	delay    time.Duration
	cols     int // the terminal's width; 0 when unknown

	mu    sync.Mutex
	start time.Time // when the command began
	last  time.Time // when a line was last drawn
	width int       // the length of the line drawn last
	open  bool      // a line is drawn and not ended
	ended bool
	st    stage
	stop  chan struct{}
}

// stage is what is being done now: its name (the report's message), and
// its counts, counted from the stage's first report.
type stage struct {
	name              string
	base, done, total float64
	counted           bool // done moved within the stage: counts are shown
	since             time.Time
	moved             time.Time // when done last changed: the rate is to then
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// startProgress returns a meter drawing on w when w is a terminal (nil
// otherwise), which redraws its line on its own while a stage is silent,
// so the time spent keeps moving; end stops it.
func startProgress(w io.Writer) *meter {
	if !isTerminal(w) {
		return nil
	}
	m := newMeter(w, time.Now, progressInterval, progressDelayFrom(os.Getenv("DELOREIS_PROGRESS_DELAY")))
	m.cols, _, _ = term.GetSize(int(w.(*os.File).Fd()))
	m.stop = make(chan struct{})
	go func() {
		t := time.NewTicker(m.interval)
		defer t.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-t.C:
				m.tick()
			}
		}
	}()
	return m
}

// progressDelayFrom is the delay DELOREIS_PROGRESS_DELAY sets, in
// seconds ("0" draws at once; git's GIT_PROGRESS_DELAY is the same knob),
// else progressDelay.
func progressDelayFrom(env string) time.Duration {
	secs, err := strconv.ParseFloat(strings.TrimSpace(env), 64)
	if err != nil || secs < 0 || secs > 3600 {
		return progressDelay
	}
	return time.Duration(secs * float64(time.Second))
}

func newMeter(w io.Writer, now func() time.Time, interval, delay time.Duration) *meter {
	return &meter{w: w, now: now, interval: interval, delay: delay, start: now()}
}

// progressOn is the one line a command's hook needs: a context carrying
// a meter on w (when w is a terminal) for the use case to report on, and
// the function that ends the meter's line, called before the command
// prints its results.
func progressOn(ctx context.Context, w io.Writer) (context.Context, func()) {
	m := startProgress(w)
	return m.context(ctx), m.end
}

// progressFor is progressOn for the network commands, whose use cases
// take lorestore's counts through a TransferProgress (nil: no display).
func progressFor(w io.Writer) (author.TransferProgress, func()) {
	m := startProgress(w)
	if m == nil {
		return nil, func() {}
	}
	return m.transfer, m.end
}

// context returns ctx carrying m's report as the call's progress.Func.
func (m *meter) context(ctx context.Context) context.Context {
	if ctx == nil {
		ctx = context.Background()
	}
	if m == nil {
		return ctx
	}
	return progress.With(ctx, m.report)
}

// report takes a use case's report: a stage is named by its message, and
// its counts are shown from where the stage began (a use case counts one
// scale across its stages, as MCP progress must only grow).
func (m *meter) report(done, total float64, msg string) {
	m.update(msg, done, total, true)
}

// transfer takes lorestore's counts, each stage counted from zero.
func (m *meter) transfer(stageName string, done, total int) {
	m.update(stageName, float64(done), float64(total), false)
}

// update records a report and draws it when the interval allows; a new
// stage ends the line of the one before.
func (m *meter) update(name string, done, total float64, relative bool) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ended {
		return
	}
	now := m.now()
	if name != m.st.name {
		m.endLine()
		m.st = stage{name: name, done: done, total: total, since: now, moved: now}
		if relative {
			m.st.base = done
		}
		m.st.counted = !relative && (done > 0 || total > 0)
	} else {
		if done != m.st.done {
			m.st.counted, m.st.moved = true, now
		}
		m.st.done, m.st.total = done, total
	}
	if now.Sub(m.start) < m.delay || m.open && now.Sub(m.last) < m.interval {
		return
	}
	m.draw(now)
}

// tick redraws a stage that has not reported for an interval.
func (m *meter) tick() {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if m.ended || m.st.name == "" || now.Sub(m.start) < m.delay || now.Sub(m.last) < m.interval {
		return
	}
	m.draw(now)
}

// end ends the line drawn last with ", done." and stops the meter; it
// draws nothing when no line was drawn. It may be called more than once.
func (m *meter) end() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ended {
		return
	}
	m.ended = true
	if m.stop != nil {
		close(m.stop)
	}
	m.endLine()
}

// endLine redraws the open line in its last state and ends it. Called
// with m.mu held.
func (m *meter) endLine() {
	if !m.open {
		return
	}
	m.draw(m.now())
	io.WriteString(m.w, ", done.\n")
	m.open, m.width = false, 0
}

// draw writes the stage's line over the one drawn before. Called with
// m.mu held.
func (m *meter) draw(now time.Time) {
	line := m.st.line(now, m.cols)
	n := utf8.RuneCountInString(line)
	pad := max(0, m.width-n)
	fmt.Fprintf(m.w, "\r%s%s", line, strings.Repeat(" ", pad))
	if pad > 0 { // back over the blanks, so ", done." follows the text
		io.WriteString(m.w, strings.Repeat("\b", pad))
	}
	m.open, m.last, m.width = true, now, n
}

// line is a stage as drawn: "writing objects:  42% (420/1000), 1.2k/s",
// "receiving objects: 420, 1.2k/s", or "compiling the world: 3.4 s".
// A name too long for cols columns (0: unknown) is shortened, keeping the
// counts: a wrapped line cannot be drawn over.
func (s stage) line(now time.Time, cols int) string {
	took, busy := now.Sub(s.since), s.moved.Sub(s.since)
	done, total := s.done-s.base, s.total-s.base
	var counts string
	switch {
	case !s.counted:
		counts = fmt.Sprintf("%.1f s", took.Seconds())
	case total > 0:
		counts = fmt.Sprintf("%3.0f%% (%.0f/%.0f)%s", 100*min(done, total)/total, done, total, rate(done, busy))
	default:
		counts = fmt.Sprintf("%.0f%s", done, rate(done, busy))
	}
	name := []rune(s.name)
	if room := cols - len(", done.") - len(": ") - len(counts) - 1; cols > 0 && len(name) > room && room > 8 {
		name = append(name[:room-1], '…')
	}
	return string(name) + ": " + counts
}

// rate is ", N/s" for n things in d, with k and M for big rates; nothing
// before a tenth of a second has passed.
func rate(n float64, d time.Duration) string {
	if d < 100*time.Millisecond {
		return ""
	}
	r := n / d.Seconds()
	switch {
	case r >= 1e6:
		return fmt.Sprintf(", %.1fM/s", r/1e6)
	case r >= 1e3:
		return fmt.Sprintf(", %.1fk/s", r/1e3)
	default:
		return fmt.Sprintf(", %.0f/s", r)
	}
}
