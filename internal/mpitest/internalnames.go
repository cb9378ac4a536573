package mpitest

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
)

// InternalNames matches, in an error's text, the name of one of mpigo's internal
// packages where the text would name it: at the start of a part of it ("p2p: message
// truncated"), followed by a colon. The names are every directory under dir (the
// repository's internal/, relative to the test's package) that holds Go files, the
// transports and PMI too, so a package added later is covered without a list to keep.
func InternalNames(dir string) (*regexp.Regexp, error) {
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == dir {
			return err
		}
		if d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if m, _ := filepath.Glob(filepath.Join(p, "*.go")); len(m) > 0 {
			names = append(names, d.Name())
		}
		return nil
	})
	if err == nil && len(names) < 20 {
		err = fmt.Errorf("only %d internal packages under %s: %v", len(names), dir, names)
	}
	if err != nil {
		return nil, err
	}
	return regexp.MustCompile(`(^|: |\()(` + strings.Join(names, "|") + `): `), nil
}
