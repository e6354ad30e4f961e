package report

// Names of what a check attaches to its record as it runs (in the suite,
// Ginkgo report entries). The suite's converter reads them by these names
// into the fields of a Check; nothing else in this package depends on them.
const (
	// EntryDecided is a decided difference (a Difference): Check.Differences.
	EntryDecided = "decided: differs"
	// EntryFindings is a judgement's findings (judge.Findings): Check.Findings.
	EntryFindings = "findings"
	// EntryTiming is an inference stream's timing (judge.StreamTiming):
	// Check.Streams.
	EntryTiming = "stream timing"
	// EntryRetries counts a check's requests repeated after a 429:
	// Check.Retries.
	EntryRetries = "rate-limit retries"
)
