// Garbage: files in objects/ and objects/pack that no reader uses — the
// temporary files of a writer that was killed, and a pack whose index
// never came (a crash between the two renames). Real git ignores both;
// Open removes them once old enough that no live writer can own them.
// fsck lists them and gc removes them at once (DL-0438).

package odb

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Garbage is one such file.
type Garbage struct {
	Path string // relative to the repository: objects/pack/tmp_pack_dlr_…
	Size int64
	Why  string
}

// GarbageAge is how old a file must be before fsck names it and gc
// removes it: a writer creates its temporary file and takes its flock in
// one step, and renames a pack's index microseconds after the pack.
const GarbageAge = 10 * time.Second

// Garbage lists the garbage files older than minAge that no live writer
// holds, sorted by path.
func (db *DB) Garbage(minAge time.Duration) ([]Garbage, error) {
	var out []Garbage
	for _, dir := range []string{db.packDir, db.objDir} {
		gs, err := garbageIn(filepath.Dir(db.objDir), dir, minAge, minAge)
		if err != nil {
			return nil, err
		}
		out = append(out, gs...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// RemoveGarbage removes what Garbage lists, under the packs lock so that
// no writer publishes a pack meanwhile, and returns what it removed.
func (db *DB) RemoveGarbage(minAge time.Duration) ([]Garbage, error) {
	unlock, err := db.lockPacks()
	if err != nil {
		return nil, err
	}
	defer unlock()
	gs, err := db.Garbage(minAge)
	if err != nil {
		return nil, err
	}
	root := filepath.Dir(db.objDir)
	removed := gs[:0]
	for _, g := range gs {
		if err := os.Remove(filepath.Join(root, g.Path)); err != nil && !os.IsNotExist(err) {
			return removed, err
		}
		removed = append(removed, g)
	}
	return removed, nil
}

// garbageIn lists the garbage of dir, a folder under the repository root
// root: temporary files older than tmpAge and index-less packs older than
// packAge. Only those candidates are stat'ed: every command opens the
// store (removeStale), and objects/ may hold hundreds of loose-object
// folders.
func garbageIn(root, dir string, tmpAge, packAge time.Duration) ([]Garbage, error) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	have := make(map[string]bool, len(ents))
	for _, e := range ents {
		have[e.Name()] = true
	}
	now := time.Now()
	var out []Garbage
	for _, e := range ents {
		n := e.Name()
		var why string
		temporary := strings.HasPrefix(n, tmpPackPrefix) || strings.HasPrefix(n, tmpIdxPrefix)
		switch {
		case temporary:
			why = "a temporary file of a writer that did not finish"
		case strings.HasPrefix(n, "pack-") && strings.HasSuffix(n, ".pack"):
			stem := strings.TrimSuffix(n, ".pack")
			if have[stem+".idx"] || have[stem+".keep"] {
				continue
			}
			why = "a pack without its index"
		default:
			continue
		}
		minAge := packAge
		if temporary {
			minAge = tmpAge
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < minAge {
			continue
		}
		path := filepath.Join(dir, n)
		if temporary && lockedByWriter(path) {
			continue
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return nil, err
		}
		out = append(out, Garbage{Path: filepath.ToSlash(rel), Size: info.Size(), Why: why})
	}
	return out, nil
}
