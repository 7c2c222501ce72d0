// This file tests Decode: what it refuses (unknown fields, duplicate keys,
// wrong JSON types, missing fields, unknown types, trailing data, syntax)
// and what non-canonical input it accepts.

package objects

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// fact is a valid fact with its members in the given text, for edits.
const fact = `{"entity":"mireth","key":"tongue","provenance":{"kind":"proposed","origin":"s"},"type":"fact","value":"v"}`

// withFact returns fact with old replaced by new, once.
func withFact(old, new string) string {
	if !strings.Contains(fact, old) {
		panic("withFact: " + old + " not in fact")
	}
	return strings.Replace(fact, old, new, 1)
}

// idHex is a valid object ID in hex.
var idHex = strings.Repeat("ab", 32)

// decodeRefusals are inputs Decode refuses, with the problems it reports.
var decodeRefusals = []struct {
	name, in string
	want     []problemKey
}{
	// Unknown fields.
	{"unknown top-level", withFact(`"key"`, `"colour":"red","key"`), []problemKey{p("colour", CodeUnknown)}},
	{"field of another type", withFact(`"key"`, `"since":"e","key"`), []problemKey{p("since", CodeUnknown)}},
	{"provenance on a question", `{"id":"q","options":[],"prompt":"P","provenance":{"kind":"proposed","origin":"s"},"type":"question"}`,
		[]problemKey{p("provenance", CodeUnknown)}},
	{"unknown in provenance", withFact(`"origin":"s"`, `"origin":"s","by":"x"`), []problemKey{p("provenance.by", CodeUnknown)}},
	{"provenance member of another kind", withFact(`"origin":"s"`, `"origin":"s","hyp":"h"`),
		[]problemKey{p("provenance.hyp", CodeUnknown)}},
	{"cited member on proposed, even empty", withFact(`"origin":"s"`, `"origin":"s","decisions":[]`),
		[]problemKey{p("provenance.decisions", CodeUnknown)}},
	{"unknown in option", `{"id":"q","options":[{"id":"a","label":"A","weight":1}],"prompt":"P","type":"question"}`,
		[]problemKey{p("options[0].weight", CodeUnknown)}},
	{"unknown in implies", `{"id":"q","options":[{"id":"a","implies":{"args":[],"pred":"p","neg":true},"label":"A"}],"prompt":"P","type":"question"}`,
		[]problemKey{p("options[0].implies.neg", CodeUnknown)}},
	{"unknown in term", ruleWith(`{"var":"X","type":"int"}`), []problemKey{p("head.args[0].type", CodeUnknown)}},
	{"term with both", ruleWith(`{"var":"X","const":"c"}`), []problemKey{p("head.args[0].const", CodeUnknown)}},
	{"term with neither", ruleWith(`{}`), []problemKey{p("head.args[0]", CodeRequired)}},
	{"unknown in literal", `{"body":[{"atom":{"args":[],"pred":"p"},"negated":false,"weight":2}],"head":{"args":[],"pred":"q"},"name":"r","provenance":{"kind":"proposed","origin":"s"},"type":"rule"}`,
		[]problemKey{p("body[0].weight", CodeUnknown)}},

	// Duplicate keys.
	{"duplicate top-level", withFact(`"key"`, `"entity":"x","key"`), []problemKey{p("entity", CodeInvalidJSON)}},
	{"duplicate escaped", withFact(`"key"`, `"\u0065ntity":"x","key"`), []problemKey{p("entity", CodeInvalidJSON)}},
	{"duplicate type", withFact(`"key"`, `"type":"fact","key"`), []problemKey{p("type", CodeInvalidJSON)}},
	{"duplicate in provenance", withFact(`"origin":"s"`, `"origin":"s","kind":"proposed"`),
		[]problemKey{p("provenance.kind", CodeInvalidJSON)}},
	{"duplicate in term", ruleWith(`{"var":"X","var":"Y"}`), []problemKey{p("head.args[0].var", CodeInvalidJSON)}},

	// Wrong JSON types.
	{"number for string", withFact(`"mireth"`, `5`), []problemKey{p("entity", CodeType)}},
	{"null for string", withFact(`"mireth"`, `null`), []problemKey{p("entity", CodeType)}},
	{"string for provenance", withFact(`{"kind":"proposed","origin":"s"}`, `"proposed"`), []problemKey{p("provenance", CodeType)}},
	{"array for provenance kind", withFact(`"kind":"proposed"`, `"kind":["proposed"]`),
		[]problemKey{p("provenance.kind", CodeType)}},
	{"string for decisions", `{"earlier":"a","later":"b","provenance":{"decisions":"d","kind":"cited","state":"ratified"},"type":"before"}`,
		[]problemKey{p("provenance.decisions", CodeType)}},
	{"number in decisions", `{"earlier":"a","later":"b","provenance":{"decisions":["d",7],"kind":"cited","state":"ratified"},"type":"before"}`,
		[]problemKey{p("provenance.decisions[1]", CodeType)}},
	{"object for options", `{"id":"q","options":{},"prompt":"P","type":"question"}`, []problemKey{p("options", CodeType)}},
	{"string for negated", `{"body":[{"atom":{"args":[],"pred":"p"},"negated":"no"}],"head":{"args":[],"pred":"q"},"name":"r","provenance":{"kind":"proposed","origin":"s"},"type":"rule"}`,
		[]problemKey{p("body[0].negated", CodeType)}},
	{"string for args", ruleArgs(`"args":"X",`), []problemKey{p("head.args", CodeType)}},
	{"string for term", ruleWith(`"X"`), []problemKey{p("head.args[0]", CodeType)}},
	{"null until", `{"entity":"e","key":"k","provenance":{"kind":"proposed","origin":"s"},"type":"state","until":null,"value":"v"}`,
		[]problemKey{p("until", CodeType)}},
	{"null decision provenance", `{"id":"d","provenance":null,"type":"decision"}`, []problemKey{p("provenance", CodeType)}},
	{"claims not an array", `{"claims":"` + idHex + `","decision":"d","type":"ratify"}`, []problemKey{p("claims", CodeType)}},

	// Missing and empty fields.
	{"missing value", strings.Replace(fact, `,"value":"v"`, ``, 1), []problemKey{p("value", CodeRequired)}},
	{"missing provenance", strings.Replace(fact, `"provenance":{"kind":"proposed","origin":"s"},`, ``, 1),
		[]problemKey{p("provenance", CodeRequired)}},
	{"missing provenance kind", withFact(`"kind":"proposed",`, ``), []problemKey{p("provenance.kind", CodeRequired)}},
	{"missing origin", withFact(`,"origin":"s"`, ``), []problemKey{p("provenance.origin", CodeRequired)}},
	{"missing cited state", `{"earlier":"a","later":"b","provenance":{"decisions":["d"],"kind":"cited"},"type":"before"}`,
		[]problemKey{p("provenance.state", CodeRequired)}},
	{"empty value", withFact(`"value":"v"`, `"value":""`), []problemKey{p("value", CodeRequired)}},
	{"empty optional", `{"entity":"e","key":"k","provenance":{"kind":"proposed","origin":"s"},"type":"state","until":"","value":"v"}`,
		[]problemKey{p("until", CodeRequired)}},
	{"missing options", `{"id":"q","prompt":"P","type":"question"}`, []problemKey{p("options", CodeRequired)}},
	{"missing label", `{"id":"q","options":[{"id":"a"}],"prompt":"P","type":"question"}`,
		[]problemKey{p("options[0].label", CodeRequired)}},
	{"missing args", ruleArgs(``), []problemKey{p("head.args", CodeRequired)}},
	{"missing negated", `{"body":[{"atom":{"args":[],"pred":"p"}}],"head":{"args":[],"pred":"q"},"name":"r","provenance":{"kind":"proposed","origin":"s"},"type":"rule"}`,
		[]problemKey{p("body[0].negated", CodeRequired)}},
	{"empty body", `{"body":[],"head":{"args":[],"pred":"q"},"name":"r","provenance":{"kind":"proposed","origin":"s"},"type":"rule"}`,
		[]problemKey{p("body", CodeRequired)}},

	// Types.
	{"unknown type", withFact(`"type":"fact"`, `"type":"robot"`), []problemKey{p("type", CodeInvalidEnum)}},
	{"type case", withFact(`"type":"fact"`, `"type":"Fact"`), []problemKey{p("type", CodeInvalidEnum)}},
	{"missing type", withFact(`"type":"fact",`, ``), []problemKey{p("type", CodeRequired)}},
	{"type not a string", withFact(`"type":"fact"`, `"type":1`), []problemKey{p("type", CodeType)}},

	// Values.
	{"escaped control char", withFact(`"value":"v"`, `"value":"a\tb"`), []problemKey{p("value", CodeControlChar)}},
	{"raw invalid utf-8", withFact(`"value":"v"`, "\"value\":\"a\xffb\""), []problemKey{p("value", CodeInvalidUTF8)}},
	{"lone surrogate", withFact(`"value":"v"`, `"value":"a\ud800b"`), []problemKey{p("value", CodeInvalidUTF8)}},
	{"lone low surrogate", withFact(`"value":"v"`, `"value":"\udc00"`), []problemKey{p("value", CodeInvalidUTF8)}},
	{"bad id", withFact(`"mireth"`, `"mir.eth"`), []problemKey{p("entity", CodeInvalidID)}},
	{"bad enum", `{"id":"m","kind":"robot","name":"M","provenance":{"kind":"proposed","origin":"s"},"type":"entity"}`,
		[]problemKey{p("kind", CodeInvalidEnum)}},
	{"uppercase object id", `{"claim":"` + strings.ToUpper(idHex) + `","decision":"d","standing":"ratified","type":"standing"}`,
		[]problemKey{p("claim", CodeInvalidID)}},
	{"short object id", `{"attacker":"a","claim":"abab","target":"t","type":"attack"}`, []problemKey{p("claim", CodeInvalidID)}},
	{"bad id in claims", `{"claims":["` + idHex + `","zz"],"decision":"d","type":"ratify"}`, []problemKey{p("claims[1]", CodeInvalidID)}},

	// Whole-input problems.
	{"trailing object", fact + `{}`, []problemKey{p("", CodeInvalidJSON)}},
	{"trailing garbage", fact + ` x`, []problemKey{p("", CodeInvalidJSON)}},
	{"empty input", ``, []problemKey{p("", CodeInvalidJSON)}},
	{"whitespace only", " \n", []problemKey{p("", CodeInvalidJSON)}},
	{"array", `[]`, []problemKey{p("", CodeType)}},
	{"string", `"fact"`, []problemKey{p("", CodeType)}},
	{"null", `null`, []problemKey{p("", CodeType)}},
	{"unterminated", fact[:len(fact)-1], []problemKey{p("", CodeInvalidJSON)}},
	{"trailing comma", withFact(`"value":"v"`, `"value":"v",`), []problemKey{p("", CodeInvalidJSON)}},
	{"single quotes", withFact(`"value":"v"`, `'value':'v'`), []problemKey{p("", CodeInvalidJSON)}},
	{"raw control char", withFact(`"value":"v"`, "\"value\":\"a\tb\""), []problemKey{p("", CodeInvalidJSON)}},
	{"bad escape", withFact(`"value":"v"`, `"value":"a\xb"`), []problemKey{p("", CodeInvalidJSON)}},
	{"short unicode escape", withFact(`"value":"v"`, `"value":"\u00e"`), []problemKey{p("", CodeInvalidJSON)}},
	{"leading zero", withFact(`"key"`, `"n":01,"key"`), []problemKey{p("", CodeInvalidJSON)}},
	{"bare minus", withFact(`"key"`, `"n":-,"key"`), []problemKey{p("", CodeInvalidJSON)}},
	{"missing colon", withFact(`"key":`, `"key" `), []problemKey{p("", CodeInvalidJSON)}},
	{"too deep", withFact(`"key"`, `"n":`+strings.Repeat("[", 100)+strings.Repeat("]", 100)+`,"key"`),
		[]problemKey{p("", CodeInvalidJSON)}},
	{"bad literal", withFact(`"key"`, `"n":tru,"key"`), []problemKey{p("", CodeInvalidJSON)}},
}

func TestDecodeRefuses(t *testing.T) {
	for _, tt := range decodeRefusals {
		t.Run(tt.name, func(t *testing.T) {
			o, err := Decode([]byte(tt.in))
			if err == nil {
				t.Fatalf("Decode accepted %s as %#v", tt.in, o)
			}
			if o != nil {
				t.Errorf("Decode returned an object with its error")
			}
			checkProblems(t, err, tt.want...)
		})
	}
}

// ruleWith returns a rule whose head has the single argument term.
func ruleWith(term string) string { return ruleArgs(`"args":[` + term + `],`) }

// ruleArgs returns a rule whose head's args member is args.
func ruleArgs(args string) string {
	return `{"body":[{"atom":{"args":[],"pred":"p"},"negated":false}],"head":{` + args +
		`"pred":"q"},"name":"r","provenance":{"kind":"proposed","origin":"s"},"type":"rule"}`
}

func TestDecodeReportsAllProblems(t *testing.T) {
	in := `{"entity":5,"colour":"red","provenance":{"kind":"proposed"},"type":"fact","value":"v"}`
	_, err := Decode([]byte(in))
	checkProblems(t, err, p("colour", CodeUnknown), p("entity", CodeType), p("key", CodeRequired),
		p("provenance.origin", CodeRequired))
}

func TestDecodeAcceptsNonCanonical(t *testing.T) {
	canonical := []byte(`{"entity":"mireth","key":"tongue","provenance":{"decisions":["a","b"],"kind":"cited","state":"ratified"},"type":"fact","value":"low/saltish é"}`)
	variants := []string{
		" \n\t{ \"type\" : \"fact\" , \"value\":\"low\\/saltish \\u00e9\",\"key\":\"tongue\",\r\n" +
			`"provenance":{"state":"ratified","kind":"cited","decisions":["b","a","b"]},"entity":"m\u0069reth"}` + "\n",
		`{"type":"f\u0061ct","entity":"mireth","key":"tongue","value":"low/saltish \u00E9","provenance":{"kind":"cited","state":"ratified","decisions":["a","b"]}}`,
	}
	want, err := Decode(canonical)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range variants {
		o, err := Decode([]byte(v))
		if err != nil {
			t.Fatalf("Decode(%s): %v", v, err)
		}
		if !reflect.DeepEqual(o, want) {
			t.Errorf("Decode(%s) = %#v, want %#v", v, o, want)
		}
		b, err := Canonical(o)
		if err != nil || !bytes.Equal(b, canonical) {
			t.Errorf("Canonical = %s, %v; want %s", b, err, canonical)
		}
	}
}

func TestDecodeEscapes(t *testing.T) {
	in := `{"id":"h","statement":"q\"b\\s\/ \ud834\udd1e \u00e9 \u2028","type":"hypothesis"}`
	o, err := Decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := o.(*Hypothesis).Statement, "q\"b\\s/ 𝄞 é \u2028"; got != want {
		t.Errorf("statement = %q, want %q", got, want)
	}
	b, _ := Canonical(o)
	if want := `{"id":"h","statement":"q\"b\\s/ 𝄞 é ` + "\u2028" + `","type":"hypothesis"}`; string(b) != want {
		t.Errorf("canonical = %s, want %s", b, want)
	}
}

// TestDecodeConcurrent decodes from many goroutines at once, so that the
// race detector and the results check the pooled decoders.
func TestDecodeConcurrent(t *testing.T) {
	inputs := make([][]byte, 0, len(Types()))
	for _, typ := range Types() {
		b, err := Canonical(examples()[typ])
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, b)
	}
	done := make(chan error)
	for w := range 4 {
		go func() {
			for i := range 200 {
				in := inputs[(i+w)%len(inputs)]
				o, err := Decode(in)
				if err == nil {
					var b []byte
					b, err = Canonical(o)
					if err == nil && !bytes.Equal(b, in) {
						err = fmt.Errorf("round trip changed %s into %s", in, b)
					}
				}
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
