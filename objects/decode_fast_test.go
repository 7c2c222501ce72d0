// This file tests Decode's fast path against the general decoder: which
// inputs it takes, that what it accepts the general decoder accepts and
// builds the same, that Decode's errors are the general decoder's, over a
// table of canonical and near-canonical inputs, mutations of random
// objects and strings at the edges of the id and text rules.

package objects

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// testDecoder returns a fresh decoder over data, outside the pool.
func testDecoder(data []byte) *decoder {
	d := &decoder{data: data, cache: new(internCache)}
	d.path = d.stack[:0]
	return d
}

// decodeGeneralOnly decodes data with the general decoder alone.
func decodeGeneralOnly(data []byte) (Object, error) {
	return testDecoder(data).decodeGeneral()
}

// agree checks that the fast path accepts only what the general decoder
// accepts, building the same object, and that Decode returns what the
// general decoder returns. It reports whether the fast path took data.
func agree(t *testing.T, data []byte) bool {
	t.Helper()
	fast, ok := testDecoder(data).decodeFast()
	want, wantErr := decodeGeneralOnly(data)
	if ok && (wantErr != nil || !reflect.DeepEqual(fast, want)) {
		t.Errorf("fast path accepted %q as %#v; the general decoder gives %#v, %v", data, fast, want, wantErr)
	}
	got, err := Decode(data)
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(err, wantErr) {
		t.Errorf("Decode(%q) = %#v, %v; the general decoder gives %#v, %v", data, got, err, want, wantErr)
	}
	return ok
}

// Canonical provenances, for the table.
const (
	provProposed = `{"kind":"proposed","origin":"s"}`
	provCited    = `{"decisions":["d-1","d-2"],"kind":"cited","state":"ratified"}`
	provHyp      = `{"hyp":"h","kind":"hypothesis"}`
)

// factWithProv is fact with its provenance replaced by prov.
func factWithProv(prov string) string { return withFact(provProposed, prov) }

var fastPathCases = []struct {
	name string
	in   string
	fast bool // whether the fast path takes it
}{
	// Canonical flat records: the fast path's.
	{"fact proposed", fact, true},
	{"fact cited", factWithProv(provCited), true},
	{"fact hypothesis", factWithProv(provHyp), true},
	{"cited set unsorted with repeats", factWithProv(`{"decisions":["d-2","d-1","d-2"],"kind":"cited","state":"provisional"}`), true},
	{"entity", `{"id":"p-1","kind":"person","name":"Person 1","provenance":` + provProposed + `,"type":"entity"}`, true},
	{"relation", `{"from":"a","provenance":` + provCited + `,"relation":"r","to":"b","type":"relation"}`, true},
	{"event", `{"era":"e","id":"ev","provenance":` + provHyp + `,"type":"event"}`, true},
	{"before", `{"earlier":"a","later":"b","provenance":` + provProposed + `,"type":"before"}`, true},
	{"functional", `{"pred":"p","provenance":` + provProposed + `,"type":"functional"}`, true},
	{"inertial", `{"pred":"p","provenance":` + provProposed + `,"type":"inertial"}`, true},
	{"same_as", `{"left":"a","provenance":` + provProposed + `,"right":"b","type":"same_as"}`, true},
	{"predicate_same_as", `{"left":"a","provenance":` + provProposed + `,"right":"b","type":"predicate_same_as"}`, true},
	{"state with bounds", `{"entity":"e","key":"k","provenance":` + provProposed + `,"since":"a","type":"state","until":"b","value":"v"}`, true},
	{"state without bounds", `{"entity":"e","key":"k","provenance":` + provProposed + `,"type":"state","value":"v"}`, true},
	{"decision", `{"id":"d","provenance":` + provProposed + `,"rationale":"because","type":"decision"}`, true},
	{"decision bare", `{"id":"d","type":"decision"}`, true},
	{"hypothesis", `{"id":"h","statement":"it rains","type":"hypothesis"}`, true},
	{"word", `{"dialect":"d","form":"ka","gloss":"water","provenance":` + provProposed + `,"type":"word"}`, true},
	{"non-ASCII text", withFact(`"value":"v"`, `"value":"é 日本"`), true},
	{"non-ASCII id", withFact(`"mireth"`, `"mïreth"`), true},
	{"combining mark id", withFact(`"mireth"`, "\"mire\u0301th\""), true},
	{"quote-free punctuation", withFact(`"value":"v"`, `"value":"a, b: {c} [d]"`), true},

	// Near-canonical input: the general decoder's, accepted or refused.
	{"reordered keys", `{"type":"fact","entity":"mireth","key":"tongue","provenance":` + provProposed + `,"value":"v"}`, false},
	{"reordered provenance", factWithProv(`{"origin":"s","kind":"proposed"}`), false},
	{"reordered cited", factWithProv(`{"kind":"cited","decisions":["d"],"state":"ratified"}`), false},
	{"escaped value", withFact(`"value":"v"`, `"value":"\u0076"`), false},
	{"escaped quote", withFact(`"value":"v"`, `"value":"a\"b"`), false},
	{"escaped key", withFact(`"key"`, `"k\u0065y"`), false},
	{"escaped origin", withFact(`"origin":"s"`, `"origin":"\u0073"`), false},
	{"space after brace", " " + fact, false},
	{"space inside", withFact(`"key":`, `"key": `), false},
	{"space in provenance", factWithProv(`{"kind": "proposed","origin":"s"}`), false},
	{"trailing newline", fact + "\n", false},
	{"trailing data", fact + "{}", false},
	{"duplicate key", withFact(`"key"`, `"entity":"x","key"`), false},
	{"duplicate adjacent", withFact(`"key"`, `"entity":"mireth","entity":"mireth","key"`), false},
	{"duplicate in provenance", factWithProv(`{"kind":"proposed","origin":"s","origin":"s"}`), false},
	{"unknown field", withFact(`"key"`, `"colour":"red","key"`), false},
	{"unknown sorted field", withFact(`"type"`, `"size":"big","type"`), false},
	{"field of another type", withFact(`"type"`, `"since":"e","type"`), false},
	{"missing field", `{"entity":"mireth","key":"tongue","provenance":` + provProposed + `,"type":"fact"}`, false},
	{"missing provenance", `{"entity":"mireth","key":"tongue","type":"fact","value":"v"}`, false},
	{"unknown type", withFact(`"fact"`, `"fict"`), false},
	{"type not a string", withFact(`"fact"`, `7`), false},
	{"number for string", withFact(`"mireth"`, `5`), false},
	{"null for string", withFact(`"mireth"`, `null`), false},
	{"unknown provenance kind", factWithProv(`{"kind":"guessed","origin":"s"}`), false},
	{"proposed with hyp", factWithProv(`{"hyp":"h","kind":"proposed","origin":"s"}`), false},
	{"proposed without origin", factWithProv(`{"kind":"proposed"}`), false},
	{"empty provenance", factWithProv(`{}`), false},
	{"empty decisions", factWithProv(`{"decisions":[],"kind":"cited","state":"ratified"}`), false},
	{"bad cited state", factWithProv(`{"decisions":["d"],"kind":"cited","state":"final"}`), false},
	{"bad decision id", factWithProv(`{"decisions":["d 1"],"kind":"cited","state":"ratified"}`), false},
	{"bad origin", factWithProv(`{"kind":"proposed","origin":"-s"}`), false},
	{"empty origin", factWithProv(`{"kind":"proposed","origin":""}`), false},
	{"provenance a string", factWithProv(`"proposed"`), false},
	{"bad entity id", withFact(`"mireth"`, `"mi reth"`), false},
	{"id starting with dash", withFact(`"mireth"`, `"-mireth"`), false},
	{"id too long", withFact(`"mireth"`, `"`+strings.Repeat("a", MaxIDLen+1)+`"`), false},
	{"empty value", withFact(`"value":"v"`, `"value":""`), false},
	{"DEL in value", withFact(`"value":"v"`, "\"value\":\"a\x7fb\""), false},
	{"C1 control in value", withFact(`"value":"v"`, "\"value\":\"a\u0085b\""), false},
	{"raw control character", withFact(`"value":"v"`, "\"value\":\"a\x01b\""), false},
	{"invalid UTF-8", withFact(`"value":"v"`, "\"value\":\"a\xffb\""), false},
	{"unterminated", fact[:len(fact)-3], false},
	{"bad entity kind", `{"id":"p-1","kind":"animal","name":"P","provenance":` + provProposed + `,"type":"entity"}`, false},
	{"empty optional", `{"entity":"e","key":"k","provenance":` + provProposed + `,"type":"state","until":"","value":"v"}`, false},
	{"standing", `{"claim":"` + idHex + `","decision":"d","standing":"ratified","type":"standing"}`, false},
	{"rule", `{"body":[],"head":{"args":[],"pred":"q"},"name":"r","provenance":` + provProposed + `,"type":"rule"}`, false},
	{"not an object", `["fact"]`, false},
	{"empty", ``, false},
}

func TestDecodeFastPath(t *testing.T) {
	for _, tc := range fastPathCases {
		t.Run(tc.name, func(t *testing.T) {
			if fast := agree(t, []byte(tc.in)); fast != tc.fast {
				t.Errorf("the fast path took %q: %v, want %v", tc.in, fast, tc.fast)
			}
		})
	}
}

// mutate returns data with one random edit: a byte deleted, repeated,
// replaced or inserted, the new bytes drawn from those that matter to JSON
// and to the id and text rules.
func mutate(r *rand.Rand, data []byte) []byte {
	const bytesOfNote = "\"\\ ,:{}[]-_aZ9\x00\x1f\x7f\xc3\xa9\xff"
	out := slices.Clone(data)
	i := r.IntN(len(out))
	c := bytesOfNote[r.IntN(len(bytesOfNote))]
	switch r.IntN(4) {
	case 0:
		return slices.Delete(out, i, i+1)
	case 1:
		return slices.Insert(out, i, out[i])
	case 2:
		out[i] = c
		return out
	}
	return slices.Insert(out, i, c)
}

func TestDecodeFastMutations(t *testing.T) {
	g := &gen{r: rand.New(rand.NewPCG(13, 370))}
	r := rand.New(rand.NewPCG(13, 371))
	fast, total := 0, 0
	for _, typ := range Types() {
		for range 20 {
			data := mustCanonical(t, g.object(typ))
			if agree(t, data) {
				fast++
			}
			total++
			for range 20 {
				if agree(t, mutate(r, data)) {
					fast++
				}
				total++
			}
		}
	}
	// Random ids and text are mostly non-ASCII or quoted, so most go the
	// general way; the fast path must still see a good share.
	if fast < total/20 {
		t.Errorf("the fast path took %d of %d inputs; the test does not exercise it", fast, total)
	}
}

// edgeStrings are values at the edges of the id and text rules.
var edgeStrings = []string{
	"a", "Z", "9", "a-b", "a_b", "-a", "_a", "a b", "a.b", "a:b", "a'b", "a,b", "a\x7fb", "a\x1fb",
	"é", "ée", "e\u0301", "\u0301e", "日本", "a\u00a0b", "a\u0085b", "a\u2028b", "\xff", "a\xc3", "\xed\xa0\x80",
	strings.Repeat("a", MaxIDLen), strings.Repeat("a", MaxIDLen+1), strings.Repeat("é", MaxIDLen/2+1),
	"", " ", "~", "a~b",
}

func TestSpanClassesMatchRules(t *testing.T) {
	for _, s := range edgeStrings {
		data := []byte(`"` + s + `"`)
		start, end, class, next := plainString(data, 0)
		if next < 0 {
			if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 }) {
				t.Errorf("plainString refused %q", s)
			}
			continue
		}
		m := span{start: start, end: end, class: class}
		if m.isID(data) && !ValidID(s) {
			t.Errorf("%q vouched an id, but idProblem finds %v", s, idProblem(s))
		}
		if m.isText() && textProblem(s, true).code != "" {
			t.Errorf("%q vouched text, but textProblem finds %v", s, textProblem(s, true))
		}
		// On ASCII the classes are exact: they vouch for every valid value.
		ascii := !strings.ContainsFunc(s, func(r rune) bool { return r >= 0x80 })
		if ascii && m.isID(data) != ValidID(s) {
			t.Errorf("%q: isID = %v, ValidID = %v", s, m.isID(data), ValidID(s))
		}
		if ascii && m.isText() != (textProblem(s, true).code == "") {
			t.Errorf("%q: isText = %v, textProblem = %v", s, m.isText(), textProblem(s, true))
		}
	}
}

// TestVouchEdges puts the edge strings in every member of the vouched
// types, where the fast path skips Validate when the classes vouch for the
// values.
func TestVouchEdges(t *testing.T) {
	shapes := []string{
		`{"entity":%[1]q,"key":%[2]q,"provenance":{"kind":"proposed","origin":%[3]q},"type":"fact","value":%[4]q}`,
		`{"id":%[1]q,"kind":"person","name":%[4]q,"provenance":{"hyp":%[2]q,"kind":"hypothesis"},"type":"entity"}`,
		`{"id":%[1]q,"kind":%[2]q,"name":%[4]q,"provenance":{"kind":"proposed","origin":%[3]q},"type":"entity"}`,
		`{"from":%[1]q,"provenance":{"decisions":[%[3]q,%[4]q],"kind":"cited","state":"ratified"},"relation":%[2]q,"to":%[4]q,"type":"relation"}`,
		`{"era":%[2]q,"id":%[1]q,"provenance":{"decisions":[%[3]q],"kind":"cited","state":%[4]q},"type":"event"}`,
		`{"earlier":%[1]q,"later":%[2]q,"provenance":{"kind":"proposed","origin":%[3]q},"type":"before"}`,
		`{"pred":%[1]q,"provenance":{"kind":"proposed","origin":%[3]q},"type":"functional"}`,
		`{"left":%[1]q,"provenance":{"kind":"proposed","origin":%[2]q},"right":%[3]q,"type":"same_as"}`,
		`{"entity":%[1]q,"key":%[2]q,"provenance":{"kind":"proposed","origin":"s"},"since":%[3]q,"type":"state","value":%[4]q}`,
	}
	r := rand.New(rand.NewPCG(13, 372))
	vouched := 0
	for _, shape := range shapes {
		for range 300 {
			var v [4]any
			for i := range v {
				if r.IntN(3) == 0 {
					v[i] = pick(&gen{r: r}, edgeStrings)
				} else {
					v[i] = pick(&gen{r: r}, []string{"a", "p-1", "person", "ratified", "Person 1", "x_y"})
				}
			}
			// %q escapes non-printable bytes; keep the raw ones the fast
			// path sees as they are.
			data := []byte(rawQuoted(fmt.Sprintf(shape, v[:]...)))
			if agree(t, data) {
				vouched++
			}
		}
	}
	if vouched == 0 {
		t.Error("no input took the fast path")
	}
}

// rawQuoted undoes %q's escapes of bytes that need none in JSON, so that
// the input holds them raw; quotes and backslashes stay escaped.
func rawQuoted(s string) string {
	r := strings.NewReplacer(`\x7f`, "\x7f", `\x1f`, "\x1f", `\xff`, "\xff", `\xc3`, "\xc3",
		`\xed\xa0\x80`, "\xed\xa0\x80", `\u00a0`, "\u00a0", `\u0085`, "\u0085", `\u2028`, "\u2028")
	return r.Replace(s)
}

func TestLookupField(t *testing.T) {
	for f, name := range fieldNames {
		if got, ok := lookupField([]byte(name)); !ok || got != field(f) {
			t.Errorf("lookupField(%q) = %d, %v; want %d", name, got, ok, f)
		}
	}
	for _, name := range []string{"", "Type", "typ", "types", "type ", "entity\x00", "provenanc", "colour"} {
		if f, ok := lookupField([]byte(name)); ok {
			t.Errorf("lookupField(%q) = %d, want none", name, f)
		}
	}
}

func TestFieldRank(t *testing.T) {
	byRank := make([]string, nFields)
	for f, name := range fieldNames {
		byRank[fieldRank[f]] = name
	}
	if !slices.IsSorted(byRank) || slices.Contains(byRank, "") {
		t.Errorf("fieldRank does not order the names: %q", byRank)
	}
}

// TestDecoderReset decodes a run of objects on one decoder, as the pool
// does, so that what one leaves in the shadow shows in the next, and
// checks that reset leaves nothing behind.
func TestDecoderReset(t *testing.T) {
	inputs := []string{
		`{"entity":"e","key":"k","provenance":` + provCited + `,"since":"a","type":"state","until":"b","value":"v"}`,
		`{"entity":"e","key":"k","provenance":` + provCited + `,"type":"state","value":"v"}`,
		`{"id":"d","provenance":` + provProposed + `,"rationale":"because","type":"decision"}`,
		`{"id":"d","type":"decision"}`,
		`{"body":[],"head":{"args":[],"pred":"q"},"name":"r","provenance":` + provProposed + `,"type":"rule"}`,
		`{"type":"state","entity":"e","key":"k","value":"v","since":"a","provenance":` + provHyp + `}`,
		`{"entity":"e","key":"k","provenance":` + provHyp + `,"type":"state","until":"","value":"v"}`,
		`{"entity":"e","key":"k","provenance":` + provHyp + `,"type":"state","value":"v"}`,
		`{"id":"d","type":"decision"}`,
		`{"claims":["` + idHex + `"],"decision":"d","type":"ratify"}`,
		factWithProv(`{"decisions":["d-1","d-2"],"kind":"cited"}`),
		factWithProv(`{"decisions":["d-1","d-2"],"kind":"cited","state":"final"}`),
		fact,
	}
	d := testDecoder(nil)
	for _, in := range inputs {
		d.data = []byte(in)
		got, err := d.decode()
		want, wantErr := decodeGeneralOnly([]byte(in))
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(err, wantErr) {
			t.Errorf("after the others, %s decodes to %#v, %v; want %#v, %v", in, got, err, want, wantErr)
		}
		d.reset()
		if !reflect.DeepEqual(d.shadow, shadow{}) || d.data != nil || d.pos != 0 || d.typ != "" ||
			d.syntax != nil || d.errs != nil || len(d.path) != 0 || len(d.strs) != 0 {
			t.Errorf("after %s, reset left %+v", in, d)
		}
	}
}
