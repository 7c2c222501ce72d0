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

// fileBase is the entries of a mapped section, read in place, with the
// columns of its index (worldfile_index.go): views of the mapped index
// section when the file has one, made by the scan when it has not.
type fileBase struct {
	p      []byte           // the section
	size   int              // entries per part
	starts []int            // where each part starts in p
	count  int              // entries
	offs   [][]uint32       // where each entry of each part starts in it
	types  []uint8          // each entry's type, a typeCodes index
	intern [][]uint32       // each part's interned strings, by where their fields start in it
	keyed  map[string][]int // the facts of each key in world.KeysFiled
	ents   identCol         // the entities by ident
	ofType [][]uint32       // each type's entries, by typeCodes index
	group  sync.Once        // makes ofType from types, when the scan made the columns
	provs  [256]atomic.Pointer[cachedProv]
	verify bool // the columns are the file's, held to the scan; else the scan makes them
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

func (c chunks) at(i uint64) uint32 { return c[i/chunkLen][i%chunkLen] }

// openFileBase scans the section p, giving each part's pages back when
// done with them (release, when not nil). Its part table is checked as
// decodeEntries checks it, and so is every record: an entry that scans
// decodes without error later. A part of 4 GiB or more is refused (its
// offsets would not fit), as is anything decodeEntries refuses. index is
// the file's index section, whose columns the base then reads in place
// once every one is held to the scan (and given back, release); with no
// index the scan makes them on the heap (tests; a writer streams them
// instead: writeIndexOf).
func openFileBase(p, index []byte, release func([]byte)) (*fileBase, error) {
	b, err := newFileBase(p, index != nil)
	if err != nil {
		return nil, err
	}
	if b.verify {
		if err := b.readIndex(index); err != nil {
			return nil, err
		}
	} else {
		b.offs, b.intern = make([][]uint32, len(b.starts)-1), make([][]uint32, len(b.starts)-1)
	}
	notes := newScanNotes()
	var refs []entityRef
	err = b.scanAll(release, func(k int, r *partResult) error {
		if !b.verify {
			b.offs[k], b.intern[k] = r.offs, slices.Concat(r.intern...)
		}
		refs = append(refs, r.refs...)
		notes.note(r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if b.verify {
		if err := b.checkIndex(notes.sum, notes.nents); err != nil {
			return nil, err
		}
		if release != nil {
			release(index) // read again only where the world asks
		}
	} else {
		b.ents = sortedIdents(refs) // ofType is made when first asked for (typeLists)
	}
	b.keyed = notes.keyed
	return b, nil
}

// newFileBase is the base of section p before its scan: its parts, and
// the types column when the scan makes it.
func newFileBase(p []byte, verify bool) (*fileBase, error) {
	count, size, starts, err := entryParts(p)
	if err != nil {
		return nil, err
	}
	b := &fileBase{p: p, count: int(count), size: int(size), starts: starts, verify: verify}
	if !verify {
		b.types = make([]uint8, count)
	}
	return b, nil
}

// scanAll scans every part, as many at once as there are cores, and hands
// each part's result to done in part order, so that a writer can stream
// a part's columns out and drop them. It checks that each part's last
// entry sorts before the next part's first.
func (b *fileBase) scanAll(release func([]byte), done func(k int, r *partResult) error) error {
	nparts := len(b.starts) - 1
	batch := make([]partResult, max(1, min(runtime.GOMAXPROCS(0), nparts)))
	var last objects.ID // the previous part's last entry
	for first := 0; first < nparts; first += len(batch) {
		n := min(len(batch), nparts-first)
		var wg sync.WaitGroup
		for j := range n {
			k := first + j
			wg.Go(func() {
				lo := k * b.size
				batch[j] = b.scanPart(k, lo, min(b.count, lo+b.size), release)
			})
		}
		wg.Wait()
		for j := range n {
			if batch[j].err != nil {
				return batch[j].err
			}
			// Each part is in id order; so must be where one meets the next.
			if first+j > 0 && bytes.Compare(last[:], batch[j].first[:]) >= 0 {
				return errNotInOrder
			}
			last = batch[j].last
			if err := done(first+j, &batch[j]); err != nil {
				return err
			}
			batch[j] = partResult{}
		}
	}
	return nil
}

// partResult is what scanning a part finds.
type partResult struct {
	first, last objects.ID  // its first and last entries' ids
	offs        []uint32    // where its entries start, when the scan makes the columns
	intern      chunks      // where its interned strings' fields start, likewise
	keyed       [][]int     // the facts of each key in world.KeysFiled
	refs        []entityRef // its entities, when the scan makes the columns
	sum         uint64      // identMix summed over its entities
	nents       int
	err         error
}

// scanPart checks part k, entries lo to hi, and notes (or, verifying,
// checks) where they are, their types and interned strings; it notes
// which facts have each key of world.KeysFiled and the entities' idents;
// then it gives the part's pages back (release).
func (b *fileBase) scanPart(k, lo, hi int, release func([]byte)) (res partResult) {
	fail := func(err error) partResult { return partResult{err: err} }
	part := b.p[b.starts[k]:b.starts[k+1]]
	if len(part) >= 1<<32 {
		return fail(wfErr("part %d of %d bytes", k, len(part)))
	}
	s := &partScan{sectionCursor: sectionCursor{p: part}, verify: b.verify}
	var offs []uint32
	if b.verify {
		s.col, offs = b.intern[k], b.offs[k]
	} else {
		offs = make([]uint32, hi-lo)
	}
	res.keyed = make([][]int, len(world.KeysFiled))
	given := 0         // the part's pages given back up to here, as the scan passes them
	var arena strArena // the entities' idents, when the scan makes the columns
	for i := lo; i < hi; i++ {
		if release != nil && s.at-given >= scanRelease {
			release(part[given:s.at]) // a page read again (an interned string) is mapped again
			given = s.at
		}
		if !note(b.verify, &offs[i-lo], uint32(s.at)) {
			return fail(wfErr("index: entry %d at %d, the index says %d", i, s.at, offs[i-lo]))
		}
		at := s.take(33)
		if s.err != nil {
			return fail(s.err)
		}
		if i > lo && bytes.Compare(part[offs[i-lo-1]:][:32], part[at:at+32]) >= 0 {
			return fail(errNotInOrder)
		}
		if i == lo {
			res.first = objects.ID(part[at : at+32])
		}
		if i == hi-1 {
			res.last = objects.ID(part[at : at+32])
		}
		code, err := s.checkRecord(i, at, &res, &arena)
		if err != nil {
			return fail(err)
		}
		if !note(b.verify, &b.types[i], code) {
			return fail(wfErr("index: entry %d of type %d, the index says %d", i, code, b.types[i]))
		}
	}
	if s.at != len(part) {
		return fail(wfErr("%d bytes after the last entry of a part", len(part)-s.at))
	}
	if b.verify && s.n != len(s.col) {
		return fail(wfErr("index: part %d interns %d strings, the index lists %d", k, s.n, len(s.col)))
	}
	if !b.verify {
		res.offs, res.intern = offs, s.intern
	}
	if release != nil {
		release(part) // read again only where the world asks
	}
	return res
}

// checkRecord checks the rest of entry i, whose id and tag lie at at, and
// returns its type code: a fact's or entity's fields are checked one by
// one, the entity's ident summed (and copied, when the scan makes the
// columns) and the fact filed under its key in res; a canonical record is
// decoded for its type. It is the part of scanPart's loop that reads by
// the record's kind; the loop around it checks where each entry lies.
func (s *partScan) checkRecord(i, at int, res *partResult, arena *strArena) (uint8, error) {
	part := s.p // the part scanPart scans
	var code uint8
	switch tag := part[at+32]; tag {
	case tagFact, tagEntity:
		s.str(true)
		nameAt := s.at
		key := s.str(true)
		s.str(false)
		s.prov()
		code = codeFact
		if tag == tagEntity {
			code = codeEntity
			if s.err == nil {
				name := s.view(nameAt)
				res.sum += identMix(unsafe.String(unsafe.SliceData(name), len(name)), uint32(i))
				res.nents++
				if !s.verify {
					// Copied: sorting views of the mapping would
					// fault the whole file back in (an entity or two
					// a page).
					res.refs = append(res.refs, entityRef{pos: uint32(i), name: arena.add(name)})
				}
			}
		} else if key >= 0 {
			res.keyed[key] = append(res.keyed[key], i)
		}
	case tagCanonical:
		n := s.uvarint()
		if n > uint64(len(part)) {
			return 0, wfErr("entry %d: %d bytes", i, n)
		}
		at := s.take(int(n))
		if s.err != nil {
			return 0, s.err
		}
		o, err := objects.Decode(part[at:s.at])
		if err != nil {
			return 0, wfErr("entry %d: %v", i, err)
		}
		c, ok := typeCode(o.Type())
		if !ok {
			return 0, wfErr("entry %d: type %s", i, o.Type())
		}
		code = c
	default:
		return 0, wfErr("entry %d: tag %d", i, tag)
	}
	if s.err != nil {
		return 0, s.err
	}
	return code, nil
}

// scanRelease is how far a scan gets past the pages it last gave back
// before it gives back those it passed: two scans at once over parts of
// 130 MB each held 260 MB of the file resident.
const scanRelease = 8 << 20

// note puts v in *at when the scan makes the columns; verifying, it
// reports whether *at holds v already.
func note[T uint8 | uint32](verify bool, at *T, v T) bool {
	if verify {
		return *at == v
	}
	*at = v
	return true
}

// typeLists is each type's entries: the index's, or, when the scan made
// the columns, lists made from the types on first use (a writer, which
// streams them, never asks: writeIndex).
func (b *fileBase) typeLists() [][]uint32 {
	b.group.Do(func() {
		if b.ofType == nil {
			b.ofType = groupByType(b.types)
		}
	})
	return b.ofType
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
// strings (or, verifying, holding them to the index's column).
type partScan struct {
	sectionCursor
	verify bool
	col    []uint32 // verifying: where the index says each interned string's field starts
	intern chunks   // else: where each one's field starts, as found
	n      int      // the interned strings met
	filed  []int8   // for each interned string, its index in world.KeysFiled, or -1
}

// internAt is where interned string j's field starts.
func (s *partScan) internAt(j uint64) uint32 {
	if s.verify {
		return s.col[j]
	}
	return s.intern.at(j)
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
		return s.view(int(s.internAt(v >> 1)))
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
		if v>>1 >= uint64(s.n) {
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
	if s.verify {
		if s.n >= len(s.col) || s.col[s.n] != uint32(at) {
			s.fail("index: interned string %d disagrees", s.n)
			return -1
		}
	} else {
		s.intern.push(uint32(at))
	}
	s.n++
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

// Len, ID, Type, Name, Object, Keyed, OfType and Entities are
// world.EntryBase's.

func (b *fileBase) Len() int { return b.count }

// record is where entry i starts in the section, and its part.
func (b *fileBase) record(i int) (at, k int) {
	k = i / b.size
	return b.starts[k] + int(b.offs[k][i-k*b.size]), k
}

func (b *fileBase) ID(i int) objects.ID {
	at, _ := b.record(i)
	return objects.ID(b.p[at : at+32])
}

func (b *fileBase) Type(i int) objects.Type { return typeCodes[b.types[i]] }

func (b *fileBase) Keyed(key string) []int { return b.keyed[key] }

func (b *fileBase) OfType(t objects.Type) []uint32 {
	if code, ok := typeCode(t); ok {
		return b.typeLists()[code]
	}
	return nil
}

func (b *fileBase) Entities() world.EntityIdents { return &b.ents }

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
