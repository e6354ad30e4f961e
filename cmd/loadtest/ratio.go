package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"contractkit/internal/loadgen"
)

// scenario is one request measured against every server.
type scenario struct {
	name   string
	method string
	path   string
	body   []byte
	prism  bool // also measured against Prism
}

func scenarios(modelID int64) []scenario {
	id := strconv.FormatInt(modelID, 10)
	return []scenario{
		{name: "GET /api/v1/user/model/{id}", method: http.MethodGet, path: "/api/v1/user/model/" + id, prism: true},
		{name: "POST /api/v1/user/conversations", method: http.MethodPost, path: "/api/v1/user/conversations",
			body: []byte(`{"model_id":` + id + `,"title":"Warranty questions"}`)},
	}
}

func (sc scenario) request(addr string) loadgen.Request {
	h := map[string]string{"Authorization": "Bearer " + apiKey}
	if sc.body != nil {
		h["Content-Type"] = "application/json"
	}
	return loadgen.NewRequest(sc.name, sc.method, addr, sc.path, h, sc.body)
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func runRatio(ctx context.Context, cfg config, out io.Writer) error {
	mock, err := startMock(ctx, cfg)
	if err != nil {
		return err
	}
	defer mock.stop()
	prism, err := startPrism(ctx, cfg)
	if err != nil {
		return err
	}
	if prism != nil {
		defer prism.stop()
	} else {
		fmt.Fprintf(out, "Prism not measured (--prism-bin %s; to install: cd tools/prism && npm ci)\n", cfg.prismBin)
	}
	var px, limit, base *proc
	if _, err := os.Stat(cfg.proxyBin); err == nil && cfg.proxyBin != "none" {
		if px, err = startProxy(ctx, cfg, mock.Addr); err != nil {
			return err
		}
		defer px.stop()
		// The limit: forwarding alone, measured in the same rounds.
		if limit, err = startForward(ctx, mock.Addr); err != nil {
			return err
		}
		defer limit.stop()
		if cfg.proxyBase != "" {
			bc := cfg
			bc.proxyBin = cfg.proxyBase
			if base, err = startProxy(ctx, bc, mock.Addr); err != nil {
				return err
			}
			base.name = "base"
			defer base.stop()
		}
	} else {
		fmt.Fprintf(out, "the validating proxy not measured (--proxy-bin %s; make build)\n", cfg.proxyBin)
	}
	modelID, err := readyModel(mock.Addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "ratio: %d round(s) x %s per server, %d connections, mock --log-level %s, GOMAXPROCS of each server = its default;\n"+
		"the mock's account is reset to its fixtures before each round that reaches it (direct or through the proxy)\n",
		cfg.rounds, cfg.duration, cfg.conns, cfg.logLevel)
	if load, err := loadAverage(); err == nil {
		fmt.Fprintf(out, "load average at the start: %s\n", load)
	}
	for _, sc := range scenarios(modelID) {
		if err := measureScenario(ctx, cfg, out, sc, mock, prism, px, limit, base); err != nil {
			return err
		}
	}
	if load, err := loadAverage(); err == nil {
		fmt.Fprintf(out, "\nload average at the end: %s\n", load)
	}
	return nil
}

// measureScenario measures one scenario on every server, alternating the
// order round by round, and prints the rates, the CPU per answer and the
// ratios of each round's pair (the mock against bare and Prism, the proxy
// against the mock direct).
func measureScenario(ctx context.Context, cfg config, out io.Writer, sc scenario, mock, prism, px, limit, base *proc) error {
	answer, err := capture(mock.Addr, sc.method, sc.path, sc.body)
	if err != nil {
		return err
	}
	bare, stopBare, err := startBare(ctx, answer)
	if err != nil {
		return err
	}
	defer stopBare()
	targets := []*proc{mock, bare}
	if sc.prism && prism != nil {
		targets = append(targets, prism)
	}
	if px != nil {
		targets = append(targets, px, limit)
	}
	if base != nil {
		targets = append(targets, base)
	}
	rates := map[string][]float64{}
	cpu := map[string][]float64{}    // CPU microseconds per answer, from /proc
	behind := map[string][]float64{} // the mock's CPU per answer while it served a proxy
	gen := map[string][]float64{}    // the load generator's (this process's) CPU per answer
	for _, t := range targets {      // warm up: connections, caches, JIT (Prism)
		loadgen.Hammer(t.Addr, sc.request(t.Addr), cfg.conns, time.Second)
	}
	for r := range cfg.rounds {
		order := slices.Clone(targets)
		if r%2 == 1 {
			slices.Reverse(order) // alternate who goes first
		}
		for _, t := range order {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if t == mock || t == px || t == limit || t == base {
				if err := resetMock(mock.Addr); err != nil {
					return err
				}
			}
			before, cpuErr := cpuTime(t.Pid())
			genBefore, genErr := cpuTime(os.Getpid())
			mockBefore, mockErr := cpuTime(mock.Pid())
			res := loadgen.Hammer(t.Addr, sc.request(t.Addr), cfg.conns, cfg.duration)
			if res.OK == 0 || res.Failed > 0 {
				return fmt.Errorf("%s against %s: %d ok, %d failed (first: %v)", sc.name, t.name, res.OK, res.Failed, res.FirstErr)
			}
			rates[t.name] = append(rates[t.name], res.Rate())
			if after, err := cpuTime(os.Getpid()); err == nil && genErr == nil {
				gen[t.name] = append(gen[t.name], perAnswer(after-genBefore, res.OK))
			}
			if after, err := cpuTime(t.Pid()); err == nil && cpuErr == nil {
				cpu[t.name] = append(cpu[t.name], perAnswer(after-before, res.OK))
			}
			if after, err := cpuTime(mock.Pid()); (t == px || t == limit || t == base) && err == nil && mockErr == nil {
				behind[t.name] = append(behind[t.name], perAnswer(after-mockBefore, res.OK))
			}
		}
	}
	fmt.Fprintf(out, "\n%s\n", sc.name)
	for _, t := range targets {
		fmt.Fprintf(out, "  %-6s req/s median %8.0f  rounds %s", t.name, median(rates[t.name]), fmtRates(rates[t.name]))
		if c := cpu[t.name]; len(c) == len(rates[t.name]) {
			fmt.Fprintf(out, "   CPU per answer %5.1f us", median(c))
		}
		if b := behind[t.name]; len(b) > 0 && len(b) == len(rates[t.name]) {
			fmt.Fprintf(out, " (and the mock behind it %5.1f us)", median(b))
		}
		if g := gen[t.name]; len(g) > 0 {
			fmt.Fprintf(out, " [load generator %4.1f us]", median(g))
		}
		fmt.Fprintln(out)
	}
	ratios := ratioLine(out, "mock/bare ", "%.2f", "", rates["mock"], rates["bare"])
	if m, b := cpu["mock"], cpu["bare"]; len(m) == len(ratios) && len(b) == len(ratios) {
		// The server's own CPU per answer is steadier than req/s on a
		// shared machine: it explains the ratio, it does not replace it.
		fmt.Fprintf(out, "  CPU per answer, bare/mock %.2f (the throughput the mock could reach alone, as a share of bare)\n", median(b)/median(m))
	}
	if p := rates["Prism"]; len(p) > 0 {
		ratioLine(out, "mock/Prism", "%.1f", "", rates["mock"], p)
	}
	if p := rates["proxy"]; len(p) > 0 {
		ratioLine(out, "proxy/direct", "%.2f", ": through the proxy to the mock / the mock direct", p, rates["mock"])
		if c, m, b := cpu["proxy"], cpu["mock"], behind["proxy"]; len(c) == len(p) && len(b) == len(p) && len(m) == len(p) {
			// Load generator aside, a round costs the proxy's CPU and the
			// mock's per answer, where direct costs the mock's alone.
			fmt.Fprintf(out, "  CPU per answer, direct/(proxy + mock behind it) %.2f (the share of direct the two could reach alone)\n",
				median(m)/(median(c)+median(b)))
		}
	}
	if b := rates["base"]; len(b) > 0 {
		ratioLine(out, "proxy/base", "%.2f", ": --proxy-bin / --proxy-base", rates["proxy"], b)
	}
	if l := rates["limit"]; len(l) > 0 {
		ratioLine(out, "limit/direct", "%.2f", ": a bare ReverseProxy, same transport, no judging / the mock direct", l, rates["mock"])
		if p := rates["proxy"]; len(p) == len(l) {
			ratioLine(out, "proxy/limit", "%.2f", ": the judged proxy / forwarding alone", p, l)
		}
	}
	return nil
}

// ratioLine prints the median of the per-round ratios a/b, then each
// round's, as "  LABEL MEDIAN (median of per-round ratios R1 R2 ...WHAT)";
// it returns the per-round ratios.
func ratioLine(out io.Writer, label, format, what string, a, b []float64) []float64 {
	r := perRound(a, b)
	fmt.Fprintf(out, "  %s "+format+" (median of per-round ratios %s%s)\n", label, median(r), fmtRatios(r), what)
	return r
}

func perAnswer(d time.Duration, answers int64) float64 {
	return float64(d.Microseconds()) / float64(answers)
}

// perRound divides each round's a by the same round's b.
func perRound(a, b []float64) []float64 {
	var out []float64
	for i := range min(len(a), len(b)) {
		out = append(out, a[i]/b[i])
	}
	return out
}

// loadAverage is the first three fields of /proc/loadavg: the machine's
// load over 1, 5 and 15 minutes, printed with each run.
func loadAverage() (string, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "", err
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "", fmt.Errorf("short /proc/loadavg")
	}
	return strings.Join(f[:3], " "), nil
}

func fmtRates(v []float64) string {
	s := ""
	for _, x := range v {
		s += fmt.Sprintf(" %.0f", x)
	}
	return s
}

func fmtRatios(v []float64) string {
	s := ""
	for _, x := range v {
		s += fmt.Sprintf(" %.2f", x)
	}
	return s
}
