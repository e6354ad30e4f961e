package conformance

import (
	"errors"
	"flag"
	"fmt"
	"regexp"
	"strings"

	"contractkit/conformance/budget"
	"contractkit/spec"
)

// Spend is what a run may create and start on the server, and what it
// uses without owning: the --budget, --reuse-model and --profile flags
// (D-40, D-41).
type Spend struct {
	// Budget caps what the run creates and starts, per kind of the
	// contract's x-cost marks; the zero value caps nothing.
	Budget budget.Budget
	// ReuseModel is the id of a ready model of the first account: every
	// check that needs a ready model uses it (and its dataset) instead of
	// training one, and the run never changes or deletes either.
	ReuseModel string
	// Profile names the preset the budget starts from ("" for none).
	Profile string

	// budgetText is --budget as given, applied on top of the profile's.
	budgetText string
}

// ProfileDeployment is the preset docs/ci.md recommends for a staging or
// production deployment.
const ProfileDeployment = "deployment"

// ProfileSmoke is the production smoke (smokeflags.go, smoke.go): every
// operation reached once, nothing written, within SmokeDeadline.
const ProfileSmoke = "smoke"

var (
	budgetHelp = "cap what the run creates and starts, per kind of the contract's x-cost marks\n(" +
		kindList() + ";\nall=N sets every kind; N or unlimited; later settings win): a check that would\n" +
		"go over is skipped with the reason, explore draws a costly call only while\nbudget is left; all=0 is a read-only run (default: no cap)"
	reuseHelp = "use this ready model of the account (and its dataset) wherever a check needs\n" +
		"one, instead of training one; the run never changes or deletes either"
	profileHelp = "a preset: " + ProfileDeployment + " = --budget " + presetText(ProfileDeployment) + "\n" +
		"and needs --reuse-model (for a staging or production deployment; a --budget\ngiven too applies on top of it); " +
		ProfileSmoke + " = a production smoke: every operation\nreached once and nothing written (reads with the key, writes without it), the\n" +
		"explore phase off, --deadline " + SmokeDeadline.String() + " unless given (D-40)"
)

func kindList() string {
	var names []string
	for _, k := range spec.CostKinds() {
		names = append(names, string(k))
	}
	return strings.Join(names, ", ")
}

func presetText(name string) string {
	b, err := budget.Preset(name)
	if err != nil {
		panic(fmt.Sprintf("conformance: preset %s: %v", name, err))
	}
	return b.String()
}

// bind registers the flag name if it is one of Spend's.
func (s *Spend) bind(fs *flag.FlagSet, name, help string) {
	switch name {
	case "budget":
		fs.StringVar(&s.budgetText, name, "", help)
	case "reuse-model":
		fs.StringVar(&s.ReuseModel, name, "", help)
	case "profile":
		fs.StringVar(&s.Profile, name, "", help)
	}
}

// modelID bounds --reuse-model: an id as the contract's paths carry one.
var modelID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// resolve builds Budget from the profile and --budget, after parsing.
func (s *Spend) resolve() error {
	var errs []error
	var b budget.Budget
	if s.Profile != "" {
		p, err := budget.Preset(s.Profile)
		if err != nil {
			errs = append(errs, fmt.Errorf("--profile: %w", err))
		}
		b = p
		if s.Profile == ProfileDeployment && s.ReuseModel == "" {
			// D-41: without a model to reuse, every check that needs a
			// ready model would train one or be skipped.
			errs = append(errs, errors.New("--profile deployment needs --reuse-model ID: a ready model of the account, used by every check that needs one (D-41)"))
		}
	}
	if err := b.Set(s.budgetText); err != nil {
		errs = append(errs, fmt.Errorf("--budget: %w", err))
	}
	if s.ReuseModel != "" && !modelID.MatchString(s.ReuseModel) {
		errs = append(errs, fmt.Errorf("--reuse-model %.70q: want a model id (letters, digits, - and _, at most 64)", s.ReuseModel))
	}
	s.Budget = b
	return errors.Join(errs...)
}

// flags renders the settings that differ from the defaults.
func (s Spend) flags() []string {
	var out []string
	if s.Profile != "" {
		out = append(out, "--profile="+s.Profile)
	}
	if b := s.Budget.String(); b != "" {
		out = append(out, "--budget="+b)
	}
	if s.ReuseModel != "" {
		out = append(out, "--reuse-model="+s.ReuseModel)
	}
	return out
}

// active reports a run that counts its spending: a budget or a reused
// model (a default run caps nothing and behaves as before).
func (s Spend) active() bool { return s.Budget.String() != "" || s.ReuseModel != "" }
