package proxy

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"contractkit/judge"
)

// What the proxy found, as it happens: every finding is printed at once,
// one line, and kept per operation for the reports written on stop.

// Kind is whose fault a finding is and how much it weighs.
type Kind int

// Kinds of finding.
const (
	// Declared: the server breaks a rule of the seed (the declared
	// contract). It fails the run.
	Declared Kind = iota
	// Decided: the server differs from a decision of the contract
	// (x-decision). It fails the run only with --strict.
	Decided
	// ClientFault: the request departs from the declared contract: the
	// client's fault, or a reading the contract decides a server may give
	// it (x-lenient). It never fails the run.
	ClientFault
	// Noted: worth telling, never a failure.
	Noted
)

// Finding is one finding of one exchange: the one judge's (package judge),
// with where the proxy saw it.
type Finding struct {
	judge.Finding
	// Area is the operation's tag.
	Area string
	// Line is the exchange ("POST http://… → 200"), Curl its replay with
	// the key read from $CONFORMANCE_API_KEY.
	Line, Curl string
}

// Kind is how much the finding weighs in the proxy's verdict.
func (f Finding) Kind() Kind {
	switch {
	case f.Side == judge.Client:
		return ClientFault
	case f.Class == judge.Declared:
		return Declared
	case f.Class == judge.Decided:
		return Decided
	}
	return Noted
}

// String is the finding's console line.
func (f Finding) String() string {
	var head string
	switch f.Kind() {
	case Declared:
		head = "VIOLATION"
	case Decided:
		head = "DECIDED " + decisionName(f.Decision)
	case ClientFault:
		head = "CLIENT"
	case Noted:
		head = "NOTE"
	}
	return fmt.Sprintf("%s %s: %s | %s | %s", head, f.Operation, f.Finding, f.Line, f.Curl)
}

// decisionName names a decided finding's decision: a mark the decision
// walk did not reach is the contract as written.
func decisionName(id string) string {
	if id == "" {
		return "the contract as written"
	}
	return id
}

// maxKept bounds the distinct findings kept per operation for the reports;
// beyond it they are printed and counted, not kept.
const maxKept = 100

// opLog is what one operation's exchanges showed.
type opLog struct {
	id, area  string
	exchanges int
	// left counts the exchanges the client left before their end.
	left int
	// findings are the distinct findings (judge.Finding.Key), first
	// occurrence first; count says how often each was seen.
	findings []Finding
	count    map[string]int
	dropped  int
	first    time.Time
	last     time.Time
}

// Log prints findings and keeps them per operation. Safe for concurrent use.
type Log struct {
	mu  sync.Mutex
	out io.Writer
	ops map[string]*opLog
	// outside counts the requests no operation of the contract matches.
	outside int
	counts  [4]int
}

// NewLog prints to out.
func NewLog(out io.Writer) *Log { return &Log{out: out, ops: map[string]*opLog{}} }

func (l *Log) op(id, area string) *opLog {
	o := l.ops[id]
	if o == nil {
		o = &opLog{id: id, area: area, count: map[string]int{}, first: time.Now()}
		l.ops[id] = o
	}
	return o
}

// Add prints f and keeps it.
func (l *Log) Add(f Finding) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintln(l.out, f)
	l.counts[f.Kind()]++
	o := l.op(f.Operation, f.Area)
	key := f.Key()
	if o.count[key] == 0 {
		if len(o.findings) >= maxKept {
			o.dropped++
			return
		}
		o.findings = append(o.findings, f)
	}
	o.count[key]++
}

// Exchange counts one finished exchange of operation id; left says the
// client left before its end.
func (l *Log) Exchange(id, area string, left bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	o := l.op(id, area)
	o.exchanges++
	o.last = time.Now()
	if left {
		o.left++
	}
}

// Outside counts one request outside the contract (forwarded, not judged).
func (l *Log) Outside() {
	l.mu.Lock()
	l.outside++
	l.mu.Unlock()
}

// Note prints a line that is not a finding.
func (l *Log) Note(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.out, format+"\n", args...)
}

// Findings returns the distinct findings kept, operation by operation
// (sorted by area), each first as seen.
func (l *Log) Findings() []Finding {
	ops, _ := l.snapshot()
	var out []Finding
	for _, o := range ops {
		out = append(out, o.findings...)
	}
	return out
}

// Counts returns how many findings of each kind were seen.
func (l *Log) Counts() (declared, decided, client int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.counts[Declared], l.counts[Decided], l.counts[ClientFault]
}

// Seen returns how many operations the exchanges named, and how many
// requests matched no operation of the contract.
func (l *Log) Seen() (operations, outside int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.ops), l.outside
}

// snapshot copies the per-operation logs, sorted by area then operation.
func (l *Log) snapshot() (ops []opLog, outside int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, o := range l.ops {
		c := *o
		c.findings = append([]Finding(nil), o.findings...)
		c.count = make(map[string]int, len(o.count))
		for k, v := range o.count {
			c.count[k] = v
		}
		ops = append(ops, c)
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].area != ops[j].area {
			return ops[i].area < ops[j].area
		}
		return ops[i].id < ops[j].id
	})
	return ops, l.outside
}

// times is how often f was seen.
func (o *opLog) times(f Finding) int { return o.count[f.Key()] }

// kept returns the kept findings of kind k.
func (o *opLog) kept(k Kind) []Finding {
	var out []Finding
	for _, f := range o.findings {
		if f.Kind() == k {
			out = append(out, f)
		}
	}
	return out
}

// render lists findings for a report: each with its count, exchange and
// replay.
func (o *opLog) render(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		n := ""
		if t := o.times(f); t > 1 {
			n = fmt.Sprintf(" (%d times)", t)
		}
		fmt.Fprintf(&b, "  - %s%s\n    in %s\n    Reproduce: %s\n", f.Finding, n, f.Line, f.Curl)
	}
	return b.String()
}
