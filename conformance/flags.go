package conformance

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"contractkit/exchange"
	"contractkit/internal/envflag"
)

// Options is a parsed command line: the run's Config and what to do.
type Options struct {
	Config
	// List prints the checks and runs nothing.
	List bool
	// Clauses prints the traceability document (CLAUSES.md) and runs nothing.
	Clauses bool
	// Version prints what the binary was built from and runs nothing.
	Version bool
}

// flagSpec is one flag: its name, value placeholder, environment variable
// and help.
type flagSpec struct {
	name, arg, env, help string
}

var flagSpecs = []flagSpec{
	{"base-url", "URL", "CONFORMANCE_BASE_URL", "the service base address; the API lives under /api/v1 (required)"},
	{"api-key", "KEY", "CONFORMANCE_API_KEY", "an API key of the account the checks use (required)"},
	{"api-key-2", "KEY", "CONFORMANCE_API_KEY_2", "a second account's key; enables the isolation checks"},
	{"junit", "FILE", "CONFORMANCE_JUNIT", "write a JUnit XML report"},
	{"json", "FILE", "CONFORMANCE_JSON", "write a JSON report (schema contractkit/report/v1)"},
	{"html", "FILE", "CONFORMANCE_HTML", "write an HTML report"},
	{"markdown", "FILE", "CONFORMANCE_MARKDOWN", "write the verdict, each failed check with its curl lines and what changed\n(--compare) as Markdown: a CI job's page (GitHub's $GITHUB_STEP_SUMMARY)"},
	{"compare", "FILE", "CONFORMANCE_COMPARE", "a previous run's JSON report (--json): say what changed since (checks that\nfailed or passed again, operations and answer fields that appeared in or left\nthe coverage); a missing or empty FILE has nothing to compare, FILE may be\n--json's own (read before the run)"},
	{"coverage", "FILE", "CONFORMANCE_COVERAGE", "write the contract coverage as JSON (per operation: statuses seen and never\nseen, answer fields never observed); its total line ends every summary"},
	{"label-filter", "EXPR", "CONFORMANCE_LABEL_FILTER", "run the checks whose labels match EXPR, in Ginkgo's syntax (auth, seed:3.1.1,\nD-13, declared, !decided, models && !decided, ...); the rate-limit checks\nrun only when EXPR names rate-limit"},
	{"focus", "REGEX", "CONFORMANCE_FOCUS", "run the checks whose text matches"},
	{"timeout", "D", "CONFORMANCE_TIMEOUT", "the longest wait for a state change (a model ready, an evaluation\nfinished) or for an inference stream (default 2m)"},
	{"explore", "N", "CONFORMANCE_EXPLORE", "after the written checks, explore with N generated requests (default 1000;\nat most 40 s, shrinking a failure included; 0 turns the phase off)"},
	{"seed", "N", "CONFORMANCE_SEED", "the seed of the explore phase (default: a random one, printed in every\nreport); the same seed replays the same requests against a fresh server"},
	{"replay", "FILE", "CONFORMANCE_REPLAY", "the explore phase's kept failures: the reference model's failing seeds and\nsequences are appended to FILE (JSON lines), and a later run replays them first"},
	{"deadline", "D", "CONFORMANCE_DEADLINE", "bound the whole run (default none): past D the check running is stopped,\nthe rest skipped, clean-up runs, the reports are written and the run fails"},
	{"max-memory", "MIB", "CONFORMANCE_MAX_MEMORY", "the suite's own memory bound in MiB (default 512; GOMEMLIMIT wins); every\nanswer is read within size and time bounds whatever the server does"},
	{"strict", "", "CONFORMANCE_STRICT", "also fail on decided (not declared) behaviour"},
	{"keep", "", "CONFORMANCE_KEEP", "leave the resources the checks create in place"},
	{"list", "", "CONFORMANCE_LIST", "print every check with its labels and seed clauses, run nothing"},
	{"clauses", "", "CONFORMANCE_CLAUSES", "print the traceability document (conformance/CLAUSES.md), run nothing"},
	{"version", "", "CONFORMANCE_VERSION", "print the kit's version and the contract's version and sha256, run nothing"},
	{"budget", "KIND=N,...", "CONFORMANCE_BUDGET", budgetHelp},
	{"reuse-model", "ID", "CONFORMANCE_REUSE_MODEL", reuseHelp},
	{"profile", "NAME", "CONFORMANCE_PROFILE", profileHelp},
}

// ParseFlags parses args (without the program name). A flag that is not
// given takes its environment variable (getenv); a flag given wins. Help
// (-h, --help) writes the usage to out and returns flag.ErrHelp; any other
// error is a usage error (exit status ExitUsage).
func ParseFlags(args []string, getenv func(string) string, out io.Writer) (Options, error) {
	o := Options{Config: Config{Timeout: DefaultTimeout, Explore: DefaultExplore, MaxMemory: DefaultMaxMemory}}
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	strs := map[string]*string{
		"base-url": &o.BaseURL, "api-key": &o.APIKey, "api-key-2": &o.APIKey2,
		"junit": &o.JUnit, "json": &o.JSON, "html": &o.HTML, "coverage": &o.Coverage,
		"markdown": &o.Markdown, "compare": &o.Compare,
		"label-filter": &o.LabelFilter, "focus": &o.Focus, "replay": &o.Replay,
	}
	bools := map[string]*bool{"strict": &o.Strict, "keep": &o.Keep, "list": &o.List, "clauses": &o.Clauses, "version": &o.Version}
	for _, f := range flagSpecs {
		switch {
		case strs[f.name] != nil:
			fs.StringVar(strs[f.name], f.name, "", f.help)
		case bools[f.name] != nil:
			fs.BoolVar(bools[f.name], f.name, false, f.help)
		case f.name == "timeout":
			fs.DurationVar(&o.Timeout, f.name, DefaultTimeout, f.help)
		case f.name == "explore":
			fs.IntVar(&o.Explore, f.name, DefaultExplore, f.help)
		case f.name == "seed":
			fs.Uint64Var(&o.Seed, f.name, 0, f.help)
		case f.name == "deadline":
			fs.DurationVar(&o.Deadline, f.name, 0, f.help)
		case f.name == "max-memory":
			fs.Int64Var(&o.MaxMemory, f.name, DefaultMaxMemory, f.help)
		default:
			o.Spend.bind(fs, f.name, f.help)
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			writeUsage(out)
		}
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q (flags only; see --help)", fs.Arg(0))
	}
	var errs []error
	if err := envflag.Apply(fs, envName, getenv); err != nil {
		errs = append(errs, err)
	}
	if o.List && o.Clauses {
		errs = append(errs, errors.New("--list and --clauses exclude each other"))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	errs = append(errs, o.Spend.resolve(), o.applySmoke(given))
	return o, errors.Join(errs...)
}

// envName is the environment variable of a flag, from flagSpecs.
func envName(flagName string) string {
	for _, f := range flagSpecs {
		if f.name == flagName {
			return f.env
		}
	}
	return ""
}

// writeUsage writes --help: no value taken from the environment is shown,
// so a key never appears.
func writeUsage(out io.Writer) {
	var b strings.Builder
	b.WriteString(`Usage: conformance --base-url URL --api-key KEY [flags]
       conformance proxy --target URL [--listen HOST:PORT] [flags]
         (the validating proxy: see conformance proxy --help)

Certifies a server against the API contract (spec/openapi.yaml, spec/DECISIONS.md):
declared checks test the seed's rules and fail the run; decided checks test the
contract's own decisions, are reported as "decided: differs" and fail the run only
with --strict. A summary per area ends every run.

Flags (each may also be set by the environment variable shown; a flag wins):
`)
	for _, f := range flagSpecs {
		name := "--" + f.name
		if f.arg != "" {
			name += " " + f.arg
		}
		for i, line := range strings.Split(f.help, "\n") {
			if i > 0 {
				name = ""
			}
			fmt.Fprintf(&b, "  %-22s %s\n", name, line)
		}
		fmt.Fprintf(&b, "  %-22s env %s\n", "", f.env)
	}
	b.WriteString(`
Exit status: 0 every selected declared check passed (decided ones too with --strict);
1 a check failed, or the run was stopped (--deadline, SIGINT, SIGTERM: the reports
are written with what ran); 2 a usage or configuration error; 3 the base URL cannot
be reached; 4 every check passed but the run left resources behind (listed with
their ids).
`)
	io.WriteString(out, b.String())
}

// flagLine renders the settings that differ from the defaults as flags. The
// keys are never written: a key flag shows only that it was given.
func (c Config) flagLine() []string {
	var out []string
	add := func(name, v string) {
		if v != "" {
			out = append(out, "--"+name+"="+v)
		}
	}
	add("base-url", exchange.NewRedactor(c.APIKey, c.APIKey2).String(c.BaseURL))
	if c.APIKey != "" {
		add("api-key", "<redacted>")
	}
	if c.APIKey2 != "" {
		add("api-key-2", "<redacted>")
	}
	add("junit", c.JUnit)
	add("json", c.JSON)
	add("html", c.HTML)
	add("coverage", c.Coverage)
	add("markdown", c.Markdown)
	add("compare", c.Compare)
	add("label-filter", c.LabelFilter)
	add("focus", c.Focus)
	if c.Timeout != DefaultTimeout && c.Timeout != 0 {
		add("timeout", c.Timeout.String())
	}
	if c.Explore != DefaultExplore {
		add("explore", fmt.Sprint(c.Explore))
	}
	if c.Explore > 0 && c.Seed != 0 {
		add("seed", fmt.Sprint(c.Seed))
	}
	if c.Deadline > 0 {
		add("deadline", c.Deadline.String())
	}
	if c.MaxMemory != DefaultMaxMemory && c.MaxMemory != 0 {
		add("max-memory", fmt.Sprint(c.MaxMemory))
	}
	if c.Strict {
		out = append(out, "--strict")
	}
	if c.Keep {
		out = append(out, "--keep")
	}
	return append(out, c.Spend.flags()...)
}
