package odb

// An Arena hands out byte slices carved from large blocks, for data that
// lives until the arena is reset: the objects of one window of a sweep,
// each decoded before the next window is read (DL-0405). Made one by one,
// a 10M-object first compile's objects were 2.1 GB of small allocations,
// all garbage a window later, which the collector was paced by. An Arena
// is used by one goroutine at a time.
type Arena struct {
	blocks [][]byte
	cur    int // the block being carved
	used   int // how much of it is handed out
}

// arenaBlock is the size of an arena's blocks; arenaMost the largest
// slice carved from one (a larger one is made on its own).
const (
	arenaBlock = 1 << 20
	arenaMost  = arenaBlock / 16
)

// take returns n bytes of the arena, their contents unspecified.
func (a *Arena) take(n uint64) []byte {
	if n > arenaMost {
		return make([]byte, n)
	}
	if len(a.blocks) == 0 || a.used+int(n) > arenaBlock {
		if len(a.blocks) > 0 {
			a.cur++
		}
		if a.cur == len(a.blocks) {
			a.blocks = append(a.blocks, make([]byte, arenaBlock))
		}
		a.used = 0
	}
	b := a.blocks[a.cur][a.used : a.used+int(n) : a.used+int(n)]
	a.used += int(n)
	return b
}

// Reset makes every block free for reuse: nothing taken before may be
// read after.
func (a *Arena) Reset() {
	a.cur, a.used = 0, 0
}
