// Git tree and commit objects: encoding, strict decoding, and the name rules
// that keep real git's fsck --strict happy (sorted, unique, safe names).

package lorestore

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Git file modes the lorestore writes. Reading tolerates the others git knows.
const (
	modeBlob uint32 = 0o100644
	modeTree uint32 = 0o40000
)

// treeEntry is one line of a git tree.
type treeEntry struct {
	name string
	mode uint32
	hash Hash
}

func (e treeEntry) isTree() bool { return e.mode == modeTree }

// gitLess orders tree entries the way git does: by name bytes, with a tree's
// name compared as if it ended in '/'.
func gitLess(a, b treeEntry) bool {
	an, bn := a.name, b.name
	n := min(len(an), len(bn))
	if c := strings.Compare(an[:n], bn[:n]); c != 0 {
		return c < 0
	}
	ac, bc := byte(0), byte(0)
	if len(an) > n {
		ac = an[n]
	} else if a.isTree() {
		ac = '/'
	}
	if len(bn) > n {
		bc = bn[n]
	} else if b.isTree() {
		bc = '/'
	}
	return ac < bc
}

func sortEntries(es []treeEntry) {
	sort.Slice(es, func(i, j int) bool { return gitLess(es[i], es[j]) })
}

// checkEntryName refuses names git would reject or that could escape the
// tree: empty, ".", "..", ".git", or holding '/' or NUL.
func checkEntryName(name string) error {
	switch {
	case name == "", name == ".", name == "..", strings.EqualFold(name, ".git"):
		return fmt.Errorf("lorestore: tree entry name %q is not allowed", name)
	case strings.ContainsAny(name, "/\x00"):
		return fmt.Errorf("lorestore: tree entry name %q holds '/' or NUL", name)
	}
	return nil
}

// encodeTree writes sorted, unique entries in git's tree format. The entries
// must already be sorted; a duplicate name is refused (go-git's encoder
// accepts them, git fsck does not).
func encodeTree(es []treeEntry) ([]byte, error) {
	size := 0
	for _, e := range es {
		size += len(e.name) + 28
	}
	buf := make([]byte, 0, size)
	for i, e := range es {
		if err := checkEntryName(e.name); err != nil {
			return nil, err
		}
		if i > 0 && !gitLess(es[i-1], e) {
			return nil, fmt.Errorf("lorestore: tree entries out of order or duplicated at %q", e.name)
		}
		buf = strconv.AppendUint(buf, uint64(e.mode), 8)
		buf = append(buf, ' ')
		buf = append(buf, e.name...)
		buf = append(buf, 0)
		buf = append(buf, e.hash[:]...)
	}
	return buf, nil
}

// decodeTree parses a git tree.
func decodeTree(data []byte) ([]treeEntry, error) {
	return collectTree(data, func(mode uint32, name, hash []byte) treeEntry {
		e := treeEntry{name: string(name), mode: mode}
		copy(e.hash[:], hash)
		return e
	})
}

// collectTree parses a tree's entries into a slice, each made by mk from
// the entry's mode and its name and hash as slices of data.
func collectTree[E any](data []byte, mk func(mode uint32, name, hash []byte) E) ([]E, error) {
	// Every entry ends its name with a NUL (hashes hold a few more).
	es := make([]E, 0, bytes.Count(data, []byte{0}))
	err := eachTreeEntry(data, func(mode uint32, name, hash []byte) error {
		es = append(es, mk(mode, name, hash))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return es, nil
}

// eachTreeEntry parses a tree object's entries in order and hands each to
// fn, its name and hash as slices of data (nothing is allocated). It stops
// at fn's first error, or at the first malformed entry. It is the one
// parser of trees: decodeTree and parseRawTree collect what it hands out.
func eachTreeEntry(data []byte, fn func(mode uint32, name, hash []byte) error) error {
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp <= 0 {
			return errors.New("lorestore: malformed tree entry mode")
		}
		mode, ok := parseMode(data[:sp])
		if !ok {
			return fmt.Errorf("lorestore: malformed tree entry mode %q", data[:sp])
		}
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		if nul < 0 || len(data) < nul+1+20 {
			return errors.New("lorestore: truncated tree entry")
		}
		if err := fn(mode, data[:nul], data[nul+1:nul+21]); err != nil {
			return err
		}
		data = data[nul+21:]
	}
	return nil
}

// Signature names who made a commit and when.
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

func (s Signature) check() error {
	if s.Name == "" || strings.ContainsAny(s.Name, "<>\n\x00") || strings.TrimSpace(s.Name) != s.Name {
		return fmt.Errorf("lorestore: signature name %q is not usable in a commit", s.Name)
	}
	if strings.ContainsAny(s.Email, "<>\n\x00 ") {
		return fmt.Errorf("lorestore: signature email %q is not usable in a commit", s.Email)
	}
	return nil
}

func (s Signature) append(buf []byte) []byte {
	buf = append(buf, s.Name...)
	buf = append(buf, " <"...)
	buf = append(buf, s.Email...)
	buf = append(buf, "> "...)
	buf = strconv.AppendInt(buf, s.When.Unix(), 10)
	_, off := s.When.Zone()
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Appendf(append(buf, ' ', sign), "%02d%02d", off/3600, (off%3600)/60)
}

func parseSignature(line string) (Signature, error) {
	lt, gt := strings.IndexByte(line, '<'), strings.LastIndexByte(line, '>')
	if lt < 0 || gt < lt {
		return Signature{}, fmt.Errorf("lorestore: malformed signature %q", line)
	}
	s := Signature{Name: strings.TrimSpace(line[:lt]), Email: line[lt+1 : gt]}
	f := strings.Fields(line[gt+1:])
	if len(f) == 2 {
		sec, err1 := strconv.ParseInt(f[0], 10, 64)
		tz, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil && len(f[1]) == 5 {
			off := (tz/100)*3600 + (tz%100)*60
			if f[1][0] == '-' {
				off = -((-tz)/100*3600 + ((-tz)%100)*60)
			}
			s.When = time.Unix(sec, 0).In(time.FixedZone("", off))
		}
	}
	return s, nil
}

// gitCommit is a parsed git commit.
type gitCommit struct {
	tree      Hash
	parents   []Hash
	author    Signature
	committer Signature
	message   string
}

func encodeCommit(c *gitCommit) []byte {
	buf := make([]byte, 0, 256+len(c.message))
	buf = append(buf, "tree "...)
	buf = append(buf, c.tree.String()...)
	buf = append(buf, '\n')
	for _, p := range c.parents {
		buf = append(buf, "parent "...)
		buf = append(buf, p.String()...)
		buf = append(buf, '\n')
	}
	buf = append(buf, "author "...)
	buf = c.author.append(buf)
	buf = append(buf, "\ncommitter "...)
	buf = c.committer.append(buf)
	buf = append(buf, "\n\n"...)
	return append(buf, c.message...)
}

// decodeCommit parses a commit, tolerating the headers real git may add
// (encoding, gpgsig, mergetag) and their continuation lines.
func decodeCommit(data []byte) (*gitCommit, error) {
	c := &gitCommit{}
	text := string(data)
	head, msg, ok := strings.Cut(text, "\n\n")
	if !ok {
		head, msg = strings.TrimSuffix(text, "\n"), ""
	}
	c.message = msg
	sawTree := false
	for line := range strings.SplitSeq(head, "\n") {
		if strings.HasPrefix(line, " ") {
			continue // continuation of a multi-line header
		}
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "tree":
			h, err := parseHash(val)
			if err != nil {
				return nil, err
			}
			c.tree, sawTree = h, true
		case "parent":
			h, err := parseHash(val)
			if err != nil {
				return nil, err
			}
			c.parents = append(c.parents, h)
		case "author":
			s, err := parseSignature(val)
			if err != nil {
				return nil, err
			}
			c.author = s
		case "committer":
			s, err := parseSignature(val)
			if err != nil {
				return nil, err
			}
			c.committer = s
		}
	}
	if !sawTree {
		return nil, errors.New("lorestore: commit has no tree")
	}
	return c, nil
}

// parseHash reads exactly 40 lowercase hex digits.
func parseHash(s string) (Hash, error) {
	var h Hash
	if len(s) != 40 {
		return h, fmt.Errorf("lorestore: %q is not a 40-digit object name", s)
	}
	for i := 0; i < 40; i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return h, fmt.Errorf("lorestore: %q is not a 40-digit object name", s)
		}
	}
	return NewHash(s), nil
}
