// Package proxycmd is the command `conformance proxy`: the validating
// proxy's core (package proxy) wired to its flags, to the observers that
// feed the contract coverage and the recording of fixtures, and to the
// report files written on stop. It is apart from the core so that the core
// links no recorder (the mock's text extraction, a PDF library), no
// coverage recorder and no flag parsing; cmd/conformance runs it.
package proxycmd

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"contractkit/coverage"
	"contractkit/internal/gcfloor"
	"contractkit/internal/pprofserve"
	"contractkit/proxy"
	"contractkit/recording"
	"contractkit/report"
	"contractkit/spec"
)

// Exit statuses, the suite's own (cmd/conformance).
const (
	// ExitPass: no declared violation was seen (with --strict, none at all).
	ExitPass = 0
	// ExitFail: a violation was seen, or a report could not be written.
	ExitFail = 1
	// ExitUsage: a usage error, or the address cannot be listened on.
	ExitUsage = 2
)

// DefaultGCFloorMB is --gc-floor's default. The proxy's live heap is about
// 34 MB (the contract compiled in both views, and the judge), over twice the
// mock's, and every exchange allocates about 12 KB: a floor of 64 MB left
// some 30 MB to allocate between collections, a collection every 2,400
// exchanges or so, each marking the whole contract again (10 to 20 µs of CPU
// per answer, make profile-proxy). At 160 MB a collection comes four times
// less often; the price is that much more resident memory under load.
const DefaultGCFloorMB = 160

// drainTime bounds how long a stop waits for the exchanges in flight (a
// stream may never end by itself) before their connections are closed.
const drainTime = 3 * time.Second

// Main is the command `conformance proxy`: ParseFlags, then Run.
type Main struct {
	Stdout io.Writer
	// Signals stops the proxy (SIGINT, SIGTERM: the caller subscribes).
	Signals <-chan os.Signal
	// Addr, when set, receives the address listened on (tests).
	Addr chan<- string
	// Observers get every exchange, besides the coverage and the
	// recording the flags ask for.
	Observers []proxy.Observer

	opts Options
}

// ParseFlags reads args (after "proxy") and the environment.
func (m *Main) ParseFlags(args []string, getenv func(string) string) error {
	var err error
	m.opts, err = ParseFlags(args, getenv, m.Stdout)
	return err
}

// Run listens, forwards and judges until a signal, then writes the reports
// and returns the exit status.
func (m *Main) Run() int {
	ln, err := net.Listen("tcp", m.opts.Listen)
	if err != nil {
		fmt.Fprintf(m.Stdout, "conformance proxy: %v\n", err)
		return ExitUsage
	}
	if m.opts.Pprof != "" {
		pln, ps, err := pprofserve.Listen(m.opts.Pprof)
		if err != nil {
			ln.Close()
			fmt.Fprintf(m.Stdout, "conformance proxy: %v\n", err)
			return ExitUsage
		}
		defer ps.Close()
		go func() { _ = ps.Serve(pln) }()
		fmt.Fprintf(m.Stdout, "pprof on http://%s/debug/pprof/\n", pln.Addr())
	}
	lg := proxy.NewLog(m.Stdout)
	cov := coverage.New(spec.Strict())
	observers := append([]proxy.Observer{CoverageObserver{cov}}, m.Observers...)
	var rec *recording.Recorder
	if m.opts.Record != "" {
		rec = recording.New()
		observers = append(observers, RecordingObserver{rec})
	}
	p := proxy.New(m.opts.Target, lg, observers...)
	p.SetBounds(m.opts.Bounds)
	// After the start-up (the contract compiled), as the mock does: every
	// exchange allocates a few kilobytes over a live heap of about the
	// compiled contract, so without a floor the collector runs every few
	// thousand exchanges and marks the whole contract again. A GOGC set
	// by the user is theirs.
	if m.opts.GCFloorMB > 0 && os.Getenv("GOGC") == "" {
		t := gcfloor.Start(uint64(m.opts.GCFloorMB)<<20, 100)
		defer t.Stop()
	}
	hs := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
	start := time.Now()
	fmt.Fprintf(m.Stdout, "proxy listening on http://%s → %s\n", ln.Addr(), m.opts.Target)
	if m.Addr != nil {
		m.Addr <- ln.Addr().String()
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case sig := <-m.Signals:
		lg.Note("proxy: %s: stopping", sig)
	case err := <-errc:
		fmt.Fprintf(m.Stdout, "conformance proxy: %v\n", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), drainTime)
	if hs.Shutdown(ctx) != nil {
		hs.Close() // the streams still open are cut: their clients are told so
	}
	cancel()
	p.Wait(drainTime)
	return m.stop(lg, start, cov, rec)
}

// stop writes the reports and the summary and says how the run ended.
func (m *Main) stop(lg *proxy.Log, start time.Time, cov *coverage.Recorder, rec *recording.Recorder) int {
	r := lg.Report(m.opts.Target.String(), m.opts.Strict, start, time.Now())
	r.Info = report.NewRunInfo(m.opts.flagLine())
	covReport := cov.Report()
	r.Coverage = &covReport
	ro := report.Options{JSON: m.opts.JSON, JUnit: m.opts.JUnit, HTML: m.opts.HTML, Coverage: m.opts.Coverage}
	status := ExitPass
	if err := report.WriteReports(r, ro); err != nil {
		fmt.Fprintf(m.Stdout, "conformance proxy: %v\n", err)
		status = ExitFail
	}
	if rec != nil {
		if err := rec.Write(m.opts.Record); err != nil {
			fmt.Fprintf(m.Stdout, "conformance proxy: --record: %v\n", err)
			status = ExitFail
		} else {
			fmt.Fprintf(m.Stdout, "recorded to %s:\n", m.opts.Record)
			for _, line := range rec.Summary().Lines() {
				fmt.Fprintf(m.Stdout, "  %s\n", line)
			}
		}
	}
	fmt.Fprintln(m.Stdout, covReport.Line())
	declared, decided, client := lg.Counts()
	ops, outside := lg.Seen()
	fmt.Fprintf(m.Stdout, "proxy summary: %d operation(s) seen, %d request(s) outside the contract; %d declared violation(s), %d decided difference(s), %d client fault(s)\n",
		ops, outside, declared, decided, client)
	for _, path := range []string{m.opts.JSON, m.opts.JUnit, m.opts.HTML, m.opts.Coverage} {
		if path != "" {
			fmt.Fprintf(m.Stdout, "report: %s\n", path)
		}
	}
	if declared > 0 || (m.opts.Strict && decided > 0) {
		return ExitFail
	}
	return status
}
