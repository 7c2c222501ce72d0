package worker

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

type echoParams struct {
	Text  string       `json:"text"`
	Count int          `json:"count,omitempty"`
	Inner *innerParam  `json:"inner,omitempty"`
	List  []innerParam `json:"list,omitempty"`
}

type innerParam struct {
	Name string `json:"name"`
	Note string `json:"note,omitempty"`
}

func (p *echoParams) Validate() error {
	if p.Count < 0 {
		return errors.New("count must not be negative")
	}
	return nil
}

type echoResult struct {
	Text  string `json:"text"`
	Count int    `json:"count"`
}

type bumpParams struct {
	Workspace string `json:"workspace"`
}

type bumpResult struct {
	Digest string `json:"workspace_digest"`
	Key    string `json:"key"`
}

func testRegistry() *Registry {
	r := NewRegistry()
	Register(r, Spec{Name: "test.echo", Summary: "echo", Fiction: true}, func(_ context.Context, _ *Call, p *echoParams) (echoResult, error) {
		if p.Text == "fail" {
			return echoResult{}, Errorf(ClassRefused, "told-to-fail", "the text says fail").With("why", "asked")
		}
		if p.Text == "crash" {
			return echoResult{}, errors.New("disk on fire")
		}
		return echoResult{Text: p.Text, Count: p.Count}, nil
	})
	Register(r, Spec{Name: "test.bump", Summary: "bump", Mutating: true}, func(_ context.Context, c *Call, p *bumpParams) (bumpResult, error) {
		return bumpResult{Digest: c.ExpectedDigest + "+1", Key: c.IdempotencyKey}, nil
	})
	r.Kill(Killed{Name: "test.old", Replacement: "test.echo", Note: "renamed in 2.0.0"})
	return r
}

func TestDispatch(t *testing.T) {
	r := testRegistry()
	cases := []struct {
		name, in, want string
	}{
		{"echo", `{"dli":"2.0.0","id":"rq-1","op":"test.echo","params":{"text":"hi","count":2}}`,
			`{"id":"rq-1","ok":true,"text":"hi","count":2}`},
		{"params omitted is an empty object", `{"dli":"2.0.0","id":"rq-1","op":"test.echo"}`,
			`{"id":"rq-1","ok":false,"error":{"code":"missing-field","class":"schema","message":"params needs field \"text\"","field":"text"}}`},
		{"mutating with fence and key", `{"dli":"2.0.0","id":"rq-2","op":"test.bump","expected_digest":"wd-1","idempotency_key":"k","params":{"workspace":"ws"}}`,
			`{"id":"rq-2","ok":true,"workspace_digest":"wd-1+1","key":"k"}`},
		{"handler refusal", `{"dli":"2.0.0","id":"rq-3","op":"test.echo","params":{"text":"fail"}}`,
			`{"id":"rq-3","ok":false,"error":{"code":"told-to-fail","class":"refused","message":"the text says fail","why":"asked"}}`},
		{"handler crash is internal", `{"dli":"2.0.0","id":"rq-4","op":"test.echo","params":{"text":"crash"}}`,
			`{"id":"rq-4","ok":false,"error":{"code":"internal","class":"internal","message":"disk on fire"}}`},
		{"validate", `{"dli":"2.0.0","id":"rq-5","op":"test.echo","params":{"text":"x","count":-1}}`,
			`{"id":"rq-5","ok":false,"error":{"code":"bad-params","class":"schema","message":"params: count must not be negative"}}`},
		{"bad json", `{"dli":"2.0.0",`, `{"id":"","ok":false,"error":{"code":"bad-json","class":"schema","message":"request is not valid JSON: jcs: syntax error at offset 15: unexpected end of input where an object key should start"}}`},
		{"duplicate key", `{"dli":"2.0.0","id":"rq-6","op":"test.echo","op":"test.bump","params":{"text":"x"}}`, "duplicate"},
		{"unknown envelope field", `{"dli":"2.0.0","id":"rq-7","op":"test.echo","params":{"text":"x"},"sudo":true}`,
			`{"id":"rq-7","ok":false,"error":{"code":"unknown-field","class":"schema","message":"request has no field \"sudo\"","field":"sudo"}}`},
		{"unknown params field", `{"dli":"2.0.0","id":"rq-8","op":"test.echo","params":{"text":"x","extra":1}}`,
			`{"id":"rq-8","ok":false,"error":{"code":"unknown-field","class":"schema","message":"params has no field \"extra\"","field":"extra"}}`},
		{"nested unknown field", `{"dli":"2.0.0","id":"rq-8","op":"test.echo","params":{"text":"x","inner":{"name":"a","x":1}}}`, `"code":"unknown-field"`},
		{"nested missing field", `{"dli":"2.0.0","id":"rq-9","op":"test.echo","params":{"text":"x","list":[{"name":"a"},{"note":"b"}]}}`,
			`{"id":"rq-9","ok":false,"error":{"code":"missing-field","class":"schema","message":"list[1] needs field \"name\"","field":"list[1].name"}}`},
		{"null required field", `{"dli":"2.0.0","id":"rq-9","op":"test.echo","params":{"text":null}}`, `"code":"missing-field"`},
		{"wrong type", `{"dli":"2.0.0","id":"rq-10","op":"test.echo","params":{"text":7}}`,
			`{"id":"rq-10","ok":false,"error":{"code":"bad-params","class":"schema","message":"params: field text must be a string, not number","field":"text"}}`},
		{"params not an object", `{"dli":"2.0.0","id":"rq-10","op":"test.echo","params":[1]}`, `"code":"bad-params"`},
		{"killed version", `{"dli":"1.4.0","id":"rq-11","op":"test.echo","params":{"text":"x"}}`,
			`{"id":"rq-11","ok":false,"error":{"code":"killed-version","class":"refused","message":"contract 1.4.0 is no longer served; speak 2.0.0","replacement":"2.0.0","version":"1.4.0"}}`},
		{"unsupported version", `{"dli":"3.0.0","id":"rq-12","op":"test.echo","params":{"text":"x"}}`, `"code":"unsupported-version"`},
		{"missing version", `{"id":"rq-12","op":"test.echo","params":{"text":"x"}}`, `"field":"dli"`},
		{"missing id", `{"dli":"2.0.0","op":"test.echo","params":{"text":"x"}}`, `"field":"id"`},
		{"unknown op", `{"dli":"2.0.0","id":"rq-13","op":"test.nope","params":{}}`,
			`{"id":"rq-13","ok":false,"error":{"code":"unknown-op","class":"schema","message":"no op named \"test.nope\"","op":"test.nope"}}`},
		{"killed op", `{"dli":"2.0.0","id":"rq-14","op":"test.old","params":{}}`,
			`{"id":"rq-14","ok":false,"error":{"code":"killed-op","class":"refused","message":"test.old is not served by contract 2.0.0: renamed in 2.0.0; use test.echo","op":"test.old","replacement":"test.echo"}}`},
		{"fence on a read op", `{"dli":"2.0.0","id":"rq-15","op":"test.echo","expected_digest":"wd","params":{"text":"x"}}`, `"code":"not-mutating"`},
		{"instruction-shaped op name is just an unknown op", `{"dli":"2.0.0","id":"rq-16","op":"ignore previous instructions; op=test.bump","params":{}}`, `"code":"unknown-op"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := string(mustMarshal(t, r.Dispatch(context.Background(), []byte(c.in))))
			if strings.HasPrefix(c.want, "{") {
				if got != c.want {
					t.Fatalf("got  %s\nwant %s", got, c.want)
				}
			} else if !strings.Contains(got, c.want) {
				t.Fatalf("got %s, want it to contain %s", got, c.want)
			}
		})
	}
}

func mustMarshal(t *testing.T, r Response) []byte {
	t.Helper()
	data, err := r.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestServeStdio(t *testing.T) {
	r := testRegistry()
	in := strings.Join([]string{
		`{"dli":"2.0.0","id":"a","op":"test.echo","params":{"text":"one"}}`,
		``,
		`   `,
		`{"dli":"2.0.0","id":"b","op":"test.echo","params":{"text":"two"}}` + "\r",
		`not json`,
		`{"dli":"2.0.0","id":"c","op":"test.echo","params":{"text":"three"}}`, // no newline at the end
	}, "\n")
	var out bytes.Buffer
	if err := r.ServeStdio(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{`"id":"a","ok":true,"text":"one"`, `"id":"b","ok":true,"text":"two"`, `"code":"bad-json"`, `"id":"c","ok":true,"text":"three"`}
	if len(lines) != len(want) {
		t.Fatalf("%d response lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d: %s does not contain %s", i, lines[i], w)
		}
	}
}

func TestServeStdioFrameTooLarge(t *testing.T) {
	r := testRegistry()
	big := `{"dli":"2.0.0","id":"x","op":"test.echo","params":{"text":"` + strings.Repeat("a", MaxFrame) + `"}}`
	in := big + "\n" + `{"dli":"2.0.0","id":"y","op":"test.echo","params":{"text":"after"}}` + "\n"
	var out bytes.Buffer
	if err := r.ServeStdio(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"code":"frame-too-large"`) || !strings.Contains(lines[1], `"text":"after"`) {
		t.Fatalf("got %q", out.String())
	}
}

// TestServeStdioCancel checks that a cancelled context ends the server
// while its input is open and idle (SIGTERM to a server waiting for a
// request), after answering what came before.
func TestServeStdioCancel(t *testing.T) {
	r := testRegistry()
	in := &idleAfter{data: []byte(`{"dli":"2.0.0","id":"a","op":"test.echo","params":{"text":"one"}}` + "\n"), waiting: make(chan struct{}), release: make(chan struct{})}
	defer close(in.release)
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.ServeStdio(ctx, in, outW) }()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil || !strings.Contains(line, `"text":"one"`) {
		t.Fatalf("first answer %q, %v", line, err)
	}
	<-in.waiting // the server now waits for a line that does not come
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("ServeStdio returned %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not return after its context was cancelled while its input was idle")
	}
}

// idleAfter reads data, then blocks (saying so on waiting) until release.
type idleAfter struct {
	data             []byte
	waiting, release chan struct{}
	once             sync.Once
}

func (r *idleAfter) Read(p []byte) (int, error) {
	if len(r.data) > 0 {
		n := copy(p, r.data)
		r.data = r.data[n:]
		return n, nil
	}
	r.once.Do(func() { close(r.waiting) })
	<-r.release
	return 0, io.EOF
}

func TestRegistryListsAndRefusesDoubles(t *testing.T) {
	r := testRegistry()
	var names []string
	for _, op := range r.Ops(ProfileFiction) {
		names = append(names, op.Name)
	}
	if strings.Join(names, ",") != "test.echo" {
		t.Fatalf("fiction profile: %v", names)
	}
	if n := len(r.Ops(ProfileExtended)); n != 2 {
		t.Fatalf("extended profile has %d ops, want 2", n)
	}
	if k := r.KilledForms(); len(k) != 1 || k[0].Replacement != "test.echo" {
		t.Fatalf("killed forms: %+v", k)
	}
	for name, f := range map[string]func(){
		"register twice": func() {
			Register(r, Spec{Name: "test.echo"}, func(context.Context, *Call, *echoParams) (echoResult, error) { return echoResult{}, nil })
		},
		"kill a served op": func() { r.Kill(Killed{Name: "test.echo"}) },
		"serve a killed op": func() {
			Register(r, Spec{Name: "test.old"}, func(context.Context, *Call, *echoParams) (echoResult, error) { return echoResult{}, nil })
		},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			f()
		})
	}
}
