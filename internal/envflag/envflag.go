// Package envflag lets every flag of a flag.FlagSet also be set from an
// environment variable, the flag winning when both are given. The three
// command-line tools share it so they read their environment the same way.
package envflag

import (
	"errors"
	"flag"
	"fmt"
	"strings"
)

// Name derives an environment variable from a flag name: Name("MOCK_",
// "train-duration") is "MOCK_TRAIN_DURATION".
func Name(prefix, flagName string) string {
	return prefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// Apply sets, from the environment (getenv), every flag of fs that was not
// given on the command line; env maps a flag name to its variable. Call it
// after fs.Parse. Every bad value is reported (errors.Join), naming the
// variable; the value itself is not echoed, since it may be a key.
func Apply(fs *flag.FlagSet, env func(flagName string) string, getenv func(string) string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		name := env(f.Name)
		v := getenv(name)
		if given[f.Name] || v == "" {
			return
		}
		if err := fs.Set(f.Name, v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", name, err))
		}
	})
	return errors.Join(errs...)
}

// Prefixed is the usual env argument of Apply: every flag's variable is
// Name(prefix, flag).
func Prefixed(prefix string) func(string) string {
	return func(flagName string) string { return Name(prefix, flagName) }
}
