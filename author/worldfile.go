// The compiled world file, format v5 (DL-0300, DL-0384, DL-0390,
// DL-0400): what a (commit, scope)'s world was built from, kept beside the store so that a fresh process
// opening a commit someone compiled before skips the read phase (pack
// reads, inflate, tree walk, per-object hash check). It is derived data:
// every field that names what it is about is checked against the store
// before use, the body against its checksum, and anything that does not
// match is deleted and the world rebuilt, never used.
//
// Layout (little-endian; sections 8-byte aligned so later versions can
// map columns in place):
//
//	magic "DLWORLD\x00" | version u32 | flags u32
//	world-format hash [32] | commit [20] | scope tree [20] | dialects hash [32]
//	body length u64 | body XXH3-128 [16] | scope length u16 | scope | pad to 8
//	body: sections, each kind u32 | 0 u32 | length u64 | payload | pad to 8
//
// The first section is the scope's committed entries
// (worldfile_entries.go), the second their index (worldfile_index.go).
// A third, optional, is the compiled world: the
// build key of the program that wrote it (compiledKey) and a snapshot of
// the world's evaluated datalog program (datalog.Snapshot), used only by
// a program of the same build key, so that an open restores the program
// and model instead of lowering and evaluating. The entries are the
// world's input and hold across builds; the snapshot is the output of
// one build's lowering and engine, and another build rewrites it.

package author

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"sync"
	"sync/atomic"

	"github.com/deloreis/deloreis/base/phases"
	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
	"github.com/zeebo/blake3"
	"github.com/zeebo/xxh3"
	"golang.org/x/sys/unix"
)

const (
	wfMagic   = "DLWORLD\x00"
	wfVersion = 5
	// wfFixed is the header up to the scope's length.
	wfFixed = 8 + 4 + 4 + 32 + 20 + 20 + 32 + 8 + wfSumSize
	// wfSumSize is the body checksum's size: an XXH3-128 (DL-0390).
	wfSumSize = 16
	// wfSectionEntries is the section of the committed entries.
	wfSectionEntries = 1
	// wfSectionCompiled is the world's evaluated program: a build key
	// (compiledKey) and a datalog snapshot (DL-0384).
	wfSectionCompiled = 2
)

// wfFormat names what a body means. The entries are the world's input,
// not its lowering, so a changed lowering needs no new format; the
// compiled section, which is the lowering's output, carries a build key
// of its own.
var wfFormat = [32]byte{ // BLAKE3 of wfFormatText, written out so that no program hashes it at start-up (TestWorldFileFormatHash)
	0x82, 0x61, 0x86, 0x5d, 0x3a, 0x97, 0x69, 0x45, 0x7f, 0x86, 0x07, 0x85, 0x07, 0x19, 0x7a, 0x67,
	0x0c, 0x7e, 0xc7, 0x6a, 0x42, 0xca, 0x48, 0xee, 0xe5, 0x2e, 0x03, 0x93, 0x45, 0x09, 0xb4, 0x5c,
}

const wfFormatText = "deloreis world file v3: committed entries as canonical object bytes, in parts that decode apart; then, optionally, a build key and a datalog snapshot of the world's evaluated program"

// wfHeader is what a file claims to be about.
type wfHeader struct {
	format   [32]byte
	commit   lorestore.Hash
	tree     lorestore.Hash // the scope's tree at commit
	dialects [32]byte
	scope    string
}

// errWorldFile is the cause of every refusal of a file.
var errWorldFile = errors.New("author: world file refused")

func wfErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errWorldFile, fmt.Sprintf(format, args...))
}

// dialectsHash names the project's dialects, which every compile reads.
func dialectsHash(ds []*objects.Dialect) ([32]byte, error) {
	h := blake3.New()
	var buf []byte
	for _, d := range ds {
		var err error
		if buf, err = d.AppendCanonical(buf[:0]); err != nil {
			return [32]byte{}, err
		}
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(buf)))
		h.Write(n[:])
		h.Write(buf)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out, nil
}

func pad8(n int) int { return (8 - n%8) % 8 }

// encodeWorldFile writes a file of a world's entries to f, an empty
// file, and then, when compiled writes one, the compiled section. The
// body streams out (a 10M world is gigabytes of entries); its lengths and
// checksum are filled in after, the checksum read back. compiled may wait
// for the world's compile; its error fails the write, but for
// datalog.ErrNoSnapshot (a world a snapshot does not hold, or no build
// key), which leaves the section out.
// indexed, when not nil, is called once the entries and their index are
// written and flushed, with where their payloads lie in f and what the
// index's scan noted (writeIndexOf).
func encodeWorldFile(f *os.File, hd wfHeader, entries iter.Seq[world.Entry], compiled func(io.Writer) error, indexed func(f *os.File, count uint64, entries, index span, notes scanNotes)) error {
	head, lenAt := wfHead(hd)
	bw := bufio.NewWriterSize(f, 1<<20)
	bw.Write(head)
	// The entries section: its header, then count u64 and the entries.
	bw.Write(make([]byte, 16+8))
	endEntries := phases.Start(PhaseFileEntries)
	n, size, err := writeEntries(bw, entries)
	endEntries()
	if err != nil {
		return err
	}
	bw.Write(make([]byte, pad8(16+int(size))))
	bodyLen := int64(16 + size + uint64(pad8(16+int(size))))
	var sec [24]byte
	binary.LittleEndian.PutUint32(sec[0:], wfSectionEntries)
	binary.LittleEndian.PutUint64(sec[8:], size)
	binary.LittleEndian.PutUint64(sec[16:], n)
	// The index is made from the entries on disk, their count in place.
	if err := bw.Flush(); err != nil {
		return err
	}
	if _, err := f.WriteAt(sec[:], int64(len(head))); err != nil {
		return err
	}
	endIndex := phases.Start(PhaseFileIndex)
	isec, err := writeIndexSection(f, bw, int64(len(head))+16, int64(size))
	endIndex()
	if err != nil {
		return err
	}
	bodyLen += isec.len
	// The entries and the index are final, their headers in place, so
	// that the checksum can read them while the compiled section is made.
	if err := bw.Flush(); err != nil {
		return err
	}
	if _, err := f.WriteAt(isec.head, int64(len(head))+bodyLen-isec.len); err != nil {
		return err
	}
	if indexed != nil {
		indexed(f, n, span{int64(len(head)) + 16, int64(size)}, span{int64(len(head)) + bodyLen - isec.len + 16, sectionLen(isec.head)}, isec.notes)
	}
	return finishWorldFile(f, bw, compiled, int64(len(head)), bodyLen, lenAt)
}

// encodeKeptWorldFile writes to f, an empty file, a world file whose
// entries and index sections are sections, copied as they lie in another
// file (one that verified, its entries and index held to each other when
// read in place), and then this build's compiled section when compiled
// writes one. A file whose compiled section is another build's is so
// written again without its entries being encoded again: encoding them
// would give the same bytes.
func encodeKeptWorldFile(f *os.File, hd wfHeader, sections [][]byte, compiled func(io.Writer) error) error {
	head, lenAt := wfHead(hd)
	bw := bufio.NewWriterSize(f, 1<<20)
	bw.Write(head)
	endEntries := phases.Start(PhaseFileEntries)
	var bodyLen int64
	for _, sec := range sections {
		bw.Write(sec)
		bodyLen += int64(len(sec))
	}
	err := bw.Flush()
	endEntries()
	if err != nil {
		return err
	}
	return finishWorldFile(f, bw, compiled, int64(len(head)), bodyLen, lenAt)
}

// finishWorldFile writes the compiled section, when compiled writes one,
// after the body's first bodyLen bytes at headLen, which are written and
// flushed, and seals the file.
func finishWorldFile(f *os.File, bw *bufio.Writer, compiled func(io.Writer) error, headLen, bodyLen int64, lenAt int) error {
	// The checksum of what is written so far is taken beside the compiled
	// section's writing, which holds one core while the other would idle;
	// begun before that, it would take its time from the evaluation.
	sum := startSum(f, headLen, bodyLen)
	defer sum.wait() // on every path: the file is closed after
	if compiled != nil {
		clen, err := writeCompiledSection(f, bw, compiled, sum, headLen+bodyLen)
		if err != nil {
			return err
		}
		bodyLen += clen
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return sealWorldFile(f, sum, bodyLen, lenAt)
}

// wfHead is a file's header for hd, its body length and checksum (at
// lenAt) zero: they are known only once the body is written.
func wfHead(hd wfHeader) (head []byte, lenAt int) {
	head = make([]byte, 0, wfFixed+2+len(hd.scope)+8)
	head = append(head, wfMagic...)
	head = binary.LittleEndian.AppendUint32(head, wfVersion)
	head = binary.LittleEndian.AppendUint32(head, 0)
	head = append(head, hd.format[:]...)
	head = append(head, hd.commit[:]...)
	head = append(head, hd.tree[:]...)
	head = append(head, hd.dialects[:]...)
	lenAt = len(head)
	head = append(head, make([]byte, 8+wfSumSize)...) // body length and checksum, filled in last (sealWorldFile)
	head = binary.LittleEndian.AppendUint16(head, uint16(len(hd.scope)))
	head = append(head, hd.scope...)
	head = append(head, make([]byte, pad8(len(head)))...)
	return head, lenAt
}

// writeCompiledSection writes the compiled section, when compiled writes
// one, at offset at of f, after what bw holds: its payload streams
// through bw, its header is written in place after. It returns the
// section's whole length, 0 when it is left out. Separate from
// encodeWorldFile because it is the one section that may be absent, and
// the only one whose writer's error is not always the file's.
func writeCompiledSection(f *os.File, bw *bufio.Writer, compiled func(io.Writer) error, sum *bodySum, at int64) (int64, error) {
	cs := &lazySection{w: bw, kind: wfSectionCompiled, start: sum.start}
	switch err := compiled(cs); {
	case errors.Is(err, datalog.ErrNoSnapshot):
		if cs.n > 0 {
			return 0, fmt.Errorf("author: a refused snapshot wrote %d bytes", cs.n)
		}
	case err != nil:
		return 0, err
	}
	if cs.n == 0 {
		return 0, nil
	}
	var csec [16]byte
	binary.LittleEndian.PutUint32(csec[0:], wfSectionCompiled)
	binary.LittleEndian.PutUint64(csec[8:], uint64(cs.n))
	bw.Write(make([]byte, pad8(int(cs.n))))
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	if _, err := f.WriteAt(csec[:], at); err != nil {
		return 0, err
	}
	return 16 + cs.n + int64(pad8(int(cs.n))), nil
}

// sealWorldFile fills in the header's body length and checksum, at lenAt,
// once the body of bodyLen bytes is written and flushed: the checksum
// reads the body back (sum), which is the write's last phase.
func sealWorldFile(f *os.File, sum *bodySum, bodyLen int64, lenAt int) error {
	defer phases.Start(PhaseFileSum)()
	h, err := sum.rest(bodyLen)
	if err != nil {
		return err
	}
	var tail [8 + wfSumSize]byte
	binary.LittleEndian.PutUint64(tail[:], uint64(bodyLen))
	b := h.Sum128().Bytes()
	copy(tail[8:], b[:])
	_, err = f.WriteAt(tail[:], int64(lenAt))
	return err
}

// writeIndexSection writes the index section of the entries section
// that lies at [at, at+size) of f, which is written up to there: it maps
// the entries back and scans them (writeIndexOf), so that what an open
// will hold the index to decides what it says. It
// returns the section's header and whole length.
func writeIndexSection(f *os.File, bw *bufio.Writer, at, size int64) (sec struct {
	head  []byte
	len   int64
	notes scanNotes // writeIndexOf's
}, err error) {
	data, err := unix.Mmap(int(f.Fd()), 0, int(at+size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return sec, err
	}
	defer unix.Munmap(data)
	bw.Write(make([]byte, 16))
	n, notes, err := writeIndexOf(data[at:], bw, releaseMapped)
	if err != nil {
		return sec, err
	}
	bw.Write(make([]byte, pad8(int(n))))
	sec.head = make([]byte, 16)
	binary.LittleEndian.PutUint32(sec.head[0:], wfSectionIndex)
	binary.LittleEndian.PutUint64(sec.head[8:], uint64(n))
	sec.len = 16 + n + int64(pad8(int(n)))
	sec.notes = notes
	return sec, nil
}

// lazySection writes a section's payload after a header placeholder,
// which it writes only with the first byte: a writer that writes nothing
// leaves no section. start, when not nil, is called before the first
// byte is written.
type lazySection struct {
	w     *bufio.Writer
	kind  uint32
	n     int64
	start func()
}

func (s *lazySection) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if s.n == 0 {
		if s.start != nil {
			s.start()
		}
		s.w.Write(make([]byte, 16))
	}
	s.n += int64(len(p))
	return s.w.Write(p)
}

// bodySum takes a world file's body checksum in two parts: the first n
// bytes at at, on a goroutine of its own from start on, then the rest,
// read once it is written.
type bodySum struct {
	f       *os.File
	at, n   int64
	h       *xxh3.Hasher
	err     error
	once    sync.Once
	started atomic.Bool
	done    chan struct{}
}

func startSum(f *os.File, at, n int64) *bodySum {
	return &bodySum{f: f, at: at, n: n, h: xxh3.New(), done: make(chan struct{})}
}

// start begins the first part's reading, once.
func (s *bodySum) start() {
	s.once.Do(func() {
		s.started.Store(true)
		go func() {
			defer close(s.done)
			_, s.err = io.Copy(s.h, io.NewSectionReader(s.f, s.at, s.n))
		}()
	})
}

// wait waits for a first part begun.
func (s *bodySum) wait() {
	if s.started.Load() {
		<-s.done
	}
}

// rest returns the checksum of a body of bodyLen bytes: the first part's,
// begun now if it was not, continued over the rest.
func (s *bodySum) rest(bodyLen int64) (*xxh3.Hasher, error) {
	s.start()
	<-s.done
	if s.err != nil {
		return nil, s.err
	}
	if _, err := io.Copy(s.h, io.NewSectionReader(s.f, s.at+s.n, bodyLen-s.n)); err != nil {
		return nil, err
	}
	return s.h, nil
}

// wfBody is a world file's body as located in its bytes: not yet
// checked against its checksum.
type wfBody struct {
	body     []byte // every section
	sum      []byte
	entries  []byte // the entries section's payload
	index    []byte // the index section's payload (worldfile_index.go)
	compiled []byte // the compiled section's payload, nil when there is none
	// input is the entries and the index sections whole (header, payload
	// and padding), in that order: what a file written again with another
	// compiled section copies (encodeKeptWorldFile).
	input [2][]byte
}

// locateWorldFile checks a file's header against want (which it must
// name exactly) and finds its sections. Every refusal wraps errWorldFile.
func locateWorldFile(data []byte, want wfHeader) (wfBody, error) {
	var b wfBody
	if len(data) < wfFixed+2 || string(data[:8]) != wfMagic {
		return b, wfErr("not a world file")
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != wfVersion {
		return b, wfErr("format version %d, this build reads %d", v, wfVersion)
	}
	at := 16
	field := func(n int) []byte { at += n; return data[at-n : at] }
	checks := []struct {
		what      string
		got, want []byte
	}{
		{"world format", field(32), want.format[:]},
		{"commit", field(20), want.commit[:]},
		{"scope tree", field(20), want.tree[:]},
		{"dialects", field(32), want.dialects[:]},
	}
	for _, c := range checks {
		if !bytes.Equal(c.got, c.want) {
			return b, wfErr("another %s", c.what)
		}
	}
	bodyLen := binary.LittleEndian.Uint64(field(8))
	b.sum = field(wfSumSize)
	scopeLen := int(binary.LittleEndian.Uint16(field(2)))
	if len(data)-at < scopeLen {
		return b, wfErr("truncated header")
	}
	if string(field(scopeLen)) != want.scope {
		return b, wfErr("another scope")
	}
	at += pad8(at)
	if at > len(data) || uint64(len(data)-at) != bodyLen {
		return b, wfErr("body of %d bytes, header says %d", len(data)-min(at, len(data)), bodyLen)
	}
	b.body = data[at:]
	seen := map[uint32]bool{}
	for rest := b.body; len(rest) > 0; {
		if len(rest) < 16 {
			return b, wfErr("%d bytes left in the body, short of a section", len(rest))
		}
		kind, n := binary.LittleEndian.Uint32(rest), binary.LittleEndian.Uint64(rest[8:])
		if n > uint64(len(rest)-16) || 16+int(n)+pad8(int(n%8)) > len(rest) || seen[kind] {
			return b, wfErr("section %d of %d bytes in a body of %d left", kind, n, len(rest))
		}
		seen[kind] = true
		payload := rest[16 : 16+n : 16+n]
		whole := rest[:16+int(n)+pad8(int(n%8))]
		switch kind {
		case wfSectionEntries:
			b.entries, b.input[0] = payload, whole
		case wfSectionIndex:
			b.index, b.input[1] = payload, whole
		case wfSectionCompiled:
			b.compiled = payload
		default:
			return b, wfErr("a section of kind %d", kind)
		}
		rest = rest[len(whole):]
	}
	if b.entries == nil || b.index == nil {
		return b, wfErr("no entries or no index section")
	}
	return b, nil
}

// check holds the body to its checksum, calling done with each part of it
// once hashed.
func (b wfBody) check(done func([]byte)) error {
	h := xxh3.New()
	for rest := b.body; len(rest) > 0; {
		part := rest[:min(len(rest), 8<<20)]
		h.Write(part)
		if done != nil {
			done(part)
		}
		rest = rest[len(part):]
	}
	if got := h.Sum128().Bytes(); !bytes.Equal(got[:], b.sum) {
		return wfErr("body checksum mismatch")
	}
	return nil
}

// decodeWorldFile checks a file and returns its entries and the compiled
// section's payload (nil when it has none).
func decodeWorldFile(data []byte, want wfHeader) ([]world.Entry, []byte, error) {
	b, err := locateWorldFile(data, want)
	if err != nil {
		return nil, nil, err
	}
	if err := b.check(nil); err != nil {
		return nil, nil, err
	}
	entries, err := decodeEntries(b.entries)
	return entries, b.compiled, err
}
