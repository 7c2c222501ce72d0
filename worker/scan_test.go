package worker

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestMembers: the scanner sees in a valid object what encoding/json's map
// decoding sees (keys unescaped, values byte for byte), and in an array
// what its slice decoding sees; anything else is not an object / array.
func TestMembers(t *testing.T) {
	for _, data := range []string{
		`{}`, ` { } `, `{"a":1}`, `{ "a" : 1 , "b" :[1, {"c":"}"}] ,"d":"x\"y"}`,
		`{"w\u006frkspace":"ws","e":{"x":[]},"n":null,"t":true,"f":false,"num":-1.5e3}`,
		"{\n\t\"a\":\"\\\\\",\r\n\"b\":[]\n}", `{"s":"]}[{,"}`, `{"k":{"k":{"k":{}}}}`,
	} {
		var want map[string]json.RawMessage
		if err := json.Unmarshal([]byte(data), &want); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		got := map[string]json.RawMessage{}
		if !members([]byte(data), func(k string, v []byte) { got[k] = v }) {
			t.Fatalf("%s: not an object", data)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", data, got, want)
		}
	}
	for _, data := range []string{`[]`, ` [ 1 , "a]" , {"b":[2]} , null ] `, `[[[]],[]]`} {
		var want []json.RawMessage
		if err := json.Unmarshal([]byte(data), &want); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		var got []json.RawMessage
		if !items([]byte(data), func(i int, v []byte) {
			if i != len(got) {
				t.Errorf("%s: item %d out of turn", data, i)
			}
			got = append(got, v)
		}) {
			t.Fatalf("%s: not an array", data)
		}
		if len(got) != len(want) || (len(got) > 0 && !reflect.DeepEqual(got, want)) {
			t.Errorf("%s:\n got %q\nwant %q", data, got, want)
		}
	}
	for _, data := range []string{`[]`, `"x"`, `3`, `null`, ``, `  `} {
		if members([]byte(data), func(string, []byte) {}) {
			t.Errorf("%q read as an object", data)
		}
	}
	if items([]byte(`{}`), func(int, []byte) {}) {
		t.Error("{} read as an array")
	}
}

// TestCheckRequiredDepth: a missing required field is found at every depth,
// in objects inside arrays too, and its path named; an escaped key counts
// as the field it spells.
func TestCheckRequiredDepth(t *testing.T) {
	type leaf struct {
		Name string `json:"name"`
		Note string `json:"note,omitempty"`
	}
	type root struct {
		Text  string   `json:"text"`
		List  []leaf   `json:"list,omitempty"`
		Inner *leaf    `json:"inner,omitempty"`
		Tags  []string `json:"tags,omitempty"`
	}
	rt := reflect.TypeFor[root]()
	cases := []struct{ data, field string }{
		{`{"text":"x"}`, ""},
		{`{"te\u0078t":"x"}`, ""},
		{`{}`, "text"},
		{`{"text":null}`, "text"},
		{`{"text":"x","list":[{"name":"a"},{"note":"b"}]}`, "list[1].name"},
		{`{"text":"x","inner":{"note":"n"}}`, "inner.name"},
		{`{"text":"x","inner":{"name":"n"},"tags":["a","b"]}`, ""},
		{`{"text":"x","list":"not an array"}`, ""}, // the decoder reports the type
	}
	for _, c := range cases {
		e := checkRequired([]byte(c.data), rt, "params")
		got := ""
		if e != nil {
			got, _ = e.Data["field"].(string)
			if e.Code != CodeMissingField {
				t.Errorf("%s: code %s", c.data, e.Code)
			}
		}
		if got != c.field {
			t.Errorf("%s: missing %q, want %q (%v)", c.data, got, c.field, e)
		}
	}
}

// FuzzMembers: on every input jcs accepts, the scanner agrees with
// encoding/json's map and slice decoding.
func FuzzMembers(f *testing.F) {
	for _, seed := range []string{`{"a":1,"b":[{"c":"]"}]}`, `[1,"x",{"y":null}]`, `{"k\u0041":"\\"}`, `"s"`, `[]`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if checkJSON(data, "fuzz") != nil {
			return
		}
		var want map[string]json.RawMessage
		isObject := json.Unmarshal(data, &want) == nil && want != nil
		got := map[string]json.RawMessage{}
		if members(data, func(k string, v []byte) { got[k] = v }) != isObject {
			t.Fatalf("%q: object %v, scanner says otherwise", data, isObject)
		}
		if isObject && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %q\nwant %q", data, got, want)
		}
		var wantItems []json.RawMessage
		isArray := json.Unmarshal(data, &wantItems) == nil && wantItems != nil
		var gotItems []json.RawMessage
		if items(data, func(_ int, v []byte) { gotItems = append(gotItems, v) }) != isArray {
			t.Fatalf("%q: array %v, scanner says otherwise", data, isArray)
		}
		if len(gotItems) != len(wantItems) || len(gotItems) > 0 && !reflect.DeepEqual(gotItems, wantItems) {
			t.Fatalf("%q:\n got %q\nwant %q", data, gotItems, wantItems)
		}
	})
}
