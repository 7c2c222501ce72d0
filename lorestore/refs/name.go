// This file holds ref name validation: CheckName, which applies git's
// check-ref-format rules plus deloreis' own stricter ones, and BranchRef.

package refs

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/deloreis/deloreis/base/names"
)

// MaxNameLen is the longest ref name CheckName accepts, in bytes.
const MaxNameLen = 255

// CheckName reports whether name is an acceptable full ref name. It returns
// nil or a *NameError.
//
// The rules are git's (git check-ref-format, without --allow-onelevel or
// --refspec-pattern): components are separated by single slashes, no
// component is empty, begins with '.' or ends with ".lock"; the name has no
// "..", no "@{", no ASCII control character or DEL, no space, none of
// ~ ^ : ? * [ \, does not end with '/' or '.', and is not "@". Deloreis adds:
// the name starts with "refs/", is valid UTF-8 and is at most MaxNameLen
// bytes. Together these keep every accepted name, and the "<name>.lock"
// beside it, a path strictly inside <gitdir>/refs/.
func CheckName(name string) error {
	if reason := nameProblem(name); reason != "" {
		return &NameError{Name: name, Reason: reason}
	}
	return nil
}

func nameProblem(name string) string {
	switch {
	case name == "":
		return "empty"
	case len(name) > MaxNameLen:
		return "longer than 255 bytes"
	case !utf8.ValidString(name):
		return "not valid utf-8"
	}
	for i := 0; i < len(name); i++ {
		if r := charProblem(name[i]); r != "" {
			return r
		}
	}
	switch {
	case !strings.HasPrefix(name, "refs/"):
		return `does not start with "refs/"`
	case strings.Contains(name, ".."):
		return `contains ".."`
	case strings.Contains(name, "@{"):
		return `contains "@{"`
	case strings.HasSuffix(name, "/"):
		return `ends with "/"`
	case strings.HasSuffix(name, "."):
		return `ends with "."`
	}
	for _, c := range strings.Split(name, "/") {
		switch {
		case c == "":
			return "has an empty component"
		case c[0] == '.':
			return `has a component beginning with "."`
		case strings.HasSuffix(c, ".lock"):
			return `has a component ending with ".lock"`
		}
	}
	return ""
}

func charProblem(b byte) string {
	switch {
	case b < 0x20 || b == 0x7f:
		return "contains a control character"
	case b == ' ':
		return "contains a space"
	case strings.IndexByte(`~^:?*[\`, b) >= 0:
		return "contains " + strconv.Quote(string(b))
	}
	return ""
}

// BranchRef returns the full ref name of a branch: "main" becomes
// "refs/heads/main". Besides CheckName's rules on the result it refuses, as
// git does for branch names, an empty name, a name starting with '-' and
// "HEAD". It returns a *NameError naming the branch as given.
func BranchRef(branch string) (string, error) {
	switch {
	case branch == "":
		return "", &NameError{Name: branch, Reason: "empty branch name"}
	case branch[0] == '-':
		return "", &NameError{Name: branch, Reason: `branch name begins with "-"`}
	case branch == "HEAD", branch == "@":
		return "", &NameError{Name: branch, Reason: `branch name is "` + branch + `", which git reads as HEAD`}
	}
	full := "refs/heads/" + branch
	if reason := nameProblem(full); reason != "" {
		return "", &NameError{Name: branch, Reason: reason}
	}
	// What git allows but a listing would show as another name (DL-0437).
	if reason := names.Problem(branch); reason != "" {
		return "", &NameError{Name: branch, Reason: "branch name " + reason}
	}
	return full, nil
}
