// The casebook replay as the command line prints it.

package casebook

import (
	"bytes"
	"context"
)

// ReplayMarkdown replays a casebook script over the project file and
// returns its story as markdown and how many calls answered otherwise than
// the script expects.
func ReplayMarkdown(ctx context.Context, projectFile, script []byte) ([]byte, int, error) {
	story, err := Replay(ctx, projectFile, script)
	if err != nil {
		return nil, 0, err
	}
	var md bytes.Buffer
	if err := story.Markdown(&md); err != nil {
		return nil, 0, err
	}
	return md.Bytes(), story.Mismatches, nil
}
