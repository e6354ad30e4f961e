package report

import (
	"errors"
	"fmt"
)

// WriteReports writes the reports of r that o asks for: the JSON report,
// the JUnit XML, the HTML report (opening with the failures, ending with
// the coverage), the coverage file (o.Coverage; an empty coverage when
// r has none) and the Markdown report (o.Markdown). Every report is attempted; the errors are joined, each
// named by its flag.
func WriteReports(r Run, o Options) error {
	var errs []error
	for _, w := range []struct {
		flag, path string
		write      func(string, Run, Options) error
	}{
		{"--json", o.JSON, WriteJSONFile},
		{"--junit", o.JUnit, WriteJUnitFile},
		{"--html", o.HTML, WriteHTMLFile},
		{"--coverage", o.Coverage, writeCoverage},
		{"--markdown", o.Markdown, WriteMarkdownFile},
	} {
		if w.path == "" {
			continue
		}
		if err := w.write(w.path, r, o); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", w.flag, err))
		}
	}
	return errors.Join(errs...)
}
