package drive

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"contractkit/conformance/inputs"
)

// Misses are what the run did not reach and cannot say why: each input
// dimension it did not send, each status a client can provoke that an
// operation never answered. Against a fake clock a run reaches every
// dimension but those Skipped says why of; against a real server a state
// may pass between two reads, and a server may accept what the mock
// refuses.
func (r *Run) Misses() []string {
	var out []string
	for _, d := range r.Unreached() {
		out = append(out, d.Key()+": not reached")
	}
	for _, op := range Catalog().Ops {
		for _, code := range provokable(op) {
			if r.Cover[op.ID][code] == 0 && !r.explained(op, code) {
				out = append(out, fmt.Sprintf("%s never answered %d, a status a client can provoke", op.ID, code))
			}
		}
	}
	return out
}

// Skipped are the dimensions the run did not send, each with the reason
// it knew before it began (a 413 past a bound it does not send, a second
// key it does not have).
func (r *Run) Skipped() []string {
	var out []string
	for _, d := range r.Dims {
		if why := r.Why[d.Key()]; why != "" && r.Reached[d.Key()] == 0 {
			out = append(out, fmt.Sprintf("%s: not sent: %s", d.Key(), why))
		}
	}
	return out
}

// Unreached are the dimensions the run did not send and knows no reason
// for: a generator that failed, or a state the server never showed.
func (r *Run) Unreached() []inputs.Dimension {
	var out []inputs.Dimension
	for _, d := range r.Dims {
		if r.Reached[d.Key()] == 0 && r.Why[d.Key()] == "" {
			out = append(out, d)
		}
	}
	return out
}

// explained reports whether a status was not provoked for a reason the
// run gives (a 413 of an upload past a bound it does not send).
func (r *Run) explained(op *inputs.Op, code int) bool {
	if code != 413 || op.Media != "multipart/form-data" {
		return false
	}
	return r.whyAny(op.ID, string(inputs.FaultSize))
}

func (r *Run) whyAny(op, word string) bool {
	for k := range r.Why {
		if strings.HasPrefix(k, op+" ") && strings.Contains(k, word) {
			return true
		}
	}
	return false
}

// Coverage is the table of what each operation answered: each documented
// status and how often, one operation a line.
func (r *Run) Coverage() string {
	var rows []string
	for _, op := range Catalog().Ops {
		got := r.Cover[op.ID]
		var codes []string
		for _, s := range op.Statuses {
			codes = append(codes, fmt.Sprintf("%d:%d", s, got[s]))
		}
		rows = append(rows, fmt.Sprintf("%-20s %s", op.ID, strings.Join(codes, " ")))
	}
	return strings.Join(rows, "\n")
}

// Inputs is the input coverage table: for each operation, the dimensions
// of each family reached out of those the contract gives (a dash: the
// family has none), then each dimension not reached, with its reason.
func (r *Run) Inputs() string {
	var b strings.Builder
	fams := inputs.Families()
	fmt.Fprintf(&b, "%-20s", "operation")
	for _, f := range fams {
		fmt.Fprintf(&b, " %11s", f)
	}
	b.WriteString("\n")
	total, reached := 0, 0
	for _, op := range Catalog().Ops {
		fmt.Fprintf(&b, "%-20s", op.ID)
		var missed []string
		for _, f := range fams {
			n, got := 0, 0
			for _, d := range r.Dims {
				if d.Op != op.ID || d.Family != f {
					continue
				}
				n++
				if r.Reached[d.Key()] > 0 {
					got++
				} else {
					why := r.Why[d.Key()]
					if why == "" {
						why = "not reached"
					}
					missed = append(missed, d.Name+" — "+why)
				}
			}
			total, reached = total+n, reached+got
			cell := "-"
			if n > 0 {
				cell = strconv.Itoa(got) + "/" + strconv.Itoa(n)
			}
			fmt.Fprintf(&b, " %11s", cell)
		}
		b.WriteString("\n")
		for _, m := range missed {
			b.WriteString("    not reached: " + m + "\n")
		}
	}
	fmt.Fprintf(&b, "%d/%d input dimensions reached", reached, total)
	return b.String()
}

// provokable are the documented statuses of op a client can provoke: a
// success and a refused key always; the code of each fault the operation
// can be given (x-fault-order); 429 and 500 are the server's to give.
func provokable(op *inputs.Op) []int {
	out := []int{200, 401}
	for _, f := range Catalog().FaultsOf(op) {
		for _, code := range Catalog().FaultStatuses(op, f) {
			if op.Documents(code) && !slices.Contains(out, code) {
				out = append(out, code)
			}
		}
	}
	return out
}

// why says, before the run, which dimensions it will not send and why.
func (d *driver) why() {
	for _, dim := range d.run.Dims {
		op := d.cat.Op(dim.Op)
		size := dim.Fault == inputs.FaultSize || dim.Faults[0] == inputs.FaultSize || dim.Faults[1] == inputs.FaultSize
		switch {
		case size && op.Media == "multipart/form-data" && d.cfg.UploadLimit <= 0:
			d.run.Why[dim.Key()] = fmt.Sprintf("a 413 needs a form past the contract's multipart bound (%d MiB, D-15), which the suite does not send", d.cat.MultipartBodyBytes>>20)
		case dim.Intent == inputs.IntentForeign && d.cfg.OneAccount:
			d.run.Why[dim.Key()] = "one account: no second key (--api-key-2)"
		case dim.Family == inputs.FamilyState && dim.State.Field != "" && clockFromStart(dim.Kind.Machine) &&
			dim.State.Value == starvedEnds && inputs.Changes(op, dim.Kind):
			d.run.Why[dim.Key()] = fmt.Sprintf("no request makes a %s %s (D-12: the server's own), and the run changes only what it made", dim.Kind.Word(), starvedEnds)
		}
	}
}
