package conformance

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"contractkit/report"
)

// --compare FILE: the run says what changed since a previous run's JSON
// report (report.Compare). FILE is read before the run, so it may be the
// run's own --json file, which the run then writes anew: a scheduled job
// keeps one file and is told each time what changed since the last.

// previous reads the report of --compare: nil when none is asked for, or
// when FILE is missing or empty (a first run, or one that ended before
// writing it), which the summary says; an error when FILE is not a JSON
// report of this schema.
func (c Config) previous(out func(string)) (*report.Run, error) {
	if c.Compare == "" {
		return nil, nil
	}
	info, err := os.Stat(c.Compare)
	switch {
	case errors.Is(err, fs.ErrNotExist) || err == nil && info.Size() == 0:
		out(fmt.Sprintf("conformance: --compare %s: no previous report there yet; this run's has nothing to compare with", c.Compare))
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("--compare: %w", err)
	}
	r, err := report.ReadJSON(c.Compare)
	if err != nil {
		return nil, fmt.Errorf("--compare: %w", err)
	}
	return &r, nil
}
