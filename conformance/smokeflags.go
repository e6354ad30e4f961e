package conformance

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// The production smoke (--profile smoke, issue #41, D-40): a scheduled
// check of a live deployment that changes nothing, reaches every operation
// of the contract once and ends in about a minute. It is a profile, not a
// flag of its own, because --profile already answers "how much may this
// run do to a deployment": deployment spends a little, smoke nothing, and
// one flag cannot ask for both. The checks are the Smoke area (smoke.go);
// what the profile sets and refuses is here.

// SmokeDeadline bounds a smoke run unless --deadline says otherwise.
const SmokeDeadline = 60 * time.Second

// smokeLabel labels the Smoke area's checks: they run only in a smoke
// run, or when a label filter names them.
const smokeLabel = "smoke"

// smoke reports a run of the smoke profile.
func (c Config) smoke() bool { return c.Profile == ProfileSmoke }

// smokeExcludes are the flags a smoke run refuses, with the reason.
var smokeExcludes = []struct{ flag, why string }{
	{"budget", "it creates and starts nothing"},
	{"reuse-model", "it reads the first record of each of the account's lists"},
	{"label-filter", "its checks are one set: every operation once"},
	{"focus", "its checks are one set: every operation once"},
}

// applySmoke sets what the smoke profile implies (the explore phase off,
// the deadline SmokeDeadline unless given) and refuses what it excludes;
// given are the flags set, on the command line or by the environment.
func (c *Config) applySmoke(given map[string]bool) error {
	if !c.smoke() {
		return nil
	}
	var errs []error
	for _, x := range smokeExcludes {
		if given[x.flag] {
			errs = append(errs, fmt.Errorf("--profile %s: --%s does not apply: %s", ProfileSmoke, x.flag, x.why))
		}
	}
	if given["explore"] && c.Explore > 0 {
		errs = append(errs, fmt.Errorf("--profile %s: --explore %d: the explore phase writes; a smoke run has none (--explore 0)", ProfileSmoke, c.Explore))
	}
	c.Explore = 0
	if !given["deadline"] {
		c.Deadline = SmokeDeadline
	}
	return errors.Join(errs...)
}

// labelFilter is the filter a run applies: the Smoke area alone in a smoke
// run; else the user's, with the rate-limit checks and the Smoke area left
// out unless the filter names them.
func (c Config) labelFilter() string {
	if c.smoke() {
		return smokeLabel
	}
	f := c.LabelFilter
	var out []string
	for _, label := range []string{"rate-limit", smokeLabel} {
		if !strings.Contains(f, label) {
			out = append(out, "!"+label)
		}
	}
	switch {
	case len(out) == 0:
		return f
	case strings.TrimSpace(f) == "":
		return strings.Join(out, " && ")
	}
	return "(" + f + ") && " + strings.Join(out, " && ")
}

// listFilter is the filter of --list: the user's as given (the rate-limit
// checks and the Smoke area listed too), the Smoke area's in a smoke run.
func (c Config) listFilter() string {
	if c.smoke() {
		return smokeLabel
	}
	return c.LabelFilter
}
