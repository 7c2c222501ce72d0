// A world file's entries read in place (DL-0395): the world.EntryBase of
// a mapped entries section. Opening it scans the section once, on every
// core, checking each record as decodeEntries reads it and noting where
// each entry starts, its type, and where each part's interned strings
// lie; nothing is decoded until the world asks for an entry, and then
// only that entry, its strings views of the mapping. The mapping must
// therefore outlive the world (worldfile_map.go keeps it).

package author

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/deloreis/deloreis/objects"
)

// typeCodes numbers the object types for fileBase's one byte per entry.
var typeCodes = []objects.Type{
	objects.TypeEntity, objects.TypeFact, objects.TypeRelation, objects.TypeEvent, objects.TypeBefore,
	objects.TypeQuestion, objects.TypeHypothesis, objects.TypeRule, objects.TypeFunctional, objects.TypeInertial,
	objects.TypeSameAs, objects.TypePredicateSameAs, objects.TypeState, objects.TypeDecision, objects.TypeAttack,
	objects.TypeStanding, objects.TypeRatify, objects.TypeDialect, objects.TypeWord, objects.TypeName,
	objects.TypeDerivation, objects.TypeLedgerEntry,
}

// The codes of the two kinds with records of their own.
const codeEntity, codeFact = 0, 1

func typeCode(t objects.Type) (uint8, bool) {
	for i, x := range typeCodes {
		if x == t {
			return uint8(i), true
		}
	}
	return 0, false
}

// fileBase is the entries of a mapped section, read in place.
type fileBase struct {
	p      []byte   // the section
	size   int      // entries per part
	starts []int    // where each part starts in p
	offs   []uint32 // where each entry starts in its part
	types  []uint8  // each entry's type, a typeCodes index
	intern [][]uint32
}

// openFileBase scans the section p. Its part table is checked as
// decodeEntries checks it, and so is every record: an entry that scans
// decodes without error later. A part of 4 GiB or more is refused (its
// offsets would not fit), as is anything decodeEntries refuses.
func openFileBase(p []byte) (*fileBase, error) {
	count, size, starts, err := entryParts(p)
	if err != nil {
		return nil, err
	}
	nparts := len(starts) - 1
	b := &fileBase{p: p, size: int(size), starts: starts, offs: make([]uint32, count), types: make([]uint8, count),
		intern: make([][]uint32, nparts)}
	errs := make([]error, nparts)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), nparts) {
		wg.Go(func() {
			for {
				k := int(next.Add(1) - 1)
				if k >= nparts {
					return
				}
				lo := k * b.size
				hi := min(int(count), lo+b.size)
				errs[k] = b.scanPart(k, lo, hi)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return b, nil
}

// scanPart checks part k, entries lo to hi, and notes where they are.
func (b *fileBase) scanPart(k, lo, hi int) error {
	part := b.p[b.starts[k]:b.starts[k+1]]
	if len(part) >= 1<<32 {
		return wfErr("part %d of %d bytes", k, len(part))
	}
	s := &partScan{p: part}
	for i := lo; i < hi; i++ {
		b.offs[i] = uint32(s.at)
		at := s.take(33)
		if s.err != nil {
			return s.err
		}
		switch tag := part[at+32]; tag {
		case tagFact, tagEntity:
			s.str(true)
			s.str(true)
			s.str(false)
			s.prov()
			b.types[i] = codeFact
			if tag == tagEntity {
				b.types[i] = codeEntity
			}
		case tagCanonical:
			n := s.uvarint()
			if n > uint64(len(part)) {
				return wfErr("entry %d: %d bytes", i, n)
			}
			at := s.take(int(n))
			if s.err != nil {
				return s.err
			}
			o, err := objects.Decode(part[at:s.at])
			if err != nil {
				return wfErr("entry %d: %v", i, err)
			}
			code, ok := typeCode(o.Type())
			if !ok {
				return wfErr("entry %d: type %s", i, o.Type())
			}
			b.types[i] = code
		default:
			return wfErr("entry %d: tag %d", i, tag)
		}
		if s.err != nil {
			return s.err
		}
	}
	if s.at != len(part) {
		return wfErr("%d bytes after the last entry of a part", len(part)-s.at)
	}
	b.intern[k] = s.intern
	return nil
}

// partScan walks a part's records, checking them and noting its interned
// strings.
type partScan struct {
	p      []byte
	at     int
	intern []uint32 // where each interned string's literal starts
	err    error
}

func (s *partScan) fail(format string, args ...any) {
	if s.err == nil {
		s.err = wfErr(format, args...)
	}
	s.at = len(s.p)
}

func (s *partScan) uvarint() uint64 {
	if s.err != nil {
		return 0
	}
	v, l := binary.Uvarint(s.p[s.at:])
	if l <= 0 {
		s.fail("bad varint at %d", s.at)
		return 0
	}
	s.at += l
	return v
}

// take skips n bytes and returns where they start.
func (s *partScan) take(n int) int {
	if s.err != nil || n > len(s.p)-s.at {
		s.fail("truncated at %d", s.at)
		return 0
	}
	s.at += n
	return s.at - n
}

// str checks a string: a reference to an earlier interned one, or a
// literal, interned when shared.
func (s *partScan) str(shared bool) {
	at := s.at
	v := s.uvarint()
	if v&1 == 1 {
		if v>>1 >= uint64(len(s.intern)) {
			s.fail("unknown string %d", v>>1)
		}
		return
	}
	if v>>1 > uint64(len(s.p)) {
		s.fail("a string of %d bytes", v>>1)
		return
	}
	s.take(int(v >> 1))
	if shared && s.err == nil {
		s.intern = append(s.intern, uint32(at))
	}
}

func (s *partScan) prov() {
	for range 4 {
		s.str(true)
	}
	n := s.uvarint()
	if n > uint64(len(s.p)-s.at) {
		s.fail("%d decisions", n)
		return
	}
	for range n {
		s.str(true)
	}
}

// errNotInOrder says a section's entries are not in id order, each id
// once, as a world.EntryBase's must be: a file written before DL-0395 from
// a world with a staged or advanced tail.
var errNotInOrder = wfErr("entries not in id order")

// inIDOrder reports whether the entries are in id order, each id once.
func (b *fileBase) inIDOrder() bool {
	for i := 1; i < b.Len(); i++ {
		x, y := b.ID(i-1), b.ID(i)
		if bytes.Compare(x[:], y[:]) >= 0 {
			return false
		}
	}
	return true
}

// Len, ID, Type, Name and Object are world.EntryBase's.

func (b *fileBase) Len() int { return len(b.offs) }

// record is where entry i starts in the section, and its part.
func (b *fileBase) record(i int) (at, k int) {
	k = i / b.size
	return b.starts[k] + int(b.offs[i]), k
}

func (b *fileBase) ID(i int) objects.ID {
	at, _ := b.record(i)
	return objects.ID(b.p[at : at+32])
}

func (b *fileBase) Type(i int) objects.Type { return typeCodes[b.types[i]] }

func (b *fileBase) Name(i int) string {
	switch b.Type(i) {
	case objects.TypeFact, objects.TypeEntity:
		r := b.reader(i)
		r.str()
		return r.str() // a fact's key, an entity's ident
	}
	return ""
}

func (b *fileBase) Object(i int) objects.Object {
	r := b.reader(i)
	switch b.Type(i) {
	case objects.TypeFact:
		return &objects.Fact{Entity: r.str(), Key: r.str(), Value: r.str(), Provenance: r.prov()}
	case objects.TypeEntity:
		return &objects.Entity{Kind: objects.EntityKind(r.str()), Ident: r.str(), Name: r.str(), Provenance: r.prov()}
	}
	n := r.uvarint()
	o, err := objects.Decode(b.p[r.at : r.at+int(n)])
	if err != nil {
		panic(err) // scanned when opened: the mapping changed under the process
	}
	return o
}

// reader reads entry i's fields, after its id and tag.
func (b *fileBase) reader(i int) baseReader {
	at, k := b.record(i)
	return baseReader{b: b, k: k, at: at + 33}
}

// baseReader reads the fields of a record openFileBase scanned: no check
// is needed, and none is made.
type baseReader struct {
	b  *fileBase
	k  int
	at int
}

func (r *baseReader) uvarint() uint64 {
	v, l := binary.Uvarint(r.b.p[r.at:])
	r.at += l
	return v
}

// str reads a string as a view of the mapping.
func (r *baseReader) str() string {
	v := r.uvarint()
	if v&1 == 1 {
		lit := baseReader{b: r.b, at: r.b.starts[r.k] + int(r.b.intern[r.k][v>>1])}
		return lit.str()
	}
	n := int(v >> 1)
	r.at += n
	if n == 0 {
		return ""
	}
	return unsafe.String(&r.b.p[r.at-n], n)
}

func (r *baseReader) prov() *objects.Provenance {
	p := &objects.Provenance{Kind: objects.ProvenanceKind(r.str()), Origin: r.str(), Hyp: r.str(), State: objects.CitedState(r.str())}
	if n := r.uvarint(); n > 0 {
		p.Decisions = make([]string, n)
		for i := range p.Decisions {
			p.Decisions[i] = r.str()
		}
	}
	return p
}
