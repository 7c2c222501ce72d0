package author

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/deloreis/deloreis/datalog"
	"github.com/zeebo/xxh3"
)

// TestWorldFileChecksum: the body checksum, taken in two parts (the
// entries and index beside the compiled section's writing, then the
// rest), is the checksum of the whole body as written, with no compiled
// section, a refused one, and one written in one piece or in many; a
// compiled section that fails fails the write.
func TestWorldFileChecksum(t *testing.T) {
	_, _, w, hd, _ := fileFixture(t, 300)
	payload := bytes.Repeat([]byte("snapshot-bytes-"), 70_001) // past the writer's buffer
	cases := []struct {
		name     string
		compiled func(io.Writer) error
		want     int // the compiled section's payload length
		err      bool
	}{
		{"none", nil, 0, false},
		{"refused", func(io.Writer) error { return datalog.ErrNoSnapshot }, 0, false},
		{"one write", func(o io.Writer) error { _, err := o.Write(payload[:5]); return err }, 5, false},
		{"many writes", func(o io.Writer) error {
			for i := 0; i < len(payload); i += 4093 {
				if _, err := o.Write(payload[i:min(i+4093, len(payload))]); err != nil {
					return err
				}
			}
			return nil
		}, len(payload), false},
		{"failed", func(o io.Writer) error { o.Write(payload[:100]); return errors.New("compile failed") }, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := os.CreateTemp(t.TempDir(), "world")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			err = encodeWorldFile(f, hd, w.Objects(), c.compiled, nil)
			if c.err {
				if err == nil {
					t.Fatal("a failed compiled section did not fail the write")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(f.Name())
			if err != nil {
				t.Fatal(err)
			}
			body := b[bodyAt(b):]
			if n := binary.LittleEndian.Uint64(b[wfFixed-wfSumSize-8:]); n != uint64(len(body)) {
				t.Fatalf("body length %d in the header, %d written", n, len(body))
			}
			if sum := xxh3.Hash128(body).Bytes(); !bytes.Equal(b[wfFixed-wfSumSize:wfFixed], sum[:]) {
				t.Fatal("the header's checksum is not the body's")
			}
			if got := compiledSection(b); len(got) != c.want || (c.want > 0 && !bytes.Equal(got, payload[:c.want])) {
				t.Fatalf("compiled section of %d bytes, want %d", len(got), c.want)
			}
			if _, err := locateWorldFile(b, hd); err != nil {
				t.Fatal(err)
			}
		})
	}
}
