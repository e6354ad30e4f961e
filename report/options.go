package report

import "contractkit/exchange"

// Options say what a run judged and where its reports go; a suite's run
// and a proxy's session fill them alike.
type Options struct {
	// BaseURL is the server judged, shown redacted.
	BaseURL string
	// Key and Key2 are the API keys no report may show ("" for none).
	Key, Key2 string
	// Strict says decided differences fail the run.
	Strict bool
	// Info says what judged the server: the kit's build and the run's flags.
	Info RunInfo
	// JSON, JUnit and HTML are the report files, Coverage the coverage's
	// JSON file ("" for none).
	JSON, JUnit, HTML, Coverage string
}

func (o Options) redactor() *exchange.Redactor { return exchange.NewRedactor(o.Key, o.Key2) }

// Entries of the Ginkgo report that the writers read, by name.
const (
	// EntryDecided is a decided difference (a Difference).
	EntryDecided = "decided: differs"
	// EntryTiming is an inference stream's timing (a judge.StreamTiming).
	EntryTiming = "stream timing"
	// EntryCoverage is the run's contract coverage (a Coverage).
	EntryCoverage = "coverage"
	// EntryRun is what judged the server (a RunInfo).
	EntryRun = "run"
	// EntryRetries counts a check's requests repeated after a 429.
	EntryRetries = "rate-limit retries"
	// EntryFindings carries a judgement's findings as values (judge.Findings).
	EntryFindings = "findings"
)
