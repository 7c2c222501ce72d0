// The entries section of a world file (DL-0301): count u64, then per
// entry its id [32] and a tag. Facts and entities, the bulk of a large
// scope, are compact records whose repeated strings (entities, keys,
// kinds, provenance) are interned in the stream; every other object is
// its canonical bytes, decoded by package objects. Records decode
// sequentially into substrings of one copy of the section (no allocation
// per string); canonical bytes decode in parallel.
//
// A string is a uvarint v: v odd names the (v>>1)th interned string; v
// even is a literal of v>>1 bytes that follows, interned when the field is
// one that repeats. Literal-only fields (a fact's value, a name) are never
// interned. A literal in a field that repeats takes the next index even
// when the writer will not refer to it again: a part whose facts' entities
// seldom repeat (a scope of many entities, in id order) writes each of
// them as a literal once the first entityTries of them found almost no
// repeat, so that equal strings of that field may have two indexes.
//
// The entries come in parts of partEntries (DL-0389): each part starts
// its interning afresh, so that the parts decode on every core at once.
// After the last entry a table gives where each part starts (u64 offsets
// in the section, from its count), then the part size and the number of
// parts (u64 each).

package author

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"iter"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/deloreis/deloreis/base/hugemem"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// Entry tags.
const (
	tagCanonical = 0 // uvarint length, canonical JSON
	tagFact      = 1 // entity, key, value, provenance
	tagEntity    = 2 // kind, id, name, provenance
)

// provBytes is a provenance and its bytes as every later record writes it.
type provBytes struct {
	p *objects.Provenance
	b []byte
}

// entryWriter streams entries with their interning table.
type entryWriter struct {
	bw     *bufio.Writer
	size   uint64
	intern map[string]uint64
	next   uint64 // the index the next literal of a field that repeats takes
	// entities counts the part's facts' entities looked up and found, and
	// says whether they are still looked up.
	entities struct{ tries, found int }
	buf      []byte
	// provs holds the bytes of provenances written, by value: after its
	// first record a provenance's strings are all interned, so every later
	// record of it is the same references (DL-0353). Direct-mapped, so
	// that a scope whose every claim has a provenance of its own holds no
	// more than the slots. rec records those references (recBuf).
	provs [64]provBytes
	last  provBytes // the provenance written last, tried by pointer first
	// seen holds interned strings by where their bytes lie, tried before
	// the map: a decoded scope's keys and entities are shared strings
	// (the decoder interns them), so most repeats are found without
	// hashing the string. Direct-mapped, and cleared with the map.
	seen   [1 << 12]seenStr
	rec    *bufio.Writer
	recBuf bytes.Buffer
	// scratch holds what write is given from the stack: bufio may pass a
	// slice on to its io.Writer, so a stack array handed to it escapes,
	// one allocation per varint (about 1 GB of garbage over a 10M-entry
	// first compile).
	scratch [32]byte
}

// seenStr is an interned string's bytes, length and number.
type seenStr struct {
	p *byte
	n int
	i uint64
}

func (ew *entryWriter) write(p []byte) {
	ew.bw.Write(p)
	ew.size += uint64(len(p))
}

func (ew *entryWriter) uvarint(v uint64) {
	ew.write(ew.scratch[:binary.PutUvarint(ew.scratch[:], v)])
}

// tag writes one byte.
func (ew *entryWriter) tag(b byte) {
	ew.bw.WriteByte(b)
	ew.size++
}

// str writes s; shared strings are interned. It reports whether s was
// written as a reference.
func (ew *entryWriter) str(s string, shared bool) (ref bool) {
	if shared {
		var slot *seenStr
		if s != "" {
			slot = ew.seenSlot(s)
			if slot.p == unsafe.StringData(s) && slot.n == len(s) {
				ew.uvarint(slot.i<<1 | 1)
				return true
			}
		}
		i, ok := ew.intern[s]
		if !ok {
			i = ew.next
			ew.next++
			ew.intern[s] = i
		}
		if slot != nil {
			*slot = seenStr{unsafe.StringData(s), len(s), i}
		}
		if ok {
			ew.uvarint(i<<1 | 1)
			return true
		}
	}
	ew.literal(s)
	return false
}

// literal writes s as a literal.
func (ew *entryWriter) literal(s string) {
	ew.uvarint(uint64(len(s)) << 1)
	ew.bw.WriteString(s)
	ew.size += uint64(len(s))
}

// entity writes a fact's entity, a shared string, but as a literal that
// is not looked up once the part's first entityTries entities found fewer
// than one in entityFound repeats: in a scope of a million entities and
// ten million claims in id order, a part of 65,536 entries holds almost
// every entity once, and each lookup and insert was lost (1.5 s of map
// work at 10M). Whether they are looked up depends on the strings alone,
// so the bytes do too.
func (ew *entryWriter) entity(s string) {
	e := &ew.entities
	if e.tries >= entityTries && e.found*entityFound < e.tries {
		ew.next++ // the reader interns the literal all the same
		ew.literal(s)
		return
	}
	e.tries++
	if ew.str(s, true) {
		e.found++
	}
}

// entityTries and entityFound: see entity.
const (
	entityTries = 4096
	entityFound = 8
)

// seenSlot is where seen holds s, if it does.
func (ew *entryWriter) seenSlot(s string) *seenStr {
	at := uintptr(unsafe.Pointer(unsafe.StringData(s)))>>3 ^ uintptr(len(s))
	return &ew.seen[at%uintptr(len(ew.seen))]
}

func (ew *entryWriter) prov(p *objects.Provenance) {
	if ew.last.p == p && p != nil {
		ew.write(ew.last.b) // a decoded scope's claims share a few provenances
		return
	}
	slot := &ew.provs[ew.provHash(p)%uint64(len(ew.provs))]
	if slot.p == p || slot.p != nil && sameProvenance(slot.p, p) {
		ew.write(slot.b)
		ew.last = provBytes{p, slot.b}
		return
	}
	ew.provFields(p) // its new strings go out as literals, interned
	// From now on it is written as references only: record those bytes.
	if ew.rec == nil {
		ew.rec = bufio.NewWriter(&ew.recBuf)
	}
	ew.recBuf.Reset()
	bw, size := ew.bw, ew.size
	ew.bw = ew.rec
	ew.provFields(p)
	ew.bw.Flush()
	ew.bw, ew.size = bw, size
	*slot = provBytes{p, bytes.Clone(ew.recBuf.Bytes())}
	ew.last = *slot
}

// provHash places a provenance in the cache by its value, not its
// pointer: the facts of a world read in place (DL-0395) each decode a
// provenance of their own, equal to their session's.
func (ew *entryWriter) provHash(p *objects.Provenance) uint64 {
	var h maphash.Hash
	h.SetSeed(provSeed)
	for _, s := range [...]string{string(p.Kind), p.Origin, p.Hyp, string(p.State)} {
		h.WriteString(s)
		h.WriteByte(0)
	}
	for _, d := range p.Decisions {
		h.WriteString(d)
		h.WriteByte(0)
	}
	return h.Sum64()
}

var provSeed = maphash.MakeSeed()

// sameProvenance reports whether a and b are equal in every field.
func sameProvenance(a, b *objects.Provenance) bool {
	return a.Kind == b.Kind && a.Origin == b.Origin && a.Hyp == b.Hyp && a.State == b.State && slices.Equal(a.Decisions, b.Decisions)
}

// provFields writes a provenance's fields, interning its strings.
func (ew *entryWriter) provFields(p *objects.Provenance) {
	ew.str(string(p.Kind), true)
	ew.str(p.Origin, true)
	ew.str(p.Hyp, true)
	ew.str(string(p.State), true)
	ew.uvarint(uint64(len(p.Decisions)))
	for _, d := range p.Decisions {
		ew.str(d, true)
	}
}

// writeEntries streams entries (a world's, in id order) and returns their count and the
// section's payload size (count included). Staged entries are written as
// committed: a world the cache holds for a commit may hold that commit's
// last layer staged (put). Objects are validated as they would be on a
// commit before they are written.
func writeEntries(bw *bufio.Writer, entries iter.Seq[world.Entry]) (n, size uint64, err error) {
	ew := &entryWriter{bw: bw, size: 8, intern: map[string]uint64{}}
	var parts []uint64
	for e := range entries {
		if n%partEntries == 0 {
			// A part starts: nothing before it is referred to from it.
			parts = append(parts, ew.size)
			clear(ew.intern)
			ew.next, ew.entities = 0, struct{ tries, found int }{}
			ew.seen = [len(ew.seen)]seenStr{}
			ew.provs = [len(ew.provs)]provBytes{}
			ew.last = provBytes{}
		}
		// Through scratch: slicing e itself would move every entry's copy
		// to the heap.
		ew.write(ew.scratch[:copy(ew.scratch[:], e.ID[:])])
		switch o := e.Object.(type) {
		case *objects.Fact:
			if err := o.Validate(); err != nil {
				return 0, 0, err
			}
			ew.tag(tagFact)
			ew.entity(o.Entity)
			ew.str(o.Key, true)
			ew.str(o.Value, false)
			ew.prov(o.Provenance)
		case *objects.Entity:
			if err := o.Validate(); err != nil {
				return 0, 0, err
			}
			ew.tag(tagEntity)
			ew.str(string(o.Kind), true)
			ew.str(o.Ident, true)
			ew.str(o.Name, false)
			ew.prov(o.Provenance)
		default:
			if ew.buf, err = e.Object.AppendCanonical(ew.buf[:0]); err != nil {
				return 0, 0, err
			}
			ew.tag(tagCanonical)
			ew.uvarint(uint64(len(ew.buf)))
			ew.write(ew.buf)
		}
		n++
	}
	var tail []byte
	for _, at := range parts {
		tail = binary.LittleEndian.AppendUint64(tail, at)
	}
	tail = binary.LittleEndian.AppendUint64(tail, partEntries)
	tail = binary.LittleEndian.AppendUint64(tail, uint64(len(parts)))
	ew.write(tail)
	return n, ew.size, nil
}

// partEntries is how many entries a part of the section holds: enough
// that a part's repeated strings (keys, kinds, provenance) are mostly
// references, few enough that the writer's interning table stays in the
// cache. In id order an entity's few mentions fall far apart, so a table
// of a million entries' strings was mostly misses, each a cache miss into
// a table of a million strings. At the 3M bench world the string table
// took 2.2 s of CPU with parts of 1<<20 and 1.0 s with 1<<16, for a file
// 4% larger (DL-0525). Tests lower it.
var partEntries uint64 = 1 << 16

// entryReader reads the section. Its strings are copied into an arena of
// large chunks (strArena), not allocated one by one and not left as
// substrings of the section: the file's bytes (ids, varints, the
// canonical records) can then go once the section is read, about two
// thirds of a 10M-object file that a substring would keep alive.
type entryReader struct {
	sectionCursor
	arena  strArena
	intern []string
	provs  [64]provSlot // provenances read, to share (prov)
	decIdx []uint64     // scratch: the decisions being read, by index
	decStr []string     // and by value
}

// sectionCursor reads a section's varints; its first error sticks, and every
// read after it returns zero.
type sectionCursor struct {
	p   []byte
	at  int
	err error
}

func (c *sectionCursor) fail(format string, args ...any) {
	if c.err == nil {
		c.err = wfErr(format, args...)
	}
}

func (c *sectionCursor) uvarint() uint64 {
	if c.err != nil {
		return 0
	}
	v, l := binary.Uvarint(c.p[c.at:])
	if l <= 0 {
		c.fail("bad varint at %d", c.at)
		return 0
	}
	c.at += l
	return v
}

func (r *entryReader) bytes(n uint64) (int, int) {
	if r.err != nil || n > uint64(len(r.p)-r.at) {
		r.fail("truncated at %d", r.at)
		return 0, 0
	}
	r.at += int(n)
	return r.at - int(n), r.at
}

func (r *entryReader) str(shared bool) string {
	s, _ := r.strAt(shared)
	return s
}

// strAt reads a string and, when it is shared, its index in the interning
// table: two shared strings are equal exactly when their indexes are, but
// for a fact's entity, which the writer may write as a literal again
// (entryWriter.entity).
func (r *entryReader) strAt(shared bool) (string, uint64) {
	v := r.uvarint()
	if v&1 == 1 {
		if v>>1 >= uint64(len(r.intern)) {
			r.fail("unknown string %d", v>>1)
			return "", 0
		}
		return r.intern[v>>1], v >> 1
	}
	lo, hi := r.bytes(v >> 1)
	s := r.arena.add(r.p[lo:hi])
	if shared {
		if len(r.intern) == cap(r.intern) {
			r.intern = hugemem.Grow(r.intern) // read at random, once per record
		}
		r.intern = append(r.intern, s)
	}
	return s, uint64(len(r.intern) - 1)
}

// provSlot is one provenance read before, by the interning indexes of its
// fields (kind, origin, hyp, state) and decisions.
type provSlot struct {
	key  [4]uint64
	decs []uint64
	p    *objects.Provenance
}

// prov reads a provenance, the same pointer as an earlier record's when
// its fields repeat (the provenance cache is direct-mapped): the facts of
// one session share one Provenance, never written (DL-0352).
func (r *entryReader) prov() *objects.Provenance {
	var key [4]uint64
	var strs [4]string
	for i := range key {
		strs[i], key[i] = r.strAt(true)
	}
	n := r.uvarint()
	if n > uint64(len(r.p)-r.at) {
		r.fail("%d decisions", n)
		return nil
	}
	r.decIdx, r.decStr = r.decIdx[:0], r.decStr[:0]
	h := uint64(n)
	for _, k := range key {
		h = h*0x9E3779B97F4A7C15 + k
	}
	for range n {
		s, i := r.strAt(true)
		r.decIdx, r.decStr = append(r.decIdx, i), append(r.decStr, s)
		h = h*0x9E3779B97F4A7C15 + i
	}
	slot := &r.provs[(h^h>>29)%uint64(len(r.provs))]
	if slot.p != nil && slot.key == key && slices.Equal(slot.decs, r.decIdx) {
		return slot.p
	}
	p := &objects.Provenance{Kind: objects.ProvenanceKind(strs[0]), Origin: strs[1], Hyp: strs[2], State: objects.CitedState(strs[3])}
	if n > 0 {
		p.Decisions = slices.Clone(r.decStr)
	}
	*slot = provSlot{key: key, decs: slices.Clone(r.decIdx), p: p}
	return p
}

// decodeEntries reads the section's entries: its parts on every core at
// once (each reads its records, then the canonical bytes of every part are
// decoded in parallel).
func decodeEntries(p []byte) ([]world.Entry, error) {
	count, size, starts, err := entryParts(p)
	if err != nil {
		return nil, err
	}
	nparts := len(starts) - 1
	out := hugemem.Make[world.Entry](int(count))
	decs := make([]partDecode, nparts)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), int(nparts)) {
		wg.Go(func() {
			var rd partReader // one per worker: its tables, arena and slabs serve each part it reads
			for {
				k := int(next.Add(1) - 1)
				if k >= nparts {
					return
				}
				lo := uint64(k) * size
				hi := min(count, lo+size)
				decs[k].decode(&rd, p[:starts[k+1]], starts[k], out[lo:hi], int(lo))
			}
		})
	}
	wg.Wait()
	var canon []int // indexes of out whose spans follow
	var spans [][]byte
	for k := range decs {
		if decs[k].err != nil {
			return nil, decs[k].err
		}
		canon, spans = append(canon, decs[k].canon...), append(spans, decs[k].spans...)
	}
	return out, decodeParallel(out, canon, spans)
}

// entryParts reads the section's count and table of parts: the number
// of entries, the entries a part holds, and where each part starts, with
// where the last ends after them.
func entryParts(p []byte) (count, size uint64, starts []int, err error) {
	if len(p) < 24 {
		return 0, 0, nil, wfErr("short entries section")
	}
	count = binary.LittleEndian.Uint64(p)
	nparts := binary.LittleEndian.Uint64(p[len(p)-8:])
	size = binary.LittleEndian.Uint64(p[len(p)-16:])
	if count > uint64(len(p))/33 || size == 0 || nparts != (count+size-1)/size || nparts > uint64(len(p)-24)/8 {
		return 0, 0, nil, wfErr("%d entries in %d parts of %d in %d bytes", count, nparts, size, len(p))
	}
	end := len(p) - 16 - 8*int(nparts) // where the entries end and the table starts
	starts = make([]int, nparts+1)
	for k := range nparts {
		at := binary.LittleEndian.Uint64(p[end+8*int(k):])
		if at > uint64(end) || (k == 0 && at != 8) || (k > 0 && at <= uint64(starts[k-1])) {
			return 0, 0, nil, wfErr("part %d at %d", k, at)
		}
		starts[k] = int(at)
	}
	starts[nparts] = end
	if nparts == 0 && end != 8 {
		return 0, 0, nil, wfErr("%d bytes and no entries", end-8)
	}
	return count, size, starts, nil
}

// partDecode is what decoding one part gives: its canonical records, to
// decode after, or why it failed.
type partDecode struct {
	canon []int
	spans [][]byte
	err   error
}

// partReader is what reading parts one after another reuses: the
// reader's interning table, which a part starts afresh, and the string
// arena and record slabs, whose last chunk or block a part leaves partly
// filled for the next. A table made anew per part was 300 MB of garbage
// at 10M entries, which a load run uncollected (DL-0390) kept.
type partReader struct {
	r     entryReader
	facts slab[objects.Fact]
	ents  slab[objects.Entity]
}

// start readies rd for the part at p[at:].
func (rd *partReader) start(p []byte, at int) *entryReader {
	r := &rd.r
	r.p, r.at, r.err = p, at, nil
	r.intern = r.intern[:0] // the strings it held are the records' too

	r.provs = [len(r.provs)]provSlot{}
	return r
}

// decode reads the records of one part, p[at:], into out, whose first
// entry is the section's entry first.
func (d *partDecode) decode(rd *partReader, p []byte, at int, out []world.Entry, first int) {
	r := rd.start(p, at)
	facts, ents := &rd.facts, &rd.ents
	for i := range out {
		lo, _ := r.bytes(33)
		if r.err != nil {
			d.err = r.err
			return
		}
		copy(out[i].ID[:], p[lo:lo+32])
		switch p[lo+32] {
		case tagFact:
			f := facts.next()
			*f = objects.Fact{Entity: r.str(true), Key: r.str(true), Value: r.str(false), Provenance: r.prov()}
			out[i].Object = f
		case tagEntity:
			en := ents.next()
			*en = objects.Entity{Kind: objects.EntityKind(r.str(true)), Ident: r.str(true), Name: r.str(false), Provenance: r.prov()}
			out[i].Object = en
		case tagCanonical:
			lo, hi := r.bytes(r.uvarint())
			d.canon, d.spans = append(d.canon, first+i), append(d.spans, p[lo:hi])
		default:
			r.fail("entry %d: tag %d", first+i, p[lo+32])
		}
		if r.err != nil {
			d.err = r.err
			return
		}
	}
	if r.at != len(p) {
		d.err = wfErr("%d bytes after the last entry of a part", len(p)-r.at)
	}
}

// decodeParallel decodes spans[k] into out[canon[k]].Object over every
// core.
func decodeParallel(out []world.Entry, canon []int, spans [][]byte) error {
	workers := min(runtime.GOMAXPROCS(0), max(1, len(spans)/1024))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	chunk := (len(spans) + workers - 1) / workers
	for k := range workers {
		lo, hi := k*chunk, min(len(spans), (k+1)*chunk)
		wg.Go(func() {
			for j := lo; j < hi; j++ {
				o, err := objects.Decode(spans[j])
				if err != nil {
					errs[k] = wfErr("entry %s: %v", out[canon[j]].ID, err)
					return
				}
				out[canon[j]].Object = o
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// slab hands out the records of one kind from large blocks: a world file
// of 10M facts is 10M objects of the same size, which one allocation per
// block makes (and backs with huge pages, hugemem) far faster than one
// each. An object keeps its block alive, as the world keeps them all.
type slab[T any] struct {
	block []T
	size  int // of the last block: blocks double up to slabBlock
}

// slabBlock is the most objects a block holds.
const slabBlock = 1 << 18

func (s *slab[T]) next() *T {
	if len(s.block) == 0 {
		s.size = min(max(2*s.size, 64), slabBlock)
		s.block = hugemem.Make[T](s.size)
	}
	x := &s.block[0]
	s.block = s.block[1:]
	return x
}

// strArena holds the strings a world file's records decode to, copied
// into chunks that are written once and never moved, so that a string is
// a view of its chunk (no allocation of its own, no header beside it) and
// nothing else of the file stays alive under it.
type strArena struct {
	chunk []byte // the current chunk: written up to len, never past
}

// arenaChunk is the size of a chunk; a string longer than a quarter of it
// gets an allocation of its own instead.
const arenaChunk = 1 << 20

// add returns a string of b's bytes, held in the arena.
func (a *strArena) add(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > arenaChunk/4 {
		return string(b)
	}
	if cap(a.chunk)-len(a.chunk) < len(b) {
		a.chunk = make([]byte, 0, arenaChunk)
	}
	at := len(a.chunk)
	a.chunk = append(a.chunk, b...)
	return unsafe.String(&a.chunk[at], len(b)) // bytes at..at+len(b) are never written again
}
