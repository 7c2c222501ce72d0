package crashtest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/lorestore"
)

// Stats say how much a Replay looked at.
type Stats struct {
	Ops    int // operations logged
	Points int // crash points (prefixes of the log, runs of writes to one file collapsed)
	Disks  int // distinct disks checked (crashes leaving the same disk, with the same commits acknowledged, are checked once)
}

func (s Stats) String() string {
	return fmt.Sprintf("%d operations, %d crash points, %d distinct disks checked", s.Ops, s.Points, s.Disks)
}

// maxFailures is how many broken disks a Replay reports before it stops.
const maxFailures = 5

// Replay checks every disk a crash at any point of the log so far may
// leave (see the package comment) and reports each broken one as an
// error of t.
func (r *Recorder) Replay(t testing.TB) Stats {
	t.Helper()
	r.mu.Lock()
	log := slices.Clone(r.log)
	r.mu.Unlock()
	m := newModel(r)
	for _, o := range log {
		if err := m.apply(o); err != nil {
			t.Fatalf("crashtest: %s: %v", o, err)
		}
	}
	if diffs := r.coverage(m); len(diffs) > 0 {
		t.Fatalf("crashtest: the store wrote past the Recorder:\n\t%s", r.short(strings.Join(diffs, "\n\t")))
	}
	m = newModel(r)
	base := t.TempDir()
	seen := map[string]bool{}
	st := Stats{Ops: len(log)}
	var acks []Ack
	failures := 0
	for i := 0; i <= len(log); i++ {
		if i > 0 {
			o := log[i-1]
			if err := m.apply(o); err != nil {
				t.Fatalf("crashtest: op %d (%s): %v", i-1, o, err)
			}
			if o.kind == opAck {
				acks = append(acks, o.ack)
			}
			// A crash inside a run of writes to one file leaves no disk the
			// end of the run does not: only the file's data differs, and it
			// is unflushed either way.
			if i < len(log) && o.kind == opWrite && log[i].kind == opWrite && log[i].ino == o.ino {
				continue
			}
		}
		st.Points++
		for _, c := range m.crashes() {
			d := m.leave(c)
			sum := d.sum()
			key := fmt.Sprintf("%x/%d", sum, len(acks))
			if seen[key] {
				continue
			}
			seen[key] = true
			st.Disks++
			dir := filepath.Join(base, strconv.Itoa(st.Disks))
			where := func(p string) string {
				for k, root := range r.roots {
					if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
						return filepath.Join(dir, strconv.Itoa(k), rel)
					}
				}
				panic("crashtest: path outside the roots: " + p)
			}
			if err := d.write(where); err != nil {
				t.Fatalf("crashtest: %v", err)
			}
			if problems := r.check(where, acks); len(problems) > 0 {
				at := "before the first operation"
				if i > 0 {
					at = fmt.Sprintf("after operation %d (%s)", i-1, log[i-1])
				}
				t.Errorf("%s", r.short(fmt.Sprintf("crash %s, %s:\n\t%s", at, c, strings.Join(problems, "\n\t"))))
				failures++
				if failures >= maxFailures {
					t.Errorf("crashtest: stopped after %d broken disks; the log:\n%s", failures, r.short(r.dump(log, i)))
					return st
				}
			}
			os.RemoveAll(dir)
		}
	}
	return st
}

// short is msg with the folders above the roots left out of its paths.
func (r *Recorder) short(msg string) string {
	for _, root := range r.roots {
		msg = strings.ReplaceAll(msg, filepath.Dir(root)+string(filepath.Separator), "")
	}
	return msg
}

// dump is the log up to op end, one operation a line.
func (r *Recorder) dump(log []op, end int) string {
	var b strings.Builder
	for i, o := range log[:min(end+1, len(log))] {
		fmt.Fprintf(&b, "\t%3d %s\n", i, o)
	}
	return b.String()
}

// check opens each recorded store as the crash left it and says what is
// wrong with it.
func (r *Recorder) check(where func(string) string, acks []Ack) []string {
	var problems []string
	for _, root := range r.roots {
		dir := where(root)
		say := func(format string, args ...any) {
			problems = append(problems, filepath.Base(root)+": "+fmt.Sprintf(format, args...))
		}
		s, err := lorestore.Open(dir, lorestore.Options{NoFsync: true})
		if err != nil {
			say("does not open: %v", err)
			continue
		}
		if ps, err := s.Fsck(); err != nil || len(ps) > 0 {
			say("fsck: %v %v", ps, err)
		}
		for _, a := range acks {
			if a.Store != root {
				continue
			}
			head, err := s.Resolve(a.Branch)
			if err != nil {
				say("%s acknowledged %s on %s, which does not resolve: %v", a.What, a.Commit[:12], a.Branch, err)
				continue
			}
			ok, err := s.IsAncestor(lorestore.NewHash(a.Commit), head)
			if err != nil || !ok {
				say("%s acknowledged %s on %s, which is at %s without it (%v)", a.What, a.Commit[:12], a.Branch, head.String()[:12], err)
			}
		}
		s.Close()
		if out, err := gitFsck(dir); err != nil {
			say("git fsck --strict: %v\n%s", err, out)
		}
	}
	return problems
}

// gitFsck runs `git fsck --strict` over the repository at dir.
func gitFsck(dir string) ([]byte, error) {
	cmd := exec.Command("git", "--git-dir", dir, "fsck", "--strict", "--no-dangling", "--no-progress")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+os.TempDir())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

// outsideSeam reports whether the file at rel (slash path inside a
// store) is written by something other than the store's seam, which the
// model does not follow: the world cache and the keyring under deloreis/
// (author, dke/keys), odb's record of verified indexes (a cache), and a
// writer's scaffolding.
func outsideSeam(rel string) bool {
	return strings.HasPrefix(rel, "deloreis/") || rel == "objects/deloreis-verified-idx" ||
		scaffolding(filepath.Base(rel))
}

// coverage says where the model of the log at its end differs from the
// disk: a file the store wrote other than through the Recorder would
// otherwise be missing from every replayed disk, unseen.
func (r *Recorder) coverage(m *model) []string {
	all := map[string]int{}
	for p, f := range m.folders {
		all[p] = len(f.pending)
	}
	modelled := m.leave(crash{happened: all, keepData: true}).files
	var diffs []string
	for _, root := range r.roots {
		onDisk := map[string]bool{}
		filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			if outsideSeam(filepath.ToSlash(rel)) {
				return nil
			}
			onDisk[path] = true
			data, err := os.ReadFile(path)
			switch want, ok := modelled[path]; {
			case err != nil:
			case !ok:
				diffs = append(diffs, path+" is on disk, not in the log")
			case !bytes.Equal(want, data):
				diffs = append(diffs, fmt.Sprintf("%s holds other bytes than the log says (%q, the log %q)", path, clip(data), clip(want)))
			}
			return nil
		})
		for path := range modelled {
			rel, err := filepath.Rel(root, path)
			if err != nil || strings.HasPrefix(rel, "..") || outsideSeam(filepath.ToSlash(rel)) {
				continue
			}
			if !onDisk[path] {
				diffs = append(diffs, path+" is in the log, not on disk")
			}
		}
	}
	slices.Sort(diffs)
	return diffs
}

// clip is the start of data, for a message.
func clip(data []byte) []byte { return data[:min(len(data), 48)] }
