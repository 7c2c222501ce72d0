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
	"hash/maphash"
	"iter"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// typeCodes numbers the object types for fileBase's one byte per entry:
// a type's code is its place in objects.Types.
var typeCodes = objects.Types()

// The codes of the two kinds with records of their own.
var codeEntity, codeFact = mustCode(objects.TypeEntity), mustCode(objects.TypeFact)

func mustCode(t objects.Type) uint8 {
	code, ok := typeCode(t)
	if !ok {
		panic("author: no code for object type " + string(t))
	}
	return code
}

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
	p      []byte           // the section
	size   int              // entries per part
	starts []int            // where each part starts in p
	offs   []uint32         // where each entry starts in its part
	types  []uint8          // each entry's type, a typeCodes index
	intern []chunks         // each part's interned strings, by where their literals start in it
	keyed  map[string][]int // the facts of each key in world.KeysFiled
	idents []ident          // the entities, in order
	ofType [][]uint32       // each type's entries, by typeCodes index
	provs  [256]atomic.Pointer[cachedProv]
}

// ident is an entity's position and ident, copied out of the mapping (a
// world keeps it as a map key, which every lookup reads).
type ident struct {
	pos  int
	name string
}

// chunks is a list of uint32 grown a chunk at a time, never copied: a
// load runs uncollected (DL-0390), and a list grown by doubling would
// leave its old arrays behind.
type chunks [][]uint32

const chunkLen = 1 << 16

func (c *chunks) push(x uint32) {
	if n := len(*c); n == 0 || len((*c)[n-1]) == chunkLen {
		*c = append(*c, make([]uint32, 0, chunkLen))
	}
	last := &(*c)[len(*c)-1]
	*last = append(*last, x)
}

func (c chunks) len() int {
	if len(c) == 0 {
		return 0
	}
	return (len(c)-1)*chunkLen + len(c[len(c)-1])
}

func (c chunks) at(i uint64) uint32 { return c[i/chunkLen][i%chunkLen] }

// openFileBase scans the section p, giving each part's pages back when
// done with them (release, when not nil). Its part table is checked as
// decodeEntries checks it, and so is every record: an entry that scans
// decodes without error later. A part of 4 GiB or more is refused (its
// offsets would not fit), as is anything decodeEntries refuses.
func openFileBase(p []byte, release func([]byte)) (*fileBase, error) {
	count, size, starts, err := entryParts(p)
	if err != nil {
		return nil, err
	}
	nparts := len(starts) - 1
	b := &fileBase{p: p, size: int(size), starts: starts, offs: make([]uint32, count), types: make([]uint8, count),
		intern: make([]chunks, nparts)}
	errs := make([]error, nparts)
	keyed := make([][][]int, nparts) // per part, per key in world.KeysFiled
	idents := make([][]ident, nparts)
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
				keyed[k], idents[k], errs[k] = b.scanPart(k, lo, hi, release)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	// Each part is in id order; so must be where one meets the next.
	for k := 1; k < nparts; k++ {
		x, y := b.ID(k*b.size-1), b.ID(k*b.size)
		if bytes.Compare(x[:], y[:]) >= 0 {
			return nil, errNotInOrder
		}
	}
	b.idents = slices.Concat(idents...)
	b.ofType = groupByType(b.types)
	b.keyed = map[string][]int{}
	for j, key := range world.KeysFiled {
		for k := range keyed {
			b.keyed[key] = append(b.keyed[key], keyed[k][j]...)
		}
	}
	return b, nil
}

// scanPart checks part k, entries lo to hi, and notes where they are,
// which facts have each key of world.KeysFiled, and the entities' idents;
// then it gives the part's pages back (release).
func (b *fileBase) scanPart(k, lo, hi int, release func([]byte)) (keyed [][]int, idents []ident, err error) {
	part := b.p[b.starts[k]:b.starts[k+1]]
	if len(part) >= 1<<32 {
		return nil, nil, wfErr("part %d of %d bytes", k, len(part))
	}
	s := &partScan{sectionCursor: sectionCursor{p: part}}
	keyed = make([][]int, len(world.KeysFiled))
	var arena strArena
	for i := lo; i < hi; i++ {
		b.offs[i] = uint32(s.at)
		at := s.take(33)
		if s.err != nil {
			return nil, nil, s.err
		}
		if i > lo && bytes.Compare(part[b.offs[i-1]:][:32], part[at:at+32]) >= 0 {
			return nil, nil, errNotInOrder
		}
		switch tag := part[at+32]; tag {
		case tagFact, tagEntity:
			s.str(true)
			nameAt := s.at
			key := s.str(true)
			s.str(false)
			s.prov()
			b.types[i] = codeFact
			if tag == tagEntity {
				b.types[i] = codeEntity
				if s.err == nil {
					idents = append(idents, ident{pos: i, name: arena.add(s.view(nameAt))})
				}
			} else if key >= 0 {
				keyed[key] = append(keyed[key], i)
			}
		case tagCanonical:
			n := s.uvarint()
			if n > uint64(len(part)) {
				return nil, nil, wfErr("entry %d: %d bytes", i, n)
			}
			at := s.take(int(n))
			if s.err != nil {
				return nil, nil, s.err
			}
			o, err := objects.Decode(part[at:s.at])
			if err != nil {
				return nil, nil, wfErr("entry %d: %v", i, err)
			}
			code, ok := typeCode(o.Type())
			if !ok {
				return nil, nil, wfErr("entry %d: type %s", i, o.Type())
			}
			b.types[i] = code
		default:
			return nil, nil, wfErr("entry %d: tag %d", i, tag)
		}
		if s.err != nil {
			return nil, nil, s.err
		}
	}
	if s.at != len(part) {
		return nil, nil, wfErr("%d bytes after the last entry of a part", len(part)-s.at)
	}
	b.intern[k] = s.intern
	if release != nil {
		release(part) // read again only where the world asks
	}
	return keyed, idents, nil
}

// groupByType lists the positions of each type code in types, each list
// made at its size.
func groupByType(types []uint8) [][]uint32 {
	var counts [256]int
	for _, code := range types {
		counts[code]++
	}
	out := make([][]uint32, len(typeCodes))
	for code := range out {
		out[code] = make([]uint32, 0, counts[code])
	}
	for i, code := range types {
		out[code] = append(out[code], uint32(i))
	}
	return out
}

// partScan walks a part's records, checking them and noting its interned
// strings.
type partScan struct {
	sectionCursor
	intern chunks // where each interned string's literal starts
	filed  []int8 // for each interned string, its index in world.KeysFiled, or -1
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

// view is the bytes of the string whose field starts at at, which str
// checked.
func (s *partScan) view(at int) []byte {
	v, l := binary.Uvarint(s.p[at:])
	if v&1 == 1 {
		return s.view(int(s.intern.at(v >> 1)))
	}
	return s.p[at+l : at+l+int(v>>1)]
}

// str checks a string: a reference to an earlier interned one, or a
// literal, interned when shared. It returns the string's index in
// world.KeysFiled, or -1.
func (s *partScan) str(shared bool) int {
	at := s.at
	v := s.uvarint()
	if v&1 == 1 {
		if v>>1 >= uint64(s.intern.len()) {
			s.fail("unknown string %d", v>>1)
			return -1
		}
		return int(s.filed[v>>1])
	}
	if v>>1 > uint64(len(s.p)) {
		s.fail("a string of %d bytes", v>>1)
		return -1
	}
	lit := s.take(int(v >> 1))
	if s.err != nil {
		return -1
	}
	if !shared {
		return -1 // a filed key is a shared field
	}
	filed := int8(-1)
	for j, key := range world.KeysFiled {
		if string(s.p[lit:s.at]) == key {
			filed = int8(j)
		}
	}
	s.intern.push(uint32(at))
	s.filed = append(s.filed, filed)
	return int(filed)
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

// Len, ID, Type, Name, Object and Keyed are world.EntryBase's.

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

func (b *fileBase) Keyed(key string) []int { return b.keyed[key] }

func (b *fileBase) OfType(t objects.Type) []uint32 {
	if code, ok := typeCode(t); ok {
		return b.ofType[code]
	}
	return nil
}

func (b *fileBase) Idents() iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for _, id := range b.idents {
			if !yield(id.pos, id.name) {
				return
			}
		}
	}
}

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
		lit := baseReader{b: r.b, at: r.b.starts[r.k] + int(r.b.intern[r.k].at(v>>1))}
		return lit.str()
	}
	n := int(v >> 1)
	r.at += n
	if n == 0 {
		return ""
	}
	return unsafe.String(&r.b.p[r.at-n], n)
}

// prov reads a provenance, the same pointer as an earlier record's of the
// part when their provenance bytes are the same (a direct-mapped cache,
// as decodeEntries shares them, DL-0352): the facts of a session then
// share one, read or written.
func (r *baseReader) prov() *objects.Provenance {
	start := r.at
	r.skipProv()
	key := r.b.p[start:r.at]
	slot := &r.b.provs[maphash.Bytes(provSeed, key)%uint64(len(r.b.provs))]
	if c := slot.Load(); c != nil && c.part == r.k && c.key == string(key) {
		return c.p
	}
	end := r.at
	r.at = start
	p := &objects.Provenance{Kind: objects.ProvenanceKind(r.str()), Origin: r.str(), Hyp: r.str(), State: objects.CitedState(r.str())}
	if n := r.uvarint(); n > 0 {
		p.Decisions = make([]string, n)
		for i := range p.Decisions {
			p.Decisions[i] = r.str()
		}
	}
	r.at = end
	slot.Store(&cachedProv{part: r.k, key: string(key), p: p})
	return p
}

// skipProv passes over a provenance's fields.
func (r *baseReader) skipProv() {
	for range 4 {
		r.skipStr()
	}
	for range r.uvarint() {
		r.skipStr()
	}
}

func (r *baseReader) skipStr() {
	if v := r.uvarint(); v&1 == 0 {
		r.at += int(v >> 1)
	}
}

// cachedProv is a provenance read, by its part and bytes.
type cachedProv struct {
	part int
	key  string
	p    *objects.Provenance
}
