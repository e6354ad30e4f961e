package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
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
	modelID, err := readyModel(mock.Addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "ratio: %d round(s) x %s per server, %d connections, mock --log-level %s, GOMAXPROCS of each server = its default;\n"+
		"the mock's account is reset to its fixtures before each of its rounds\n",
		cfg.rounds, cfg.duration, cfg.conns, cfg.logLevel)
	for _, sc := range scenarios(modelID) {
		answer, err := capture(mock.Addr, sc.method, sc.path, sc.body)
		if err != nil {
			return err
		}
		bare, stopBare, err := startBare(ctx, answer)
		if err != nil {
			return err
		}
		targets := []*proc{mock, bare}
		if sc.prism && prism != nil {
			targets = append(targets, prism)
		}
		rates := map[string][]float64{}
		cpu := map[string][]float64{} // CPU microseconds per answer, from /proc
		for _, t := range targets {   // warm up: connections, caches, JIT (Prism)
			loadgen.Hammer(t.Addr, sc.request(t.Addr), cfg.conns, time.Second)
		}
		for r := range cfg.rounds {
			order := slices.Clone(targets)
			if r%2 == 1 {
				slices.Reverse(order) // alternate who goes first
			}
			for _, t := range order {
				if ctx.Err() != nil {
					stopBare()
					return ctx.Err()
				}
				if t == mock {
					if err := resetMock(mock.Addr); err != nil {
						stopBare()
						return err
					}
				}
				before, cpuErr := cpuTime(t.Pid())
				res := loadgen.Hammer(t.Addr, sc.request(t.Addr), cfg.conns, cfg.duration)
				if res.OK == 0 || res.Failed > 0 {
					stopBare()
					return fmt.Errorf("%s against %s: %d ok, %d failed (first: %v)", sc.name, t.name, res.OK, res.Failed, res.FirstErr)
				}
				rates[t.name] = append(rates[t.name], res.Rate())
				if after, err := cpuTime(t.Pid()); err == nil && cpuErr == nil {
					cpu[t.name] = append(cpu[t.name], float64((after-before).Microseconds())/float64(res.OK))
				}
			}
		}
		stopBare()
		var ratios []float64
		for i := range rates["mock"] {
			ratios = append(ratios, rates["mock"][i]/rates["bare"][i])
		}
		fmt.Fprintf(out, "\n%s\n", sc.name)
		for _, t := range targets {
			fmt.Fprintf(out, "  %-6s req/s median %8.0f  rounds %s", t.name, median(rates[t.name]), fmtRates(rates[t.name]))
			if c := cpu[t.name]; len(c) == len(rates[t.name]) {
				fmt.Fprintf(out, "   CPU per answer %5.1f us", median(c))
			}
			fmt.Fprintln(out)
		}
		fmt.Fprintf(out, "  mock/bare  %.2f (median of per-round ratios %s)\n", median(ratios), fmtRatios(ratios))
		if m, b := cpu["mock"], cpu["bare"]; len(m) == len(ratios) && len(b) == len(ratios) {
			// The server's own CPU per answer is steadier than req/s on a
			// shared machine: it explains the ratio, it does not replace it.
			fmt.Fprintf(out, "  CPU per answer, bare/mock %.2f (the throughput the mock could reach alone, as a share of bare)\n", median(b)/median(m))
		}
		if p := rates["Prism"]; len(p) > 0 {
			var pr []float64
			for i := range p {
				pr = append(pr, rates["mock"][i]/p[i])
			}
			fmt.Fprintf(out, "  mock/Prism %.1f (median of per-round ratios %s)\n", median(pr), fmtRatios(pr))
		}
	}
	return nil
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
