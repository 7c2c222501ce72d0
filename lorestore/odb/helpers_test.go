// Test helpers: running real git as the referee, building objects by hand,
// and the child-process entry points used by the cross-process tests.

package odb

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv("ODB_TEST_CHILD"); mode != "" {
		os.Exit(runChild(mode))
	}
	os.Exit(m.Run())
}

// git runs real git in dir and returns stdout; it fails the test on a
// non-zero exit.
func git(t testing.TB, dir string, stdin []byte, args ...string) []byte {
	t.Helper()
	out, errOut, err := gitRun(dir, stdin, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, errOut)
	}
	return out
}

func gitRun(dir string, stdin []byte, args ...string) ([]byte, []byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+os.TempDir(),
		// The disk here stalls now and then; fsync only slows the referee.
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.fsync", "GIT_CONFIG_VALUE_0=none",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.Bytes(), errOut.Bytes(), err
}

// initBare makes an empty bare repository and returns its path.
func initBare(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo.git")
	git(t, "", nil, "init", "-q", "--template=", "--bare", dir)
	return dir
}

func openDB(t testing.TB, dir string, opts Options) *DB {
	t.Helper()
	db, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// fsckClean runs `git fsck --strict` and fails on a non-zero exit or any
// error/missing/bad line.
func fsckClean(t testing.TB, dir string) {
	t.Helper()
	out, errOut, err := gitRun(dir, nil, "fsck", "--strict", "--no-dangling")
	all := string(out) + string(errOut)
	if err != nil {
		t.Fatalf("git fsck --strict: %v\n%s", err, all)
	}
	for _, line := range strings.Split(all, "\n") {
		l := strings.ToLower(line)
		if strings.Contains(l, "error") || strings.Contains(l, "missing") || strings.Contains(l, "bad") {
			t.Fatalf("git fsck --strict complained: %s\n%s", line, all)
		}
	}
}

// blob returns deterministic pseudo-random text of about n bytes.
func blob(r *rand.Rand, n int) []byte {
	const alphabet = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJ\n0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return b
}

type treeEntry struct {
	mode string
	name string
	hash plumbing.Hash
}

// makeTree encodes a tree, sorting entries git's way (a directory sorts
// as if its name ended in '/').
func makeTree(entries []treeEntry) []byte {
	key := func(e treeEntry) string {
		if e.mode == "40000" {
			return e.name + "/"
		}
		return e.name
	}
	slices.SortFunc(entries, func(a, b treeEntry) int { return strings.Compare(key(a), key(b)) })
	var b bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&b, "%s %s\x00", e.mode, e.name)
		b.Write(e.hash[:])
	}
	return b.Bytes()
}

func makeCommit(tree plumbing.Hash, parents []plumbing.Hash, msg string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "tree %s\n", tree)
	for _, p := range parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	b.WriteString("author A U Thor <author@example.com> 1700000000 +0000\n")
	b.WriteString("committer A U Thor <author@example.com> 1700000000 +0000\n\n")
	b.WriteString(msg + "\n")
	return b.Bytes()
}

// setRef points refs/heads/<name> at h by writing the file, as the
// porcelain would.
func setRef(t testing.TB, dir, name string, h plumbing.Hash) {
	t.Helper()
	path := filepath.Join(dir, "refs", "heads", name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(h.String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// objectReader is what mustRead reads from: a DB or a Quarantine.
type objectReader interface {
	Read(h plumbing.Hash) (plumbing.ObjectType, []byte, error)
}

// mustRead reads h and compares it with want.
func mustRead(t testing.TB, db objectReader, h plumbing.Hash, wantT plumbing.ObjectType, want []byte) {
	t.Helper()
	typ, data, err := db.Read(h)
	if err != nil {
		t.Fatalf("Read %s: %v", h, err)
	}
	if typ != wantT || !bytes.Equal(data, want) {
		t.Fatalf("Read %s: got %v %d bytes, want %v %d bytes", h, typ, len(data), wantT, len(want))
	}
}

// packFiles lists objects/pack/pack-*.<ext>.
func packFiles(t testing.TB, dir, ext string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "objects", "pack", "pack-*."+ext))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// rawPack builds a pack by hand from raw entries (for corruption tests):
// each entry is given as already-encoded bytes.
func rawPack(entries ...[]byte) []byte {
	var b bytes.Buffer
	b.WriteString("PACK")
	binary.Write(&b, binary.BigEndian, uint32(2))
	binary.Write(&b, binary.BigEndian, uint32(len(entries)))
	for _, e := range entries {
		b.Write(e)
	}
	sum := sha1.Sum(b.Bytes())
	b.Write(sum[:])
	return b.Bytes()
}

// wholeEntry encodes a whole object as a pack entry.
func wholeEntry(t plumbing.ObjectType, data []byte) []byte {
	d := deflaters.Get().(*deflater)
	defer deflaters.Put(d)
	return appendDeflate(appendEntryHeader(nil, t, uint64(len(data))), d, t, data)
}
