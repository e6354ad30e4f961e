// Package report is the reports' data model and their writers: a Run and
// its Checks as plain values, and the summary, the HTML report, the JUnit
// XML, the JSON report, the clauses document and --list written from them
// alone. Whoever runs checks converts its own record into a Run at its edge
// (the suite converts Ginkgo's report, the validating proxy builds one from
// what it saw), so this package links no test framework: no Ginkgo, no
// Gomega, no rapid, no gofakeit, no testing.
package report

import (
	"strconv"
	"strings"
	"time"

	"contractkit/coverage"
	"contractkit/exchange"
	"contractkit/judge"
)

// Run is one run as every report shows it: what judged which server, when,
// the verdict, every check, and what the run saw and left beyond them.
type Run struct {
	// Suite names what ran ("API conformance").
	Suite string `json:"suite"`
	// Target is the server judged (the base URL; the writers redact it).
	Target string `json:"target"`
	// Strict says decided differences fail the run.
	Strict bool `json:"strict"`
	// Start and End bound the run.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Succeeded is the verdict: no check and no suite node failed, and the
	// run was not stopped.
	Succeeded bool `json:"succeeded"`
	// Stopped says why the run ended early (a deadline, a signal); empty
	// when it ran to its end.
	Stopped []string `json:"stopped,omitempty"`
	// Info says what judged the server: the kit's build and the flags.
	Info RunInfo `json:"info"`
	// Checks are every check, selected or not, in the order they ran
	// (those not selected in the order they were defined).
	Checks []Check `json:"checks"`
	// SuiteFailures are failures outside the checks (a clean-up node).
	SuiteFailures []SuiteFailure `json:"suite_failures,omitempty"`
	// Coverage is the contract coverage of the run's traffic (nil when
	// nothing was sent).
	Coverage *coverage.Report `json:"coverage,omitempty"`
	// Spent is what the run created, started and removed (nil when the
	// run keeps no account).
	Spent *Spent `json:"spent,omitempty"`
	// RateLimited counts the requests repeated after a 429.
	RateLimited RateLimited `json:"rate_limited"`
	// Explored says how the explore phase ran ("" when it did not).
	Explored string `json:"explored,omitempty"`
	// Leaks are the resources the clean-up could not remove.
	Leaks []string `json:"leaks,omitempty"`
	// Kept is the name prefix of the resources a --keep run left in place
	// ("" when the run removed them).
	Kept string `json:"kept,omitempty"`
	// Changes is what differs from a previous run (--compare; nil
	// without one).
	Changes *Changes `json:"changes,omitempty"`
}

// Duration is how long the run took.
func (r Run) Duration() time.Duration { return r.End.Sub(r.Start) }

// RateLimited is how a run waited out 429 answers: how many requests it
// repeated and the bounds it kept to (the client's, passed in).
type RateLimited struct {
	// Repeated counts the requests repeated after a 429 with Retry-After.
	Repeated int64 `json:"repeated"`
	// PerRequest bounds the repeats of one request, Wait the wait.
	PerRequest int           `json:"per_request"`
	Wait       time.Duration `json:"wait"`
}

// State is what became of one check.
type State string

// States of a check, as the summary counts them.
const (
	Passed  State = "passed"
	Failed  State = "failed"
	Skipped State = "skipped"
	// Pending is a check marked pending in the code: counted with the
	// checks not selected.
	Pending        State = "pending"
	DecidedDiffers State = "decided-differs"
	// NotSelected is a check the label filter or the focus left out.
	NotSelected State = "not-selected"
)

// Check is one check's outcome with everything that explains it, as
// values: the reports render the text.
type Check struct {
	// Area is the label of the check's area ("models"; "other" when it
	// has none of Areas).
	Area string `json:"area"`
	// Path is the containers the check sits in ("Models", "create").
	Path []string `json:"path"`
	// Behaviour is the check's sentence ("MUST refuse ...").
	Behaviour string `json:"behaviour"`
	// Labels are the check's labels: area, seed clauses, class, decisions.
	Labels []string `json:"labels"`
	State  State    `json:"state"`
	// Start, End and Duration time the check (zero when it did not run).
	Start    time.Time     `json:"start,omitzero"`
	End      time.Time     `json:"end,omitzero"`
	Duration time.Duration `json:"duration"`
	// Failure is why the check failed (State Failed).
	Failure *Failure `json:"failure,omitempty"`
	// SkipReason is why the check was skipped (State Skipped).
	SkipReason string `json:"skip_reason,omitempty"`
	// Findings are the judgements' findings, as values.
	Findings judge.Findings `json:"findings,omitempty"`
	// Differences are the decided rules the server does not keep (State
	// DecidedDiffers, or under --strict a failure).
	Differences []Difference `json:"differences,omitempty"`
	// Reproduce are the exchanges each failed judgement names, with the
	// curl that replays them; Exchanges the check's whole exchange log,
	// kept when it failed or differs. Both are redacted.
	Reproduce []*exchange.Exchange `json:"reproduce,omitempty"`
	Exchanges []*exchange.Exchange `json:"exchanges,omitempty"`
	// Streams are the timings of the check's inference streams.
	Streams []judge.StreamTiming `json:"streams,omitempty"`
	// Retries counts the check's requests repeated after a 429.
	Retries int64 `json:"retries,omitempty"`
	// Notes are anything else the check reported, by name.
	Notes []Note `json:"notes,omitempty"`
}

// Name is the check's full name: its containers and its sentence.
func (c Check) Name() string {
	return strings.Join(append(append([]string{}, c.Path...), c.Behaviour), " › ")
}

// Reason is what explains the check's state in one text: the failure
// message, the skip reason, or the decided differences.
func (c Check) Reason() string {
	switch c.State {
	case Failed:
		if c.Failure != nil {
			return c.Failure.Message
		}
	case Skipped:
		return c.SkipReason
	case DecidedDiffers:
		notes := make([]string, len(c.Differences))
		for i, d := range c.Differences {
			notes[i] = d.String()
		}
		return strings.Join(notes, "\n")
	}
	return ""
}

// Failure is why a check or a suite node failed.
type Failure struct {
	// Kind is how it failed: "failed", "timedout", "interrupted",
	// "aborted" or "panicked".
	Kind    string `json:"kind"`
	Message string `json:"message"`
	// Location is where it failed (the check's file and line).
	Location Location `json:"location"`
	// Stack is the stack of a panic ("" otherwise).
	Stack string `json:"stack,omitempty"`
}

// Location is a place in the source.
type Location struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// String is "file:line" ("" when unknown).
func (l Location) String() string {
	if l.File == "" {
		return ""
	}
	return l.File + ":" + strconv.Itoa(l.Line)
}

// SuiteFailure is a failure outside the checks: the node that failed
// ("AfterSuite") and why.
type SuiteFailure struct {
	Node string `json:"node"`
	Failure
}

// Note is something a check reported beyond its verdict, by name ("left
// by the client"), as text.
type Note struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// Areas are the suite's areas in report order: the label of each top-level
// container and its title.
var Areas = []struct{ Label, Title string }{
	{"auth", "Authentication"},
	{"envelope", "Envelope and errors"},
	{"models", "Models"},
	{"datasets", "Datasets"},
	{"conversations", "Conversations"},
	{"inference", "Inference"},
	{"evaluations", "Evaluations"},
	{"limits", "Limits"},
	{"isolation", "Isolation"},
	{"rate-limit", "Rate limiting"},
	{"explore", "Explore"},
	{"smoke", "Smoke"}, // --profile smoke's alone
}

// OtherArea is the area of a check whose labels name none of Areas.
const OtherArea = "other"

// AreaOf is the area a check's labels name: the first label that is one
// of Areas, OtherArea when none is.
func AreaOf(labels []string) string {
	for _, l := range labels {
		for _, a := range Areas {
			if l == a.Label {
				return l
			}
		}
	}
	return OtherArea
}

func areaIndex(label string) int {
	for i, a := range Areas {
		if a.Label == label {
			return i
		}
	}
	return len(Areas)
}
