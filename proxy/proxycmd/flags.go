package proxycmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"contractkit/internal/envflag"
	"contractkit/internal/pprofserve"
	"contractkit/proxy"
)

// Options are the proxy's command line.
type Options struct {
	// Listen is the proxy's address (HOST:PORT).
	Listen string
	// Target is the server's base address.
	Target *url.URL
	// JSON, JUnit and HTML are the report files written on stop.
	JSON, JUnit, HTML string
	// Coverage is a JSON file for the contract coverage ("" for none).
	Coverage string
	// Record is a directory the traffic is written to as a fixture set
	// ("" for none).
	Record string
	// Strict fails the run on decided differences too.
	Strict bool
	// Bounds bound every answer that passes.
	Bounds proxy.Bounds
	// Pprof is a loopback address net/http/pprof is served on ("": off).
	Pprof string
	// GCFloorMB is the garbage collector's heap target floor (0: off).
	GCFloorMB int
}

// DefaultListen is where the proxy listens without --listen.
const DefaultListen = "127.0.0.1:8081"

type flagSpec struct{ name, arg, help string }

var flagSpecs = []flagSpec{
	{"listen", "HOST:PORT", "where the proxy listens (default " + DefaultListen + "; port 0 picks a free one)"},
	{"target", "URL", "the server the traffic goes to; the API lives under /api/v1 (required)"},
	{"json", "FILE", "on stop, write a JSON report (the suite's format, schema contractkit/report/v1)"},
	{"junit", "FILE", "on stop, write a JUnit XML report"},
	{"html", "FILE", "on stop, write an HTML report"},
	{"coverage", "FILE", "on stop, write the contract coverage of the traffic as JSON"},
	{"record", "DIR", "on stop, write what passed as a fixture set (mockserver --fixtures DIR)"},
	{"strict", "", "also fail on decided (not declared) differences"},
	{"max-answer", "MIB", fmt.Sprintf("cut an answer over MIB MiB (default %d), a finding", proxy.DefaultMaxAnswer>>20)},
	{"stream-idle", "D", fmt.Sprintf("cut a stream that sends no event for D (default %s), a finding", proxy.DefaultStreamIdle)},
	{"stream-duration", "D", fmt.Sprintf("cut an answer still going after D (default %s), a finding", proxy.DefaultStreamDuration)},
	{"answer-timeout", "D", fmt.Sprintf("answer 502 when the target sends no headers within D (default %s)", proxy.DefaultAnswerTimeout)},
	{"gc-floor", "MB", fmt.Sprintf("keep the garbage collector's heap target at or above MB megabytes while the live heap is small: fewer collections under load (default %d; 0 turns it off, and so does a GOGC environment variable)", DefaultGCFloorMB)},
	{"pprof", "HOST:PORT", "serve net/http/pprof on its own listener at a loopback HOST:PORT, to profile the proxy (off when empty)"},
}

// envPrefix starts the environment variable of every flag.
const envPrefix = "CONFORMANCE_PROXY_"

// ParseFlags parses args (after "proxy"). A flag not given takes its
// environment variable (getenv). Help writes the usage to out and returns
// flag.ErrHelp; any other error is a usage error.
func ParseFlags(args []string, getenv func(string) string, out io.Writer) (Options, error) {
	o := Options{}
	var target string
	fs := flag.NewFlagSet("conformance proxy", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.Listen, "listen", DefaultListen, "")
	fs.StringVar(&target, "target", "", "")
	fs.StringVar(&o.JSON, "json", "", "")
	fs.StringVar(&o.JUnit, "junit", "", "")
	fs.StringVar(&o.HTML, "html", "", "")
	fs.StringVar(&o.Coverage, "coverage", "", "")
	fs.StringVar(&o.Record, "record", "", "")
	fs.BoolVar(&o.Strict, "strict", false, "")
	maxAnswer := int64(proxy.DefaultMaxAnswer >> 20)
	fs.Int64Var(&maxAnswer, "max-answer", maxAnswer, "")
	o.Bounds = proxy.DefaultBounds
	fs.DurationVar(&o.Bounds.StreamIdle, "stream-idle", proxy.DefaultStreamIdle, "")
	fs.DurationVar(&o.Bounds.StreamDuration, "stream-duration", proxy.DefaultStreamDuration, "")
	fs.DurationVar(&o.Bounds.AnswerTimeout, "answer-timeout", proxy.DefaultAnswerTimeout, "")
	fs.StringVar(&o.Pprof, "pprof", "", "")
	fs.IntVar(&o.GCFloorMB, "gc-floor", DefaultGCFloorMB, "")
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
	if err := envflag.Apply(fs, envflag.Prefixed(envPrefix), getenv); err != nil {
		errs = append(errs, err)
	}
	o.Bounds.Answer = maxAnswer << 20
	for name, d := range map[string]time.Duration{"--stream-idle": o.Bounds.StreamIdle, "--stream-duration": o.Bounds.StreamDuration, "--answer-timeout": o.Bounds.AnswerTimeout} {
		if d <= 0 {
			errs = append(errs, fmt.Errorf("%s %s: want a positive duration", name, d))
		}
	}
	if maxAnswer <= 0 || maxAnswer > 1<<20 {
		errs = append(errs, fmt.Errorf("--max-answer %d: want a number of MiB, 1 to %d", maxAnswer, 1<<20))
	}
	u, err := url.Parse(target)
	switch {
	case target == "":
		errs = append(errs, errors.New("--target is required"))
	case err != nil:
		errs = append(errs, fmt.Errorf("--target: %v", err))
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		errs = append(errs, fmt.Errorf("--target %q: want an absolute http or https URL", target))
	default:
		o.Target = u
	}
	if o.GCFloorMB < 0 || o.GCFloorMB > 1<<20 {
		errs = append(errs, fmt.Errorf("--gc-floor %d: want a number of megabytes, 0 to %d", o.GCFloorMB, 1<<20))
	}
	if o.Pprof != "" {
		if err := pprofserve.CheckLoopback(o.Pprof); err != nil {
			errs = append(errs, err)
		}
	}
	if _, _, err := net.SplitHostPort(o.Listen); err != nil {
		errs = append(errs, fmt.Errorf("--listen %q: want HOST:PORT", o.Listen))
	}
	for name, path := range map[string]string{"--json": o.JSON, "--junit": o.JUnit, "--html": o.HTML, "--coverage": o.Coverage} {
		if path == "" {
			continue
		}
		// Opened now, so an unwritable path is a usage error before any
		// traffic passes, not a lost report at the end.
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", name, err))
			continue
		}
		f.Close()
	}
	if o.Record != "" {
		if fi, err := os.Stat(o.Record); err == nil && !fi.IsDir() {
			errs = append(errs, fmt.Errorf("--record %q: not a directory", o.Record))
		}
	}
	return o, errors.Join(errs...)
}

func writeUsage(out io.Writer) {
	var b strings.Builder
	b.WriteString(`Usage: conformance proxy --target URL [--listen HOST:PORT] [flags]

A validating proxy: forwards every request to the target and every answer back
unchanged (event streams as they arrive), and judges each exchange against the
contract with the suite's own judge. Each finding is printed as it happens, with a
curl line that replays it (the key read from $CONFORMANCE_API_KEY). On SIGINT or
SIGTERM it writes its reports and exits.

Flags (each may also be set by the environment variable shown; a flag wins):
`)
	for _, f := range flagSpecs {
		name := "--" + f.name
		if f.arg != "" {
			name += " " + f.arg
		}
		fmt.Fprintf(&b, "  %-22s %s\n  %-22s env %s\n", name, f.help, "", envflag.Name(envPrefix, f.name))
	}
	fmt.Fprintf(&b, `
Bounds: a request body is held in memory up to %d MiB (the contract's upload
bound, D-15) to be judged; a larger one is forwarded whole, judged by its
parameters only. A JSON answer is judged up to %d MiB; over it, by its status
and headers only. Every event of a stream is judged as it passes. An answer is
forwarded within the bounds above (size, silence, duration; headers up to 1 MiB,
one event up to 1 MiB, a body at least 1 KiB/s after 5 s): one over a bound is
cut, its client sees the connection end, and the bound is the exchange's finding.

Exit status: 0 no declared violation was seen (with --strict: no violation at
all); 1 a violation was seen; 2 a usage error or the address cannot be listened on.
A request the contract refuses is the client's fault: reported, never failing.
`, proxy.MaxHeldRequest()>>20, proxy.MaxHeldAnswer>>20)
	io.WriteString(out, b.String())
}

// flagLine renders the options as the command's flags, for the reports.
func (o Options) flagLine() []string {
	out := []string{"proxy", "--listen=" + o.Listen}
	if o.Target != nil {
		out = append(out, "--target="+o.Target.String())
	}
	for _, f := range []struct{ name, v string }{{"json", o.JSON}, {"junit", o.JUnit}, {"html", o.HTML}, {"coverage", o.Coverage}, {"record", o.Record}} {
		if f.v != "" {
			out = append(out, "--"+f.name+"="+f.v)
		}
	}
	if o.Strict {
		out = append(out, "--strict")
	}
	if o.Bounds != proxy.DefaultBounds && o.Bounds != (proxy.Bounds{}) {
		out = append(out, fmt.Sprintf("--max-answer=%d", o.Bounds.Answer>>20), "--stream-idle="+o.Bounds.StreamIdle.String(),
			"--stream-duration="+o.Bounds.StreamDuration.String(), "--answer-timeout="+o.Bounds.AnswerTimeout.String())
	}
	return out
}
