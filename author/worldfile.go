// The compiled world file, format v1 (DL-0300): what a (commit, scope)'s
// world was built from, kept beside the store so that a fresh process
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
//	body length u64 | body BLAKE3 [32] | scope length u16 | scope | pad to 8
//	body: sections, each kind u32 | 0 u32 | length u64 | payload | pad to 8
//
// v1 has one section, the scope's committed entries (worldfile_entries.go).

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

	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/zeebo/blake3"
)

const (
	wfMagic   = "DLWORLD\x00"
	wfVersion = 1
	// wfFixed is the header up to the scope's length.
	wfFixed = 8 + 4 + 4 + 32 + 20 + 20 + 32 + 8 + 32
	// wfSectionEntries is the section of the committed entries.
	wfSectionEntries = 1
)

// wfFormat names what a v1 body means. A v1 body is the world's input,
// not its lowering, so a changed lowering needs no new format; a version
// whose body holds the model must fold the lowering's version in here.
var wfFormat = [32]byte{ // BLAKE3 of wfFormatText, written out so that no program hashes it at start-up (TestWorldFileFormatHash)
	0xc4, 0xe6, 0x57, 0xd7, 0xfe, 0xb5, 0x12, 0xad, 0xbf, 0x7f, 0xfd, 0x89, 0x9a, 0xea, 0x3f, 0x1a,
	0x69, 0x61, 0xe2, 0xed, 0xcd, 0x7b, 0x0f, 0xd7, 0xd9, 0x6d, 0x63, 0xc0, 0x6b, 0x48, 0x02, 0x3d,
}

const wfFormatText = "deloreis world file v1: committed entries as canonical object bytes; world compiled on load"

// wfHeader is what a file claims to be about.
type wfHeader struct {
	format   [32]byte
	commit   plumbing.Hash
	tree     plumbing.Hash // the scope's tree at commit
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

// encodeWorldFile writes a file of a world's entries to f, an
// empty file. The body streams out (a 10M world is gigabytes of entries);
// its lengths and checksum are filled in after, the checksum read back.
func encodeWorldFile(f *os.File, hd wfHeader, entries iter.Seq[world.Entry]) error {
	head := make([]byte, 0, wfFixed+2+len(hd.scope)+8)
	head = append(head, wfMagic...)
	head = binary.LittleEndian.AppendUint32(head, wfVersion)
	head = binary.LittleEndian.AppendUint32(head, 0)
	head = append(head, hd.format[:]...)
	head = append(head, hd.commit[:]...)
	head = append(head, hd.tree[:]...)
	head = append(head, hd.dialects[:]...)
	lenAt := len(head)
	head = append(head, make([]byte, 8+32)...) // body length and checksum, filled below
	head = binary.LittleEndian.AppendUint16(head, uint16(len(hd.scope)))
	head = append(head, hd.scope...)
	head = append(head, make([]byte, pad8(len(head)))...)
	bw := bufio.NewWriterSize(f, 1<<20)
	bw.Write(head)
	// The entries section: its header, then count u64 and the entries.
	bw.Write(make([]byte, 16+8))
	n, size, err := writeEntries(bw, entries)
	if err != nil {
		return err
	}
	bw.Write(make([]byte, pad8(16+int(size))))
	if err := bw.Flush(); err != nil {
		return err
	}
	var sec [24]byte
	binary.LittleEndian.PutUint32(sec[0:], wfSectionEntries)
	binary.LittleEndian.PutUint64(sec[8:], size)
	binary.LittleEndian.PutUint64(sec[16:], n)
	if _, err := f.WriteAt(sec[:], int64(len(head))); err != nil {
		return err
	}
	bodyLen := int64(16 + size + uint64(pad8(16+int(size))))
	h := blake3.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, int64(len(head)), bodyLen)); err != nil {
		return err
	}
	var tail [40]byte
	binary.LittleEndian.PutUint64(tail[:], uint64(bodyLen))
	h.Sum(tail[8:8])
	_, err = f.WriteAt(tail[:], int64(lenAt))
	return err
}

// decodeWorldFile checks a file's header against want (which it must
// name exactly) and its body against the checksum, and returns the
// entries. Every refusal wraps errWorldFile.
func decodeWorldFile(data []byte, want wfHeader) ([]world.Entry, error) {
	if len(data) < wfFixed+2 || string(data[:8]) != wfMagic {
		return nil, wfErr("not a world file")
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != wfVersion {
		return nil, wfErr("format version %d, this build reads %d", v, wfVersion)
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
			return nil, wfErr("another %s", c.what)
		}
	}
	bodyLen := binary.LittleEndian.Uint64(field(8))
	sum := field(32)
	scopeLen := int(binary.LittleEndian.Uint16(field(2)))
	if len(data)-at < scopeLen {
		return nil, wfErr("truncated header")
	}
	if string(field(scopeLen)) != want.scope {
		return nil, wfErr("another scope")
	}
	at += pad8(at)
	if at > len(data) || uint64(len(data)-at) != bodyLen {
		return nil, wfErr("body of %d bytes, header says %d", len(data)-min(at, len(data)), bodyLen)
	}
	body := data[at:]
	if got := blake3.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, wfErr("body checksum mismatch")
	}
	return decodeSections(body)
}

// decodeSections reads the body's sections; v1 has exactly one.
func decodeSections(body []byte) ([]world.Entry, error) {
	if len(body) < 16 || binary.LittleEndian.Uint32(body) != wfSectionEntries {
		return nil, wfErr("no entries section")
	}
	n := binary.LittleEndian.Uint64(body[8:])
	if n > uint64(len(body)-16) || 16+int(n)+pad8(16+int(n)) != len(body) {
		return nil, wfErr("entries section of %d bytes in a body of %d", n, len(body))
	}
	return decodeEntries(body[16 : 16+n])
}
