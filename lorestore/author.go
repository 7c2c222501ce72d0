// Who signs commits: parsing "Name <email>", and reading git's
// user.name / user.email the way git does (the repository's config over
// the global one).

package lorestore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// DefaultAuthor signs commits when no author is configured anywhere.
var DefaultAuthor = Signature{Name: "deloreis", Email: "deloreis@localhost"}

// ParseSignature reads "Name <email>", as git's --author takes it. The
// name must be non-empty; neither part may hold '<', '>' or a newline.
func ParseSignature(s string) (Signature, error) {
	lt, gt := strings.IndexByte(s, '<'), strings.LastIndexByte(s, '>')
	if lt < 0 || gt < lt || strings.TrimSpace(s[gt+1:]) != "" {
		return Signature{}, fmt.Errorf("lorestore: author %q is not of the form \"Name <email>\"", s)
	}
	sig := Signature{Name: strings.TrimSpace(s[:lt]), Email: strings.TrimSpace(s[lt+1 : gt])}
	if err := sig.check(); err != nil {
		return Signature{}, fmt.Errorf("lorestore: author %q: %w", s, err)
	}
	return sig, nil
}

// GitAuthor reads user.name and user.email as git would for the
// repository at gitDir: the global config ($GIT_CONFIG_GLOBAL if set, else
// $XDG_CONFIG_HOME/git/config, then ~/.gitconfig) overridden by the
// repository's own config. ok is false unless both are set. A config file
// that does not parse is an error; a missing one is not. (Include
// directives are not followed.)
func GitAuthor(gitDir string) (sig Signature, ok bool, err error) {
	var files []string
	if g, set := os.LookupEnv("GIT_CONFIG_GLOBAL"); set {
		files = append(files, g)
	} else {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		home, _ := os.UserHomeDir()
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	if gitDir != "" {
		files = append(files, filepath.Join(gitDir, "config"))
	}
	for _, f := range files {
		name, email, err := readUser(f)
		if err != nil {
			return Signature{}, false, err
		}
		if name != "" {
			sig.Name = name
		}
		if email != "" {
			sig.Email = email
		}
	}
	if sig.Name == "" || sig.Email == "" {
		return Signature{}, false, nil
	}
	if err := sig.check(); err != nil {
		return Signature{}, false, fmt.Errorf("lorestore: git config user.name/user.email: %w", err)
	}
	return sig, true, nil
}

// readUser reads the [user] section of one git config file.
func readUser(path string) (name, email string, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrInvalid) || path == os.DevNull {
		return "", "", nil
	}
	if err != nil {
		return "", "", fmt.Errorf("lorestore: reading %s: %w", path, err)
	}
	cf, err := parseConfig(string(data))
	if err != nil {
		return "", "", fmt.Errorf("lorestore: %s does not parse as git config: %w", path, err)
	}
	return cf.get("user", "", "name"), cf.get("user", "", "email"), nil
}
