package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// showListed prints a commit the way show did before it streamed: every
// change and object collected first, then printed (the JSON through
// writeJSON as one value). It is the oracle of TestShowStreamsAsListed.
func showListed(w io.Writer, s *lorestore.Store, rev string, f *showFlags) error {
	h, err := s.Resolve(rev)
	if err != nil {
		return err
	}
	entries, err := s.Log(lorestore.LogOptions{From: h.String(), Limit: 1})
	if err != nil {
		return err
	}
	e := entries[0]
	changes, err := s.Changes(h)
	if err != nil {
		return err
	}
	objs := make([]objects.Object, len(changes))
	for i, c := range changes {
		if objs[i], err = s.ChangeObject(c); err != nil {
			return err
		}
	}
	dke, err := s.DKEChanges(h)
	if err != nil {
		return err
	}
	if f.format == "json" {
		c := entryJSON(e)
		for i, ch := range changes {
			data, err := objects.Canonical(objs[i])
			if err != nil {
				return err
			}
			c.Changes = append(c.Changes, changeJSON{ch.Scope, string(ch.Kind), ch.ID.String(), ch.Removed, data})
		}
		for _, d := range dke {
			j := dkeJSON{Store: d.Store, Module: d.Module, Kind: d.Kind, Removed: d.Removed, Replaced: d.Replaced}
			if d.Module == "" {
				j.ID = d.ID.String()
			}
			c.DKE = append(c.DKE, j)
		}
		return writeJSON(w, c)
	}
	for _, l := range fullEntry(e) {
		fmt.Fprintln(w, l)
	}
	if len(changes) > 0 || len(dke) > 0 {
		fmt.Fprintln(w)
	}
	scope := ""
	for i, c := range changes {
		sign := changeSign(c)
		if f.nameOnly {
			fmt.Fprintf(w, "%s %s/%s/%s\n", sign, c.Scope, c.Kind, c.ID)
			continue
		}
		if c.Scope != scope {
			scope = c.Scope
			fmt.Fprintf(w, "  scope %s\n", scope)
		}
		for _, l := range dli.RenderDecl(objs[i]) {
			fmt.Fprintf(w, "%s %s\n", sign, l)
		}
	}
	showDKE(w, dke)
	return nil
}

// TestShowStreamsAsListed: show prints, byte for byte, what listing the
// changes first printed, for commits with many changes in two scopes
// (several of ShowChanges' batches), removals, values JSON would escape,
// DKE changes alone, beside scope changes, and no changes at all.
func TestShowStreamsAsListed(t *testing.T) {
	dir := t.TempDir()
	s, err := lorestore.Init(dir, lorestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fact := func(i int) *objects.Fact {
		return &objects.Fact{Entity: fmt.Sprintf("knight-%d", i%31), Key: "deed",
			Value: fmt.Sprintf("<slew> & \"took\" ø %d\u2028", i), Provenance: objects.Proposed("session-7c9")}
	}
	commit := func(msg string, fill func(b *lorestore.Batch) error) {
		b := lorestore.NewBatch()
		if err := fill(b); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Commit(b, lorestore.NewMessage(msg, "materialize", "camelot"), lorestore.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	put := func(b *lorestore.Batch, from, to int, scopes ...string) error {
		for i := from; i < to; i++ {
			for _, sc := range scopes {
				if _, err := b.Put(sc, fact(i)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	commit("many", func(b *lorestore.Batch) error { return put(b, 0, 700, "camelot", "logres") })
	commit("dke only", func(b *lorestore.Batch) error {
		return b.PutModule("default", "inventory", []byte(`{"name":"inventory","source":"a"}`))
	})
	commit("some out, more in, dke", func(b *lorestore.Batch) error {
		for i := 0; i < 700; i += 3 {
			id, err := fact(i).ID()
			if err != nil {
				return err
			}
			if err := b.Remove(fmt.Sprintf("scopes/logres/claims/%s/%s.json", id.String()[:2], id)); err != nil {
				return err
			}
		}
		if err := b.PutModule("default", "inventory", []byte(`{"name":"inventory","source":"b"}`)); err != nil {
			return err
		}
		return put(b, 700, 760, "camelot")
	})
	for _, rev := range []string{"main", "main~1", "main~2", "main~3"} {
		for _, f := range []showFlags{{format: "text"}, {format: "text", nameOnly: true}, {format: "json"}, {format: "json", nameOnly: true}} {
			var got, want bytes.Buffer
			if err := showListed(&want, s, rev, &f); err != nil {
				t.Fatal(err)
			}
			if err := show(&got, s, rev, &f); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("show %s %+v: %d bytes differ from the listed %d\n%.2000s", rev, f, got.Len(), want.Len(), got.String())
			}
		}
	}
}

// TestShowJSONIndent: the indentation show adds to an object's canonical
// JSON is json.Indent's, byte for byte.
func TestShowJSONIndent(t *testing.T) {
	for _, src := range []string{
		`{}`, `[]`, `{"a":{}}`, `{"a":[]}`, `[[],{},[[]]]`, `"x"`, `12`, `null`,
		`{"a":1,"b":[1,2,{"c":"d"}],"e":{"f":[true,false,null]}}`,
		`{"q\"uo\\te":"\\\"","u":"\u2028 ø <&>","n":-1.5e+300,"k:,{}":"[,]"}`,
		`[{"a":[{"b":[{}]}]},"\\"]`,
	} {
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(src), "      ", "  "); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		got, err := appendIndented([]byte("x"), []byte(src), "\n      ")
		if err != nil || string(got) != "x"+want.String() {
			t.Errorf("%s: got %q (%v)\nwant %q", src, got, err, want.String())
		}
	}
	if _, err := appendIndented(nil, []byte(`{"a":"b`), "\n"); err == nil {
		t.Error("an unterminated string was indented")
	}
}
