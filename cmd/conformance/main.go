// Command conformance certifies a server against the API contract. It is a
// thin wrapper over package contractkit/conformance: see --help, and the
// exit statuses there (0 pass, 1 fail, 2 usage, 3 unreachable).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"contractkit/conformance"
	"contractkit/internal/version"
)

func main() {
	opts, err := conformance.ParseFlags(os.Args[1:], os.Getenv, os.Stdout)
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(conformance.ExitPass)
	case err != nil:
		fmt.Fprintf(os.Stderr, "conformance: %v\n(see --help)\n", err)
		os.Exit(conformance.ExitUsage)
	case opts.Version:
		fmt.Println("conformance", version.Get())
		os.Exit(conformance.ExitPass)
	case opts.Clauses:
		os.Exit(conformance.Clauses(os.Stdout))
	case opts.List:
		os.Exit(conformance.List(opts.Config, os.Stdout))
	}
	os.Exit(conformance.Run(opts.Config, os.Stdout))
}
