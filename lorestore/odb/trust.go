// The trust record: which pack indexes this repository has verified in
// full (SHA-1 trailer and name order), keyed by what the file system says
// of each file, so that a later open maps a big index without reading it.
//
// Git never hashes an index on open; it checks the header, the fanout and
// the size, and leaves the checksum to fsck. We keep a stronger rule
// (decisions log, DL-0265): an index is hashed once, when this process
// wrote it or when the repository's record does not vouch for it, and the
// record vouches only for a file whose size, mtime, ctime, inode and
// trailing checksum are all exactly those seen when it was hashed. Any
// write to the file changes its ctime (which no user call can set back),
// a replacement changes its inode, so a changed index is hashed again
// before any of it is used. Damage that changes no metadata (the disk
// flipping a bit under an intact inode) is what fsck is for: CheckPacks
// never consults the record.
//
// The record is objects/deloreis-verified-idx, outside objects/pack so git
// sees no garbage. Losing it, or a write lost to a concurrent writer, only
// costs a verification; a record that does not parse is ignored whole.

package odb

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

const (
	trustName   = "deloreis-verified-idx"
	trustHeader = "deloreis verified pack indexes v1"
	// trustMinSize: a smaller index costs less to hash than its record
	// costs to keep, so it is simply hashed on every open.
	trustMinSize = 64 << 10
)

// idxStamp is what the record remembers of a verified index file.
type idxStamp struct {
	size  int64
	mtime int64 // nanoseconds
	ctime int64
	ino   uint64
	sum   [hashLen]byte // the index's own trailing checksum
}

// stampOf builds the stamp of an index from its stat and its mapping.
func stampOf(st *unix.Stat_t, data []byte) idxStamp {
	s := idxStamp{size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), ino: st.Ino}
	if len(data) >= hashLen {
		copy(s.sum[:], data[len(data)-hashLen:])
	}
	return s
}

// racy reports whether the file may still change within the timestamp
// granularity of the stat taken at now: a write in the same clock tick as
// the last one would leave mtime and ctime as they are (git's "racy
// clean" problem), so such a stamp is not recorded.
func (s idxStamp) racy(now int64) bool {
	return now-s.mtime < int64(racyWindow) || now-s.ctime < int64(racyWindow)
}

func (s idxStamp) line(name string) string {
	return fmt.Sprintf("%s %d %d %d %d %s\n", name, s.size, s.mtime, s.ctime, s.ino, hex.EncodeToString(s.sum[:]))
}

func parseStampLine(line string) (string, idxStamp, bool) {
	f := strings.Fields(line)
	if len(f) != 6 || !strings.HasPrefix(f[0], "pack-") || !strings.HasSuffix(f[0], ".idx") || strings.ContainsRune(f[0], '/') {
		return "", idxStamp{}, false
	}
	var s idxStamp
	var err [4]error
	s.size, err[0] = strconv.ParseInt(f[1], 10, 64)
	s.mtime, err[1] = strconv.ParseInt(f[2], 10, 64)
	s.ctime, err[2] = strconv.ParseInt(f[3], 10, 64)
	s.ino, err[3] = strconv.ParseUint(f[4], 10, 64)
	sum, herr := hex.DecodeString(f[5])
	for _, e := range err {
		if e != nil {
			return "", idxStamp{}, false
		}
	}
	if herr != nil || len(sum) != hashLen {
		return "", idxStamp{}, false
	}
	copy(s.sum[:], sum)
	return f[0], s, true
}

// trustRecord is the in-memory copy of the record, read on first use.
type trustRecord struct {
	path string

	mu      sync.Mutex
	loaded  bool
	entries map[string]idxStamp // by file name, pack-<sha>.idx
	dirty   bool                // entries hold stamps not yet written
}

func newTrustRecord(objDir string) *trustRecord {
	return &trustRecord{path: filepath.Join(objDir, trustName)}
}

// keeps reports whether an index so stamped belongs in the record.
func (t *trustRecord) keeps(s idxStamp) bool { return t != nil && s.size >= trustMinSize }

// vouches reports whether the record holds exactly this stamp for name.
func (t *trustRecord) vouches(name string, s idxStamp) bool {
	if !t.keeps(s) {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.loadLocked()
	e, ok := t.entries[name]
	return ok && e == s
}

// add records that the index name, as stamped, was verified in full.
func (t *trustRecord) add(name string, s idxStamp) {
	if !t.keeps(s) {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.loadLocked()
	if t.entries[name] != s {
		t.entries[name] = s
		t.dirty = true
	}
}

func (t *trustRecord) loadLocked() {
	if t.loaded {
		return
	}
	t.loaded = true
	t.entries = readTrust(t.path)
}

// readTrust parses the record file; anything unexpected yields an empty
// record (every index is then verified, and the record written afresh).
func readTrust(path string) map[string]idxStamp {
	out := map[string]idxStamp{}
	data, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	body, sumLine, ok := cutLastLine(data)
	if !ok || !strings.HasPrefix(sumLine, "sum ") {
		return out
	}
	sum := sha1.Sum(body)
	if sumLine[4:] != hex.EncodeToString(sum[:]) {
		return out
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	if !sc.Scan() || sc.Text() != trustHeader {
		return out
	}
	for sc.Scan() {
		name, s, ok := parseStampLine(sc.Text())
		if !ok {
			return map[string]idxStamp{}
		}
		out[name] = s
	}
	return out
}

// cutLastLine splits data ("...\nlast\n") into everything up to and
// including the second-to-last newline, and the last line.
func cutLastLine(data []byte) ([]byte, string, bool) {
	if len(data) == 0 || data[len(data)-1] != '\n' {
		return nil, "", false
	}
	i := bytes.LastIndexByte(data[:len(data)-1], '\n')
	if i < 0 {
		return nil, "", false
	}
	return data[:i+1], string(data[i+1 : len(data)-1]), true
}

// flush writes the record when it holds new stamps, keeping only the
// indexes named in live (the others are gone) and merging what another
// process wrote meanwhile. Failure is silent: a record that could not be
// written costs a verification later, nothing else.
func (t *trustRecord) flush(live map[string]bool) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.dirty {
		return
	}
	t.dirty = false
	merged := readTrust(t.path)
	for name, s := range t.entries {
		merged[name] = s
	}
	var names []string
	for name := range merged {
		if live[name] {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var buf bytes.Buffer
	buf.WriteString(trustHeader + "\n")
	for _, name := range names {
		buf.WriteString(merged[name].line(name))
	}
	sum := sha1.Sum(buf.Bytes())
	fmt.Fprintf(&buf, "sum %s\n", hex.EncodeToString(sum[:]))
	writeFileAtomic(t.path, buf.Bytes())
}

// writeFileAtomic replaces path with data by renaming a temporary file
// over it; the temporary name is one removeStale clears after a crash.
func writeFileAtomic(path string, data []byte) {
	f, err := os.CreateTemp(filepath.Dir(path), tmpIdxPrefix+"trust_*")
	if err != nil {
		return
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
}

// nowNano is the clock racy stamps are judged by.
func nowNano() int64 { return time.Now().UnixNano() }
