// The replay: a fresh project in a temporary folder, the registry the
// command line serves over it, an in-memory MCP session, and every call
// of the script made through that session.

package casebook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/project"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The replay fixes everything a commit id depends on, so that the story
// is byte-identical on every machine: the store id, the author, and a
// clock that starts on 6 January (Holmes's birthday, by the tradition of
// his admirers) and moves a minute a commit.
const (
	storeID = "221b221b221b221b221b221b221b221b"
	version = "casebook"
)

var (
	signature = author.Signature{Name: "John H. Watson", Email: "watson@baker-street.invalid"}
	epoch     = time.Date(2026, 1, 6, 9, 0, 0, 0, time.UTC)
)

// Step is a replayed script line: for a call, the arguments sent (bound
// names substituted) and the structured result.
type Step struct {
	Line
	Sent     json.RawMessage // the arguments as sent
	Result   map[string]any  // the call's structuredContent
	Outcome  string          // "ok" or "error:<code>"
	Mismatch bool            // the outcome is not the expected one
}

// Story is a replayed script.
type Story struct {
	Steps      []Step
	Mismatches int
}

// Replay runs a script against a fresh store for a project (the text of
// its deloreis.toml), through MCP tool calls of the fiction profile. A
// call whose outcome differs from its expect is recorded as a mismatch;
// an error is returned only when the replay itself cannot go on (a bad
// script, a project that does not load, a transport failure, a let that
// finds nothing).
func Replay(ctx context.Context, projectFile, script []byte) (*Story, error) {
	lines, err := Parse(bytes.NewReader(script))
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "deloreis-casebook-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	cs, closeAll, err := serve(ctx, dir, projectFile)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	return replayLines(ctx, cs, lines)
}

// serve makes the project in dir, opens its fresh store and returns a
// client session over the MCP server of its registry.
func serve(ctx context.Context, dir string, toml []byte) (*mcp.ClientSession, func(), error) {
	if err := os.WriteFile(filepath.Join(dir, project.FileName), toml, 0o644); err != nil {
		return nil, nil, err
	}
	clock := epoch
	o := author.StoreOptions{StoreID: storeID, Author: signature,
		Now: func() time.Time { clock = clock.Add(time.Minute); return clock }}
	if _, err := author.Init(author.InitOptions{Dir: dir, StoreOptions: o}); err != nil {
		return nil, nil, err
	}
	svc, err := author.Open(author.OpenOptions{Dir: dir, StoreOptions: o})
	if err != nil {
		return nil, nil, err
	}
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	closers = append(closers, func() { svc.Close() })
	reg := worker.ProjectRegistry(svc, version)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserve.New(reg, worker.ProfileFiction).Connect(ctx, st, nil)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	closers = append(closers, func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "casebook", Version: version}, nil).Connect(ctx, ct, nil)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	closers = append(closers, func() { cs.Close() })
	return cs, closeAll, nil
}

// replayLines makes every call of the script in order.
func replayLines(ctx context.Context, cs *mcp.ClientSession, lines []Line) (*Story, error) {
	story := &Story{}
	vars := map[string]string{}
	for _, l := range lines {
		st := Step{Line: l}
		if l.IsCall() {
			if err := call(ctx, cs, &st, vars); err != nil {
				return nil, fmt.Errorf("script line %d (%s): %w", l.N, l.Tool, err)
			}
			if st.Mismatch {
				story.Mismatches++
			}
		}
		story.Steps = append(story.Steps, st)
	}
	return story, nil
}

// call makes one tool call and records its result, then binds its lets.
func call(ctx context.Context, cs *mcp.ClientSession, st *Step, vars map[string]string) error {
	args, err := substitute(st.Arguments, vars)
	if err != nil {
		return err
	}
	st.Sent = args
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: st.Tool, Arguments: args})
	if err != nil {
		return err
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // integers print as integers
	if err := dec.Decode(&st.Result); err != nil || st.Result == nil {
		return fmt.Errorf("no structured result: %s", raw)
	}
	st.Outcome = "ok"
	if res.IsError {
		code, _ := lookup(st.Result, "error.code")
		st.Outcome = "error:" + code
	}
	st.Mismatch = st.Outcome != st.Expect
	if st.Mismatch {
		return nil // nothing to bind from an unexpected outcome; later lets fail loudly
	}
	for name, path := range st.Let {
		v, err := lookup(st.Result, path)
		if err != nil {
			return fmt.Errorf("let %s: %w", name, err)
		}
		vars[name] = v
	}
	return nil
}
