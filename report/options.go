package report

import (
	"contractkit/coverage"
	"contractkit/exchange"
)

// Options say where a run's reports go and which keys none of them may
// show; a suite's run and a proxy's session fill them alike.
type Options struct {
	// Key and Key2 are the API keys no report may show ("" for none).
	Key, Key2 string
	// JSON, JUnit and HTML are the report files, Coverage the coverage's
	// JSON file, Markdown a CI job's page ("" for none).
	JSON, JUnit, HTML, Coverage, Markdown string
}

// redact returns r with the keys out of what a run's owner typed rather
// than what the reports' makers redacted already: the target (a key put in
// its query) and the paths no operation documents (the client's own text).
func (o Options) redact(r Run) Run {
	red := exchange.NewRedactor(o.Key, o.Key2)
	r.Target = red.String(r.Target)
	if r.Coverage != nil {
		cov := *r.Coverage
		cov.Unrouted = append([]coverage.Unrouted(nil), cov.Unrouted...)
		for i := range cov.Unrouted {
			cov.Unrouted[i].Path = red.String(cov.Unrouted[i].Path)
		}
		r.Coverage = &cov
	}
	return r
}
