package coverage

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// Report is what a Recorder saw, in the contract's order (path, then
// method). It is JSON-serialisable as is: that JSON is the coverage file
// of a suite run (--coverage) and of the proxy.
type Report struct {
	Totals     Totals      `json:"totals"`
	Operations []Operation `json:"operations"`
	// Unrouted are requests to a path and method no operation documents.
	Unrouted []Unrouted `json:"unrouted,omitempty"`
}

// Totals are the report's sums, the figures of Line.
type Totals struct {
	Operations       int `json:"operations"`
	OperationsCalled int `json:"operations_called"`
	// Statuses counts the documented statuses of every operation.
	Statuses     int `json:"statuses"`
	StatusesSeen int `json:"statuses_seen"`
	// Fields counts the fields of every documented answer body.
	Fields         int `json:"fields"`
	FieldsObserved int `json:"fields_observed"`
	// UndocumentedStatuses counts (operation, status) pairs answered with
	// a status the operation does not document.
	UndocumentedStatuses int `json:"undocumented_statuses"`
	// UnroutedRequests counts the requests no operation matches.
	UnroutedRequests int `json:"unrouted_requests"`
}

// Operation is the coverage of one contract operation.
type Operation struct {
	ID     string `json:"operation_id"`
	Method string `json:"method"`
	Path   string `json:"path"`
	// Calls counts the answers observed.
	Calls    int      `json:"calls"`
	Statuses []Status `json:"statuses"`
	// Undocumented are the statuses answered that the operation does not
	// document, with how often.
	Undocumented []Undocumented `json:"undocumented_statuses,omitempty"`
}

// Status is one documented status of an operation.
type Status struct {
	Code string `json:"code"`
	// Seen counts the answers with this status.
	Seen int `json:"seen"`
	// Bodies are the documented answer bodies that have fields.
	Bodies []Body `json:"bodies,omitempty"`
}

// Body is one documented answer body of a status: a media type and the
// fields of its schema (for an event stream, of one chunk).
type Body struct {
	MediaType     string   `json:"media_type"`
	EventChunk    bool     `json:"event_chunk,omitempty"`
	Fields        int      `json:"fields"`
	Observed      int      `json:"observed"`
	NeverObserved []string `json:"never_observed,omitempty"`
}

// Undocumented is a status an operation answered without documenting it.
type Undocumented struct {
	Status int `json:"status"`
	Count  int `json:"count"`
}

// Unrouted is a request to no documented operation.
type Unrouted struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Count  int    `json:"count"`
}

// Report returns what the Recorder saw so far.
func (r *Recorder) Report() Report {
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := Report{Operations: []Operation{}}
	t := &rep.Totals
	for _, st := range r.ops {
		o := Operation{ID: st.op.ID, Method: st.op.Method, Path: st.op.Path, Calls: st.calls}
		t.Operations++
		if st.calls > 0 {
			t.OperationsCalled++
		}
		for _, ss := range st.statuses {
			s := Status{Code: ss.code, Seen: ss.seen}
			t.Statuses++
			if ss.seen > 0 {
				t.StatusesSeen++
			}
			for _, m := range ss.media {
				b := Body{MediaType: m.typ, EventChunk: m.event, Fields: len(m.fields), Observed: len(m.observed)}
				for _, f := range m.fields {
					if !m.observed[f] {
						b.NeverObserved = append(b.NeverObserved, f)
					}
				}
				t.Fields += b.Fields
				t.FieldsObserved += b.Observed
				s.Bodies = append(s.Bodies, b)
			}
			o.Statuses = append(o.Statuses, s)
		}
		for _, code := range sortedKeys(st.undocumented) {
			o.Undocumented = append(o.Undocumented, Undocumented{Status: code, Count: st.undocumented[code]})
		}
		t.UndocumentedStatuses += len(o.Undocumented)
		rep.Operations = append(rep.Operations, o)
	}
	for k, n := range r.unrouted {
		rep.Unrouted = append(rep.Unrouted, Unrouted{Method: k.method, Path: k.path, Count: n})
		t.UnroutedRequests += n
	}
	if r.unroutedOther > 0 {
		rep.Unrouted = append(rep.Unrouted, Unrouted{Method: "*", Path: "(other paths)", Count: r.unroutedOther})
		t.UnroutedRequests += r.unroutedOther
	}
	sort.Slice(rep.Unrouted, func(i, j int) bool {
		a, b := rep.Unrouted[i], rep.Unrouted[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Method < b.Method
	})
	return rep
}

// SeenCodes are the documented statuses answered at least once.
func (o Operation) SeenCodes() []string { return o.codes(true) }

// NeverSeenCodes are the documented statuses never answered.
func (o Operation) NeverSeenCodes() []string { return o.codes(false) }

func (o Operation) codes(seen bool) []string {
	var out []string
	for _, s := range o.Statuses {
		if (s.Seen > 0) == seen {
			out = append(out, s.Code)
		}
	}
	return out
}

// FieldCounts are the documented fields of the operation's answers and
// how many of them were observed.
func (o Operation) FieldCounts() (observed, total int) {
	for _, s := range o.Statuses {
		for _, b := range s.Bodies {
			observed += b.Observed
			total += b.Fields
		}
	}
	return observed, total
}

// Line is the one-line total for a summary.
func (r Report) Line() string {
	t := r.Totals
	s := fmt.Sprintf("Coverage: %d/%d operations called, %d/%d documented statuses seen, %d/%d answer fields observed",
		t.OperationsCalled, t.Operations, t.StatusesSeen, t.Statuses, t.FieldsObserved, t.Fields)
	if t.UndocumentedStatuses > 0 {
		s += fmt.Sprintf(", %d undocumented status(es)", t.UndocumentedStatuses)
	}
	if t.UnroutedRequests > 0 {
		s += fmt.Sprintf(", %d request(s) to no documented operation", t.UnroutedRequests)
	}
	return s
}

// maxListed bounds the never-observed fields named per body in the text
// table; the JSON report has them all.
const maxListed = 8

// WriteText writes the per-operation table for a terminal: calls, the
// statuses seen and never seen, the fields observed; under a row, the
// undocumented statuses and the fields never observed in the answers
// that were seen (an unseen status's fields are unobserved by definition).
func (r Report) WriteText(w io.Writer) {
	// The rows are aligned alone, then the notes go under them: a long
	// note inside the tabwriter would widen the first column.
	var rows bytes.Buffer
	tw := tabwriter.NewWriter(&rows, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "OPERATION\tCALLS\tSTATUSES SEEN\tNEVER SEEN\tFIELDS")
	for _, o := range r.Operations {
		obs, total := o.FieldCounts()
		fmt.Fprintf(tw, "%s %s (%s)\t%d\t%s\t%s\t%d/%d\n", o.Method, o.Path, o.ID, o.Calls,
			orDash(o.SeenCodes()), orDash(o.NeverSeenCodes()), obs, total)
	}
	tw.Flush()
	lines := strings.SplitAfter(rows.String(), "\n")
	io.WriteString(w, lines[0])
	for i, o := range r.Operations {
		io.WriteString(w, lines[i+1])
		for _, u := range o.Undocumented {
			fmt.Fprintf(w, "    undocumented status %d (×%d)\n", u.Status, u.Count)
		}
		for _, s := range o.Statuses {
			if s.Seen == 0 {
				continue
			}
			for _, b := range s.Bodies {
				if len(b.NeverObserved) > 0 {
					fmt.Fprintf(w, "    %s never observed: %s\n", b.Label(s.Code), listCut(b.NeverObserved, maxListed))
				}
			}
		}
	}
	for _, u := range r.Unrouted {
		fmt.Fprintf(w, "no documented operation: %s %s (×%d)\n", u.Method, u.Path, u.Count)
	}
	fmt.Fprintln(w, r.Line())
}

// Label names a body of a status: "200 application/json", "200 event chunk".
func (b Body) Label(code string) string {
	if b.EventChunk {
		return code + " event chunk"
	}
	return code + " " + b.MediaType
}

func orDash(codes []string) string {
	if len(codes) == 0 {
		return "-"
	}
	return strings.Join(codes, " ")
}

func listCut(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

func sortedKeys[K int | string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}
