// The acceptance of deloreis sync (issue 13): three `deloreis serve --sync`
// processes on three clones of one bare remote, each materializing 100
// commits while syncing in the background, once with the remote served by
// git-http-backend and once by git daemon. Afterwards every replica's main
// holds all 300 commits and their objects (asked of real git), git fsck
// --strict is clean everywhere, and a functional-dependency conflict
// seeded on two replicas is reported by both.

package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deloreis/deloreis/internal/testenv"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/lorestore/wire"
	"github.com/deloreis/deloreis/objects"
)

const (
	syncReplicas = 3
	syncCommits  = 100
)

func TestSyncThreeServers(t *testing.T) {
	t.Setenv("DELOREIS_AUTHOR", "Sync Keeper <sync@deloreis.invalid>")
	for _, via := range []string{"http-backend", "daemon"} {
		t.Run(via, func(t *testing.T) { syncScenario(t, via) })
	}
}

func syncScenario(t *testing.T, via string) {
	base := t.TempDir()
	remote := filepath.Join(base, "lore.git")
	gitIn(t, base, "init", "-q", "--bare", "-b", "main", remote)
	gitIn(t, remote, "config", "http.receivepack", "true")
	url := serveHTTPBackend(t, base) + "lore.git"
	if via == "daemon" {
		url = testenv.GitDaemon(t, base) + "lore.git"
	}
	seedDir := syncSeed(t, "file://"+remote)
	replicas := make([]string, syncReplicas)
	for i := range replicas {
		replicas[i] = cloneReplica(t, seedDir, url, i)
	}
	results := materializeWhileSyncing(t, replicas)
	finalSyncs(t, remote, replicas, results)
	seededConflict(t, remote, replicas)
}

// materializeWhileSyncing is phase 1: each server materializes its
// commits while syncing in the background.
func materializeWhileSyncing(t *testing.T, replicas []string) []replicaWork {
	servers := make([]*syncServer, len(replicas))
	for i, dir := range replicas {
		servers[i] = startSyncServer(t, dir)
	}
	results := make([]replicaWork, len(replicas))
	var wg sync.WaitGroup
	for i, sv := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = sv.materializeMany(i, syncCommits)
		}()
	}
	wg.Wait()
	// The background sync ran and pushed on every server: a no-op loop
	// would leave the final syncs all the work. While three servers push
	// as fast as they commit, a slow one may lose every race (each push
	// takes the remote 0.1-0.6 s on this box); once the writing stops it
	// must get through.
	deadline := time.Now().Add(30 * time.Second)
	for i, sv := range servers {
		for !strings.Contains(sv.stderr.String(), `"pushed":true`) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if results[i].err != nil {
			t.Fatalf("replica %d: %v\nserve stderr:\n%s", i, results[i].err, sv.stop(t))
		}
	}
	for i, sv := range servers {
		if stderr := sv.stop(t); !strings.Contains(stderr, `"pushed":true`) {
			t.Errorf("replica %d: serve --sync never pushed; its stderr:\n%s", i, stderr)
		}
	}
	return results
}

// finalSyncs is phase 2: a final sync on each replica, around twice,
// brings all to one head, which holds every commit and object.
func finalSyncs(t *testing.T, remote string, replicas []string, results []replicaWork) {
	for _, i := range []int{0, 1, 2, 0, 1} {
		if rep, code := syncCLI(t, replicas[i]); code != 0 || len(rep.Conflicts) != 0 {
			t.Fatalf("final sync of replica %d: exit %d, %+v", i, code, rep)
		}
	}
	head := strings.TrimSpace(gitIn(t, remote, "rev-parse", "main"))
	var commits, ids []string
	for _, r := range results {
		commits, ids = append(commits, r.commits...), append(ids, r.ids...)
	}
	if len(commits) != syncReplicas*syncCommits || len(ids) != syncReplicas*syncCommits {
		t.Fatalf("%d commits, %d objects materialized", len(commits), len(ids))
	}
	for i, dir := range replicas {
		gitDir := filepath.Join(dir, lorestore.DefaultDir)
		if got := strings.TrimSpace(gitIn(t, gitDir, "rev-parse", "main")); got != head {
			t.Fatalf("replica %d: main at %s, the remote at %s", i, got, head)
		}
		holdsAll(t, gitDir, commits, ids)
		fsckStrict(t, gitDir)
	}
	holdsAll(t, remote, commits, ids)
	fsckStrict(t, remote)
}

// seededConflict is phase 3: replicas 0 and 1 give galahad two fathers,
// each ratified under the same decision; father is functional. Both
// replicas report the conflict, and the merged world shows it.
func seededConflict(t *testing.T, remote string, replicas []string) {
	for i, father := range []string{"lancelot", "pellinore"} {
		sv := startSyncServer(t, replicas[i], "--sync=")
		if err := sv.materializeFact("galahad", "father", father, cited("canon-1")); err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
		sv.stop(t)
	}
	if rep, code := syncCLI(t, replicas[0]); code != 0 || !rep.Pushed {
		t.Fatalf("replica 0 pushes its father: exit %d, %+v", code, rep)
	}
	for _, step := range []struct {
		replica int
		origin  string
	}{{1, "merged"}, {0, "fetched"}} {
		rep, code := syncCLI(t, replicas[step.replica])
		if code != exitConflicts || len(rep.Conflicts) != 1 {
			t.Fatalf("replica %d: exit %d, want %d with one conflict: %+v", step.replica, code, exitConflicts, rep)
		}
		c := rep.Conflicts[0]
		if c.Kind != "functional" || c.Scope != "camelot" || c.Origin != step.origin || len(c.Claims) != 2 ||
			!strings.Contains(c.Message, "lancelot, pellinore") {
			t.Fatalf("replica %d reports %+v", step.replica, c)
		}
	}
	// The conflict stands in the merged world: a workspace opened on the
	// synced head finds it and may not materialize until it is ruled on.
	sv := startSyncServer(t, replicas[1], "--sync=")
	open, err := sv.call("author.open", map[string]any{"scope": "camelot"})
	if err != nil {
		t.Fatal(err)
	}
	check, err := sv.call("author.check", map[string]any{"workspace": open["workspace"]})
	if err != nil {
		t.Fatal(err)
	}
	if check["blocked"] != true || !strings.Contains(fmt.Sprint(check["findings"]), "continuity.fd-violation") {
		t.Fatalf("the merged world does not show the conflict: %v", check)
	}
	sv.stop(t)
	// Both accounts are kept, in one history, on both replicas and the remote.
	head := strings.TrimSpace(gitIn(t, remote, "rev-parse", "main"))
	for _, dir := range []string{filepath.Join(replicas[0], lorestore.DefaultDir), filepath.Join(replicas[1], lorestore.DefaultDir), remote} {
		if got := strings.TrimSpace(gitIn(t, dir, "rev-parse", "main")); got != head {
			t.Fatalf("%s is not at the remote's head", dir)
		}
		fsckStrict(t, dir)
	}
}

// syncSeed makes the project every replica starts from and pushes it to
// the bare remote: galahad and two candidate fathers, father functional,
// and the decision the conflicting facts cite.
func syncSeed(t *testing.T, remote string) string {
	t.Helper()
	p := objects.Proposed("sync-seed")
	dir := seedProject(t, seed{scopes: []string{"camelot"}, scope: "camelot", summary: "materialize camelot: the seed", objects: []objects.Object{
		&objects.Decision{Ident: "canon-1"},
		&objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: p},
		&objects.Entity{Kind: objects.KindPerson, Ident: "lancelot", Name: "Lancelot", Provenance: p},
		&objects.Entity{Kind: objects.KindPerson, Ident: "pellinore", Name: "Pellinore", Provenance: p},
		&objects.Functional{Pred: "father", Provenance: p},
	}})
	// The push below is the store's own; the program gives its transports
	// on the first remote use of author, which a test run alone has not
	// made yet.
	lorestore.UseTransports(wire.Dial)
	s, err := lorestore.Open(filepath.Join(dir, lorestore.DefaultDir), lorestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Push(context.Background(), remote, lorestore.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// cloneReplica makes replica i: the seed's deloreis.toml, and its store
// cloned from url (so origin is the served remote).
func cloneReplica(t *testing.T, seedDir, url string, i int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), fmt.Sprintf("replica-%d", i))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	toml, err := os.ReadFile(filepath.Join(seedDir, "deloreis.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "deloreis.toml"), toml, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := lorestore.Clone(context.Background(), url, filepath.Join(dir, lorestore.DefaultDir), lorestore.CloneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	return dir
}

// syncServer is a `deloreis serve --sync origin` process whose standard
// error is kept for the test to read.
type syncServer struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *testenv.LockedBuffer
	n      int
}

// startSyncServer serves dir, syncing with origin every 200ms unless
// extra says otherwise ("--sync=" turns it off).
func startSyncServer(t *testing.T, dir string, extra ...string) *syncServer {
	t.Helper()
	args := append([]string{"serve", "--project", dir, "--sync", "origin", "--every", "200ms"}, extra...)
	cmd := exec.Command(binary(t), args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	sv := &syncServer{cmd: cmd, in: in, out: bufio.NewReader(out), stderr: &testenv.LockedBuffer{}}
	cmd.Stderr = sv.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return sv
}

// stop ends the server (its input closes) and returns its standard error;
// it must exit 0 within 20 s.
func (sv *syncServer) stop(t *testing.T) string {
	t.Helper()
	sv.in.Close()
	done := make(chan error, 1)
	go func() { done <- sv.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve exited: %v\n%s", err, sv.stderr.String())
		}
	case <-time.After(20 * time.Second):
		sv.cmd.Process.Kill()
		t.Fatalf("serve did not exit when its input ended\n%s", sv.stderr.String())
	}
	return sv.stderr.String()
}

// call sends one request and decodes its response; a refusal is an error.
func (sv *syncServer) call(op string, params map[string]any) (map[string]any, error) {
	sv.n++
	line, _ := json.Marshal(map[string]any{"dli": "2.0.0", "id": fmt.Sprintf("rq-%d", sv.n), "op": op, "params": params})
	if _, err := sv.in.Write(append(line, '\n')); err != nil {
		return nil, err
	}
	resp, err := sv.out.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("%s: no response: %w", op, err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(resp), &m); err != nil {
		return nil, err
	}
	if m["ok"] != true {
		return nil, fmt.Errorf("%s refused: %s", op, resp)
	}
	return m, nil
}

// replicaWork is what one server materialized: its commits and the lore
// ids of the objects they hold.
type replicaWork struct {
	commits, ids []string
	err          error
}

// materializeMany opens a workspace and commits n facts, one a commit.
func (sv *syncServer) materializeMany(replica, n int) replicaWork {
	var w replicaWork
	open, err := sv.call("author.open", map[string]any{"scope": "camelot"})
	if err != nil {
		return replicaWork{err: err}
	}
	ws := open["workspace"].(string)
	for i := range n {
		fact := map[string]any{"workspace": ws, "entity": "galahad", "key": fmt.Sprintf("deed-%d-%d", replica, i),
			"value": "done", "provenance": map[string]any{"kind": "proposed", "origin": "sync-test"}}
		if _, err := sv.call("author.add_fact", fact); err != nil {
			return replicaWork{err: err}
		}
		m, err := sv.call("author.materialize", map[string]any{"workspace": ws})
		if err != nil {
			return replicaWork{err: err}
		}
		w.commits = append(w.commits, m["root_hash"].(string))
		for _, c := range m["committed"].([]any) {
			w.ids = append(w.ids, c.(map[string]any)["id"].(string))
		}
	}
	return w
}

// materializeFact opens a workspace, stages one fact and commits it.
func (sv *syncServer) materializeFact(entity, key, value string, prov map[string]any) error {
	open, err := sv.call("author.open", map[string]any{"scope": "camelot"})
	if err != nil {
		return err
	}
	ws := open["workspace"].(string)
	if _, err := sv.call("author.add_fact", map[string]any{"workspace": ws, "entity": entity, "key": key, "value": value, "provenance": prov}); err != nil {
		return err
	}
	_, err = sv.call("author.materialize", map[string]any{"workspace": ws})
	return err
}

func cited(decision string) map[string]any {
	return map[string]any{"kind": "cited", "state": "ratified", "decisions": []string{decision}}
}

// syncCLI runs `deloreis sync --format json` on a replica.
func syncCLI(t *testing.T, dir string) (syncReport, int) {
	t.Helper()
	out, errs, code := deloreis(t, "--project", dir, "sync", "--format", "json")
	var rep syncReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("sync of %s: exit %d, stdout %q, stderr %q", dir, code, out, errs)
	}
	return rep, code
}

// holdsAll asks real git whether main in gitDir reaches every commit and
// every object file named by ids.
func holdsAll(t *testing.T, gitDir string, commits, ids []string) {
	t.Helper()
	reached := map[string]bool{}
	for _, c := range strings.Fields(gitIn(t, gitDir, "rev-list", "main")) {
		reached[c] = true
	}
	for _, c := range commits {
		if !reached[c] {
			t.Fatalf("%s: main does not reach commit %s", gitDir, c)
		}
	}
	files := map[string]bool{}
	for _, line := range strings.Split(gitIn(t, gitDir, "rev-list", "--objects", "main"), "\n") {
		if _, path, ok := strings.Cut(line, " "); ok {
			files[strings.TrimSuffix(filepath.Base(path), ".json")] = true
		}
	}
	for _, id := range ids {
		if !files[id] {
			t.Fatalf("%s: main holds no object file for %s", gitDir, id)
		}
	}
	// And every blob is there to read, not just named.
	if out := gitIn(t, gitDir, "rev-list", "--objects", "--missing=print", "main"); strings.Contains(out, "\n?") || strings.HasPrefix(out, "?") {
		t.Fatalf("%s: objects missing", gitDir)
	}
}

func fsckStrict(t *testing.T, gitDir string) {
	t.Helper()
	out, err := exec.Command("git", "--git-dir", gitDir, "fsck", "--strict", "--no-dangling", "--no-progress").CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("git fsck --strict %s: %v\n%s", gitDir, err, out)
	}
}

// gitIn runs git in dir (a work or git directory) and returns stdout.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.String())
	}
	return stdout.String()
}

// serveHTTPBackend serves the bare repositories under base with real git's
// git-http-backend (CGI) on 127.0.0.1 and returns its URL prefix.
func serveHTTPBackend(t *testing.T, base string) string {
	t.Helper()
	execPath := strings.TrimSpace(gitIn(t, base, "--exec-path"))
	h := &cgi.Handler{Path: filepath.Join(execPath, "git-http-backend"), Env: []string{"GIT_PROJECT_ROOT=" + base, "GIT_HTTP_EXPORT_ALL=1"},
		// A refused lease is git's "cannot lock ref" on the backend's
		// stderr: expected here, and not the test's output.
		Stderr: io.Discard, Logger: log.New(io.Discard, "", 0)}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// TestServeSyncOpensOnSyncedHead: a commit pushed by another replica
// reaches a running `serve --sync`; a workspace opened after the sync
// opens on it, one opened before keeps its base. A sync that fails (an
// unreachable remote) is logged and the server goes on answering.
func TestServeSyncOpensOnSyncedHead(t *testing.T) {
	t.Setenv("DELOREIS_AUTHOR", "Sync Keeper <sync@deloreis.invalid>")
	base := t.TempDir()
	remote := filepath.Join(base, "lore.git")
	gitIn(t, base, "init", "-q", "--bare", "-b", "main", remote)
	seedDir := syncSeed(t, "file://"+remote)
	a, b := cloneReplica(t, seedDir, "file://"+remote, 0), cloneReplica(t, seedDir, "file://"+remote, 1)
	// A second, unreachable remote on a: its sync fails every time.
	mustRun(t, "--project", a, "remote", "add", "gone", "http://127.0.0.1:1/gone.git")
	broken := startSyncServer(t, a, "--sync", "gone", "--every", "50ms")
	sv := startSyncServer(t, a)
	before, err := sv.call("author.open", map[string]any{"scope": "camelot"})
	if err != nil {
		t.Fatal(err)
	}
	// b commits and pushes.
	other := startSyncServer(t, b, "--sync=")
	if err := other.materializeFact("galahad", "quest", "grail", map[string]any{"kind": "proposed", "origin": "b"}); err != nil {
		t.Fatal(err)
	}
	other.stop(t)
	if rep, code := syncCLI(t, b); code != 0 || !rep.Pushed {
		t.Fatalf("b's sync: exit %d, %+v", code, rep)
	}
	pushed := strings.TrimSpace(gitIn(t, remote, "rev-parse", "main"))
	var opened string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		o, err := sv.call("author.open", map[string]any{"scope": "camelot"})
		if err != nil {
			t.Fatal(err)
		}
		if opened = o["root_hash"].(string); opened == pushed {
			break
		}
	}
	if opened != pushed {
		t.Fatalf("a new workspace opens on %s, not on the synced head %s\n%s", opened, pushed, sv.stderr.String())
	}
	st, err := sv.call("author.status", map[string]any{"workspace": before["workspace"]})
	if err != nil {
		t.Fatal(err)
	}
	if st["root_hash"] != before["root_hash"] {
		t.Fatalf("an open workspace moved from %v to %v", before["root_hash"], st["root_hash"])
	}
	sv.stop(t)
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(broken.stderr.String(), "deloreis: sync gone: failed:") && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := broken.call("author.open", map[string]any{"scope": "camelot"}); err != nil {
		t.Fatalf("after failed syncs: %v", err)
	}
	if stderr := broken.stop(t); !strings.Contains(stderr, "deloreis: sync gone: failed:") {
		t.Fatalf("a failing sync was not logged:\n%s", stderr)
	}
}

// TestSyncTextReport: what sync prints, step by step, and its exit
// status: 0 when it synced, 3 when a merge it wrote or fetched brings a
// conflict — once per replica; the next sync has nothing new to say.
func TestSyncTextReport(t *testing.T) {
	t.Setenv("DELOREIS_AUTHOR", "Sync Keeper <sync@deloreis.invalid>")
	a, b := conflictingReplicas(t)
	steps := []struct {
		dir  string
		code int
		want []string
	}{
		{a, 0, []string{"fetched main of origin at ", "pushed main to origin: "}},
		{b, exitConflicts, []string{"merged main of origin into main: ", "pushed main to origin: ",
			"conflict in camelot: functional: ", "lancelot, pellinore", ", merged)"}},
		{a, exitConflicts, []string{"fast-forward main ", "conflict in camelot: functional: ", ", fetched)"}},
		{a, 0, []string{"Already up to date."}},
		{b, 0, []string{"Already up to date."}},
	}
	for i, st := range steps {
		out, errs, code := deloreis(t, "--project", st.dir, "sync")
		if code != st.code {
			t.Fatalf("step %d: exit %d, want %d\n%s%s", i, code, st.code, out, errs)
		}
		for _, w := range st.want {
			if !strings.Contains(out, w) {
				t.Fatalf("step %d: the report does not say %q:\n%s", i, w, out)
			}
		}
		if n := strings.Count(out, "conflict in "); n > 1 {
			t.Fatalf("step %d: the conflict is reported %d times:\n%s", i, n, out)
		}
	}
}

// conflictingReplicas are two clones of one bare hub, each with a
// materialized father of galahad the other contradicts (a functional
// conflict once they meet), neither pushed yet.
func conflictingReplicas(t *testing.T) (a, b string) {
	t.Helper()
	base := t.TempDir()
	remote := filepath.Join(base, "lore.git")
	gitIn(t, base, "init", "-q", "--bare", "-b", "main", remote)
	seedDir := syncSeed(t, "file://"+remote)
	a, b = cloneReplica(t, seedDir, "file://"+remote, 0), cloneReplica(t, seedDir, "file://"+remote, 1)
	for dir, father := range map[string]string{a: "lancelot", b: "pellinore"} {
		sv := startSyncServer(t, dir, "--sync=")
		if err := sv.materializeFact("galahad", "father", father, cited("canon-1")); err != nil {
			t.Fatal(err)
		}
		sv.stop(t)
	}
	return a, b
}
