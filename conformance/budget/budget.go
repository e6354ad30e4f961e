// Package budget caps and counts what a conformance run creates and starts
// on the server under test: the models it trains, the evaluation runs it
// starts, the inferences it asks for, ... (the kinds of the contract's
// `x-cost` marks, spec.CostKinds, decision D-31).
//
// A Budget is the cap (--budget KIND=N[,KIND=N...]); a Ledger is one run's
// account of it: the client asks it before every costly call (Admit, Take),
// and tells it what each call made (a Ticket), what was removed, and which
// resources are the account's own and must not be touched (Reuse). At the
// end it gives its rows and what was left behind, which the suite converts
// into the reports' own (report.Spent).
//
// The package knows the contract only through package spec; it sends
// nothing, and has no Ginkgo and no clock, so the client and the explore
// phase share it without weight.
package budget

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"contractkit/spec"
)

// Kind is what a run spends: one of spec.CostKinds.
type Kind = spec.CostKind

// All is the setting that names every kind at once ("all=0").
const All = "all"

// Unlimited is the value that lifts a kind's cap ("inferences=unlimited"),
// so a later setting can undo an earlier one (a profile's).
const Unlimited = "unlimited"

// maxLimit bounds a number in a setting: no run creates a million of
// anything, and a typo with many digits is an error, not a huge cap.
const maxLimit = 1_000_000

// Budget caps each kind; a kind it does not name is not capped. The zero
// value caps nothing. Budget implements flag.Value: Set applies settings on
// top of the current ones, later ones winning.
type Budget struct {
	limits map[Kind]int
}

// Parse reads KIND=N[,KIND=N...]: KIND is a kind of spec.CostKinds or
// "all", N a whole number (0 forbids the kind) or "unlimited". Settings
// apply left to right, so "all=0,inferences=5" allows five inferences and
// nothing else. An empty string is no budget.
func Parse(s string) (Budget, error) {
	var b Budget
	err := b.Set(s)
	return b, err
}

// Set applies the settings of s (Parse's syntax) on top of b's.
func (b *Budget) Set(s string) error {
	next := b.clone()
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			if strings.TrimSpace(s) == "" {
				return nil
			}
			return fmt.Errorf("budget %q: an empty setting (want KIND=N[,KIND=N...])", s)
		}
		name, value, ok := strings.Cut(item, "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok {
			return fmt.Errorf("budget %q: %q is not KIND=N", s, item)
		}
		kinds, err := kindsOf(name)
		if err != nil {
			return fmt.Errorf("budget %q: %w", s, err)
		}
		n, err := limitOf(value)
		if err != nil {
			return fmt.Errorf("budget %q: %s: %w", s, name, err)
		}
		for _, k := range kinds {
			if n < 0 {
				delete(next, k)
			} else {
				next[k] = n
			}
		}
	}
	b.limits = next
	return nil
}

func (b *Budget) clone() map[Kind]int {
	out := make(map[Kind]int, len(b.limits))
	for k, n := range b.limits {
		out[k] = n
	}
	return out
}

func kindsOf(name string) ([]Kind, error) {
	if name == All {
		return spec.CostKinds(), nil
	}
	if k := Kind(name); slices.Contains(spec.CostKinds(), k) {
		return []Kind{k}, nil
	}
	names := make([]string, 0, len(spec.CostKinds())+1)
	for _, k := range spec.CostKinds() {
		names = append(names, string(k))
	}
	return nil, fmt.Errorf("unknown kind %q (kinds: %s, or %s)", name, strings.Join(names, ", "), All)
}

// limitOf reads N: -1 for "unlimited".
func limitOf(value string) (int, error) {
	if value == Unlimited {
		return -1, nil
	}
	n, err := strconv.Atoi(value)
	if err != nil || n < 0 || strings.HasPrefix(value, "+") {
		return 0, fmt.Errorf("%q is not a whole number 0 or more, nor %q", value, Unlimited)
	}
	if n > maxLimit {
		return 0, fmt.Errorf("%d is over %d", n, maxLimit)
	}
	return n, nil
}

// Limit is the cap of kind k; limited is false when k is not capped.
func (b Budget) Limit(k Kind) (n int, limited bool) {
	n, limited = b.limits[k]
	return n, limited
}

// ReadOnly reports a budget that forbids every kind (all=0): the run sends
// reads, and requests meant to be refused, only.
func (b Budget) ReadOnly() bool {
	for _, k := range spec.CostKinds() {
		if n, ok := b.limits[k]; !ok || n != 0 {
			return false
		}
	}
	return true
}

// String is the budget in Parse's syntax, kinds in spec.CostKinds order:
// "all=0" when every kind is capped at one number, "" when none is capped.
func (b Budget) String() string {
	var parts []string
	same := len(b.limits) == len(spec.CostKinds())
	first := -1
	for _, k := range spec.CostKinds() {
		n, ok := b.limits[k]
		if !ok {
			continue
		}
		if first < 0 {
			first = n
		}
		same = same && n == first
		parts = append(parts, fmt.Sprintf("%s=%d", k, n))
	}
	if same && first >= 0 {
		return fmt.Sprintf("%s=%d", All, first)
	}
	return strings.Join(parts, ",")
}

// presets are the named budgets of --profile, in Parse's syntax.
var presets = map[string]string{
	// A deployment that bills: at most one fine-tune and one evaluation
	// run (the checks of training and of a run, once each), the datasets
	// and uploads the written checks make (each is stored and indexed:
	// measured, a run with --reuse-model makes 3 and uploads 6 times), and
	// the cheap records and answers they need; the explore phase gets what
	// they leave. Used
	// with --reuse-model, every check that only needs a ready model uses
	// the account's own.
	"deployment": "models=1,evaluation-runs=1,datasets=12,evaluations=12,conversations=12,inferences=40",
	// The production smoke: nothing created or started. The suite's
	// smoke profile also sends no write with the account's key, refusals
	// included (conformance.ProfileSmoke).
	"smoke": "all=0",
}

// ErrNoPreset is returned by Preset for a name it does not know.
var ErrNoPreset = errors.New("no such budget preset")

// Preset returns the named budget (Presets lists the names).
func Preset(name string) (Budget, error) {
	s, ok := presets[name]
	if !ok {
		return Budget{}, fmt.Errorf("%w %q (presets: %s)", ErrNoPreset, name, strings.Join(Presets(), ", "))
	}
	return Parse(s)
}

// Presets lists the preset names, sorted.
func Presets() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
