// The world file's entries handed to the compile beside its writer
// (DL-0532): once the writer has written the entries and their index, it
// maps them back and opens them as a lazy base, and a first compile whose
// program is lowered moves its world onto that base, letting go of the
// decoded entries before the evaluation, whose peak they would raise.

package author

import (
	"encoding/binary"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/deloreis/deloreis/base/gcphase"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// compileAtWith compiles one scope of the snapshot at a commit, with the
// dialects the project configures (CompileAt, for the service's worlds),
// and the hooks of the world file written beside it.
func compileAtWith(s *lorestore.Store, commit lorestore.Hash, scope string, dialects []*objects.Dialect, beside fileBeside) (*world.World, error) {
	sn, err := s.SnapshotAt(commit)
	if err != nil {
		return nil, err
	}
	base, err := LoadScope(sn, scope)
	if err != nil {
		return nil, err
	}
	in := world.Input{Scope: scope, Base: base, Dialects: dialects, Owned: true, Indexed: beside.indexed}
	if beside.rebase != nil && len(base) >= rebaseMin {
		// Until the world is moved onto its file, its decoded entries are
		// live beside the program being lowered: the compile's peak, paced
		// within loweringHeadroom. Once moved, they are garbage: one
		// collection then, of what the world still holds, paces the
		// evaluation from that.
		narrowed := gcphase.BuildingWithin(loweringHeadroom)
		defer narrowed()
		in.Rebase = func(n int) (world.EntryBase, func(bool)) {
			b, done := beside.rebase(n)
			if b == nil {
				narrowed()
				return nil, nil
			}
			return b, func(taken bool) {
				done(taken)
				if taken {
					runtime.GC()
				}
				narrowed()
			}
		}
	}
	return world.Compile(in)
}

// loweringHeadroom is the least headroom (gcphase.BuildingWithin) of a
// compile while its decoded entries are live beside its lowering.
var loweringHeadroom uint64 = 512 << 20

// rebaseMin is the fewest entries a world is moved onto its file for:
// below it the decoded entries cost little and the compile would wait on
// the writer for nothing. Tests lower it.
var rebaseMin = 1 << 20

// baseOffer is the base one writer offers one compile: given once (the
// first give wins), taken once.
type baseOffer struct {
	once      sync.Once
	ch        chan offered
	taken     atomic.Bool
	scheduled atomic.Bool // a writer was asked for the file: an offer will come
}

// offered is a base and what to do with it once the compile is done: a
// base not taken is unmapped.
type offered struct {
	base world.EntryBase
	done func(taken bool)
}

func newBaseOffer() *baseOffer { return &baseOffer{ch: make(chan offered, 1)} }

// give offers b, or nothing (b.base nil); a later give is dropped, its
// base released.
func (o *baseOffer) give(b offered) {
	given := false
	o.once.Do(func() { o.ch <- b; given = true })
	if !given && b.done != nil {
		b.done(false)
	}
}

// take waits for the writer's offer, for a world of n entries: a base,
// or nil when there is none (a small world, a write coalesced or failed).
func (o *baseOffer) take(n int) (world.EntryBase, func(bool)) {
	if !o.taken.CompareAndSwap(false, true) {
		return nil, nil
	}
	if n < rebaseMin {
		go o.drop() // the writer may still offer one: release it then
		return nil, nil
	}
	b := <-o.ch
	return b.base, b.done
}

// drop releases the offer when the compile never took it (it failed
// before its program was lowered).
func (o *baseOffer) drop() {
	b := <-o.ch
	if b.done != nil {
		b.done(false)
	}
}

// finish is called once the compile is over: an offer it did not take is
// released when it comes (none comes when the compile failed before its
// writer was asked for the file).
func (o *baseOffer) finish() {
	if o.taken.CompareAndSwap(false, true) && o.scheduled.Load() {
		go o.drop()
	}
}

// span is a section's payload within a file.
type span struct{ at, len int64 }

// offerFile is the writer's step once f holds the entries section and
// its index (written and flushed): it maps them back and offers them as
// a base (openWrittenBase). The mapping is kept for the process's life
// when the world takes it (keepMapping's budget), and unmapped otherwise.
func (o *baseOffer) offerFile(f *os.File, count uint64, entries, index span, notes scanNotes) {
	if count < uint64(rebaseMin) {
		o.give(offered{})
		return
	}
	size := int(index.at + index.len)
	if !keepMapping(size) {
		o.give(offered{})
		return
	}
	data, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		unkeepMapping(size)
		o.give(offered{})
		return
	}
	release := func(taken bool) {
		if !taken {
			unix.Munmap(data)
			unkeepMapping(size)
		}
	}
	fb, err := openWrittenBase(data[entries.at:entries.at+entries.len], data[index.at:index.at+index.len], notes)
	if err != nil || uint64(fb.Len()) != count {
		release(false)
		o.give(offered{})
		return
	}
	o.give(offered{base: fb, done: release})
}

// openWrittenBase opens the entries section p with its index section,
// both of which this process's writer has just written, the index from a
// scan of p (writeIndexOf) that noted notes: the columns are read in
// place and held to the notes (checkIndex), and the entries are not
// scanned again. A file opened from the disk is held to a scan
// (openFileBase); this one was made by one.
func openWrittenBase(p, index []byte, notes scanNotes) (*fileBase, error) {
	b, err := newFileBase(p, true)
	if err != nil {
		return nil, err
	}
	if err := b.readIndex(index); err != nil {
		return nil, err
	}
	if err := b.checkIndex(notes.sum, notes.nents); err != nil {
		return nil, err
	}
	b.keyed = notes.keyed
	return b, nil
}

// sectionLen is the payload length a section header gives.
func sectionLen(head []byte) int64 { return int64(binary.LittleEndian.Uint64(head[8:])) }
