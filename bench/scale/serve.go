package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// serveResult is what one `deloreis serve` session measured.
type serveResult struct {
	openCold time.Duration // process start to the first author.open's answer
	openWarm time.Duration // a second author.open in the same process
	rssOpen  int64         // peak RSS once the first workspace is open
	// rssOpenNow is the RSS right after the open; touch the first page of
	// a query that reads a whole derived relation, and rssTouched the RSS
	// after it: a world read in place grows with what a session reads.
	rssOpenNow, rssTouched int64
	touch                  time.Duration
	adds                   []time.Duration
	gcShare                float64 // GC CPU over process CPU while the adds ran
	gcs                    int     // collections while the adds ran
	rssAdds                int64   // peak RSS after the adds
	// materialize commits 10 facts staged in a second workspace; openNew
	// is the author.open of the new head that follows.
	materialize, openNew time.Duration
	rssEnd               int64 // peak RSS at the end
	err                  string

	window [2]time.Duration // the adds, since the process began
	cpu    time.Duration    // the process's CPU over the window
}

// session is one `deloreis serve` process spoken to over stdio, one
// request line and one answer line at a time.
type session struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	start time.Time
	gc    *gcLog
	ids   int
	calls map[string]int // answered requests by op, for a killed session's report
}

// startServe starts `deloreis serve` on a project with the runtime's
// GC trace on its stderr.
func startServe(r *runner, bin, proj string) (*session, error) {
	cmd := exec.Command(bin, "serve", "--project", proj)
	cmd.Env = append(append([]string(nil), r.env...), "GODEBUG=gctrace=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errs, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	s := &session{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), gc: &gcLog{}, calls: map[string]int{}}
	s.start = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s.gc.wg.Add(1)
	go s.gc.read(errs)
	return s, nil
}

// call sends one request and returns its answer and round-trip time; an
// answer that is not ok is an error.
func (s *session) call(op string, params map[string]any) (map[string]any, time.Duration, error) {
	s.ids++
	line, err := json.Marshal(map[string]any{"dli": "2.0.0", "id": "b" + strconv.Itoa(s.ids), "op": op, "params": params})
	if err != nil {
		return nil, 0, err
	}
	t0 := time.Now()
	if _, err := s.in.Write(append(line, '\n')); err != nil {
		return nil, 0, err
	}
	resp, err := s.out.ReadBytes('\n')
	took := time.Since(t0)
	if err != nil {
		return nil, took, fmt.Errorf("%s: no answer (%v): %s", op, err, s.gc.last())
	}
	var m map[string]any
	if err := json.Unmarshal(resp, &m); err != nil {
		return nil, took, fmt.Errorf("%s: %v", op, err)
	}
	if m["ok"] != true {
		return m, took, fmt.Errorf("%s: %s", op, strings.TrimSpace(string(resp)))
	}
	s.calls[op]++
	return m, took, nil
}

// answered says which requests had been answered.
func (s *session) answered() string {
	if len(s.calls) == 0 {
		return "before any answer"
	}
	ops := make([]string, 0, len(s.calls))
	for op := range s.calls {
		ops = append(ops, op)
	}
	slices.Sort(ops)
	var parts []string
	for _, op := range ops {
		parts = append(parts, fmt.Sprintf("%d %s", s.calls[op], op))
	}
	return "with " + strings.Join(parts, ", ") + " answered,"
}

// close ends the session: stdin closed, the process waited for.
func (s *session) close() error {
	s.in.Close()
	err := s.cmd.Wait()
	s.gc.wg.Wait()
	return err
}

// serveBench opens a workspace on the scope and stages adds facts one
// request at a time, timing each round trip.
func serveBench(r *runner, bin, proj string, np, adds int) serveResult {
	s, err := startServe(r, bin, proj)
	if err != nil {
		return serveResult{err: err.Error()}
	}
	stop := r.watch(s.cmd.Process)
	res, err := s.drive(np, adds)
	if why := stop(); why != "" {
		err = fmt.Errorf("killed: %s %s after %s", why, s.answered(), dur(time.Since(s.start)))
	}
	if cerr := s.close(); err == nil && cerr != nil {
		err = fmt.Errorf("serve: %v: %s", cerr, s.gc.last())
	}
	if err != nil {
		res.err = err.Error()
		return res
	}
	// Read after close: every trace line the adds caused has arrived.
	gcCPU, n := s.gc.between(res.window[0], res.window[1])
	res.gcs = n
	res.gcShare = -1
	// /proc counts CPU in 10 ms ticks and a collection's CPU lands at
	// its start: below 20 ticks the ratio says nothing.
	if res.cpu >= minGCWindow {
		res.gcShare = min(float64(gcCPU)/float64(res.cpu), 1)
	}
	return res
}

// minGCWindow is the least process CPU over the adds for which the GC's
// share of it is reported.
const minGCWindow = 200 * time.Millisecond

// drive is the session's requests: two opens, the timed adds in the
// first workspace, then a 10-fact commit from the second and an open of
// the new head.
func (s *session) drive(np, adds int) (serveResult, error) {
	var res serveResult
	m, _, err := s.call("author.open", map[string]any{"scope": scopeName})
	if err != nil {
		return res, err
	}
	res.openCold = time.Since(s.start)
	ws, _ := m["workspace"].(string)
	pid := s.cmd.Process.Pid
	res.rssOpen = procStatus(pid, "VmHWM")
	res.rssOpenNow = procStatus(pid, "VmRSS")
	goal := map[string]any{"pred": "lineage", "args": []map[string]any{{"var": "X"}, {"var": "Y"}}}
	if _, res.touch, err = s.call("author.query", map[string]any{"workspace": ws, "goal": goal, "limit": 10}); err != nil {
		return res, err
	}
	res.rssTouched = procStatus(pid, "VmRSS")
	m, res.openWarm, err = s.call("author.open", map[string]any{"scope": scopeName})
	if err != nil {
		return res, err
	}
	ws2, _ := m["workspace"].(string)
	cpu0, t0 := procCPU(pid), time.Since(s.start)
	for i := 0; i < adds; i++ {
		_, took, err := s.call("author.add_fact", stagedFact(ws, i, np))
		if err != nil {
			return res, err
		}
		res.adds = append(res.adds, took)
	}
	res.window = [2]time.Duration{t0, time.Since(s.start)}
	res.cpu = procCPU(pid) - cpu0
	res.rssAdds = procStatus(pid, "VmHWM")
	if err := s.commitTail(ws2, np, &res); err != nil {
		return res, err
	}
	res.rssEnd = procStatus(pid, "VmHWM")
	return res, nil
}

// commitTail stages 10 facts in workspace ws, materializes them, and
// opens the scope again on the new head.
func (s *session) commitTail(ws string, np int, res *serveResult) error {
	for i := 0; i < 10; i++ {
		f := map[string]any{"workspace": ws, "entity": fmt.Sprintf("p-%d", (i*7919)%np), "key": "epithet",
			"value": fmt.Sprintf("e%d", i), "provenance": map[string]any{"kind": "proposed", "origin": origin}}
		if _, _, err := s.call("author.add_fact", f); err != nil {
			return err
		}
	}
	m, took, err := s.call("author.materialize", map[string]any{"workspace": ws})
	if err != nil {
		return err
	}
	if c, _ := m["committed"].([]any); len(c) != 10 {
		return fmt.Errorf("author.materialize committed %d declarations, want 10", len(c))
	}
	res.materialize = took
	_, res.openNew, err = s.call("author.open", map[string]any{"scope": scopeName})
	return err
}

// stagedFact is the i-th staged fact: in turn one that plain rules read,
// one that feeds the recursion and one under a negation.
func stagedFact(ws string, i, np int) map[string]any {
	p := (i * 7919) % np
	key, value := "title", fmt.Sprintf("staged-%d", i)
	switch i % 3 {
	case 1:
		key, value = "mentor", fmt.Sprintf("p-%d", (p+2)%np)
	case 2:
		key = "oath"
	}
	return map[string]any{"workspace": ws, "entity": fmt.Sprintf("p-%d", p), "key": key, "value": value,
		"provenance": map[string]any{"kind": "proposed", "origin": origin}}
}

// gcLog collects the collections GODEBUG=gctrace=1 reports on a
// process's stderr, and keeps its last other line for errors.
type gcLog struct {
	mu    sync.Mutex
	wg    sync.WaitGroup
	gcs   []gcEvent
	other string
}

// gcEvent is one collection: when it started (since the process began)
// and the CPU it took.
type gcEvent struct {
	at  time.Duration
	cpu time.Duration
}

func (g *gcLog) read(r io.Reader) {
	defer g.wg.Done()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		g.mu.Lock()
		if e, ok := parseGCLine(line); ok {
			g.gcs = append(g.gcs, e)
		} else if strings.TrimSpace(line) != "" {
			g.other = line
		}
		g.mu.Unlock()
	}
}

func (g *gcLog) last() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.other
}

// between sums the CPU of the collections that started in [from, to).
func (g *gcLog) between(from, to time.Duration) (time.Duration, int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var cpu time.Duration
	n := 0
	for _, e := range g.gcs {
		if e.at >= from && e.at < to {
			cpu += e.cpu
			n++
		}
	}
	return cpu, n
}

// parseGCLine reads one gctrace line:
//
//	gc 7 @1.234s 3%: 0.01+2.1+0.02 ms clock, 0.02+0.5/1.9/0.8+0.04 ms cpu, …
//
// Its CPU is the two stop-the-world phases plus assist and background
// marking; idle-time marking uses processors nothing else wanted, so it
// is left out.
func parseGCLine(line string) (gcEvent, bool) {
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "gc" || !strings.HasPrefix(f[2], "@") {
		return gcEvent{}, false
	}
	at, err := strconv.ParseFloat(strings.TrimSuffix(f[2][1:], "s"), 64)
	if err != nil {
		return gcEvent{}, false
	}
	i := slices.Index(f, "cpu,")
	if i < 2 || f[i-1] != "ms" {
		return gcEvent{}, false
	}
	phases := strings.Split(f[i-2], "+") // sweep-term, assist/background/idle, mark-term
	if len(phases) != 3 {
		return gcEvent{}, false
	}
	mark := strings.Split(phases[1], "/")
	if len(mark) != 3 {
		return gcEvent{}, false
	}
	var ms float64
	for _, s := range []string{phases[0], mark[0], mark[1], phases[2]} {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return gcEvent{}, false
		}
		ms += v
	}
	return gcEvent{at: time.Duration(at * float64(time.Second)), cpu: time.Duration(ms * float64(time.Millisecond))}, true
}
