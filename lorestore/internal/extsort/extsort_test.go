package extsort

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// rec is a record of variable length: a key and a few payload bytes.
type rec struct {
	key uint32
	pay []byte
}

var codec = Codec[rec]{
	Encode: func(dst []byte, r *rec) []byte {
		dst = binary.BigEndian.AppendUint32(dst, r.key)
		dst = append(dst, byte(len(r.pay)))
		return append(dst, r.pay...)
	},
	Decode: func(br *bufio.Reader, r *rec) error {
		var h [5]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			return err
		}
		r.key = binary.BigEndian.Uint32(h[:])
		r.pay = make([]byte, h[4])
		_, err := io.ReadFull(br, r.pay)
		return err
	},
}

func byKey(a, b rec) int { return cmp.Compare(a.key, b.key) }

func TestSorter(t *testing.T) {
	tests := []struct {
		name   string
		n, run int
	}{
		{"empty", 0, 10},
		{"one-run", 1000, 5000},
		{"exact-runs", 1000, 100},
		{"ragged-runs", 1003, 7},
		{"run-of-one", 50, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var files []string
			s := New(tc.run, byKey, codec, func() (*os.File, error) {
				f, err := os.CreateTemp(t.TempDir(), "run")
				if f != nil {
					files = append(files, f.Name())
				}
				return f, err
			})
			r := rand.New(rand.NewPCG(uint64(tc.n), 9))
			var want []uint32
			for range tc.n {
				k := r.Uint32N(500) // many equal keys
				want = append(want, k)
				if err := s.Add(rec{key: k, pay: make([]byte, k%7)}); err != nil {
					t.Fatal(err)
				}
			}
			slices.Sort(want)
			for pass := range 2 { // Each may walk again
				var got []uint32
				err := s.Each(func(x *rec) error {
					if len(x.pay) != int(x.key%7) {
						t.Fatalf("record %d came back with %d payload bytes", x.key, len(x.pay))
					}
					got = append(got, x.key)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("pass %d: %d records out of order or lost", pass, len(got))
				}
			}
			stop := errors.New("stop")
			if tc.n > 0 {
				if err := s.Each(func(*rec) error { return stop }); !errors.Is(err, stop) {
					t.Fatalf("Each returned %v, want the callback's error", err)
				}
			}
			if s.Len() != tc.n {
				t.Fatalf("Len %d, want %d", s.Len(), tc.n)
			}
			s.Close()
			for _, f := range files {
				if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("run file %s left after Close", f)
				}
			}
			if wantFile := tc.n > tc.run || tc.n == tc.run && tc.n > 0; (len(files) > 0) != wantFile {
				t.Fatalf("%d run files for %d records in runs of %d", len(files), tc.n, tc.run)
			}
		})
	}
}

// TestSorterWriteError: a run that cannot be written (its file refuses
// writes) fails the sorter, at the next Add that fills a run or at Each,
// since runs are written behind the caller; once failed it stays failed,
// and Close still removes the file.
func TestSorterWriteError(t *testing.T) {
	for _, n := range []int{10, 15, 20, 35} {
		var name string
		s := New(10, byKey, codec, func() (*os.File, error) {
			f, err := os.CreateTemp(t.TempDir(), "run")
			if err != nil {
				return nil, err
			}
			name = f.Name()
			f.Close()
			return os.Open(name) // read-only: every write fails
		})
		var err error
		added := 0
		for i := range n {
			if err = s.Add(rec{key: uint32(i)}); err != nil {
				break
			}
			added++
		}
		if err == nil {
			err = s.Each(func(*rec) error { return nil })
		}
		if err == nil || !strings.Contains(err.Error(), "extsort: write run") {
			t.Fatalf("%d records in runs of 10: error %v, want the run's write error", n, err)
		}
		if n > 20 && added > 20 {
			t.Fatalf("%d records: %d added after the first run failed, want the failure by the second run's end", n, added)
		}
		if again := s.Add(rec{}); again == nil {
			t.Fatalf("%d records: an Add after the failure succeeded", n)
		}
		s.Close()
		if _, err := os.Stat(name); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%d records: run file left after Close: %v", n, err)
		}
	}
}
