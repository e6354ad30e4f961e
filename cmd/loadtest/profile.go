package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"contractkit/internal/loadgen"
)

// runProfile loads the mock with each scenario while its --pprof listener
// records a CPU profile, then saves the alloc profile of the same run.
func runProfile(ctx context.Context, cfg config, out io.Writer) error {
	mock, err := startMock(ctx, cfg, "--pprof", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer mock.stop()
	return profileUnderLoad(cfg, out, mock, mock, "")
}

// runProfileProxy does the same for the validating proxy in front of the
// mock: the load goes through the proxy, the profiles are the proxy's.
func runProfileProxy(ctx context.Context, cfg config, out io.Writer) error {
	mock, err := startMock(ctx, cfg)
	if err != nil {
		return err
	}
	defer mock.stop()
	px, err := startProxy(ctx, cfg, mock.Addr, "--pprof", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer px.stop()
	return profileUnderLoad(cfg, out, mock, px, "proxy-")
}

// profileUnderLoad sends each scenario to target for cfg.duration while
// the --pprof listener of target records a CPU profile, and saves the
// alloc profiles before and after; the files are named with prefix.
func profileUnderLoad(cfg config, out io.Writer, mock, target *proc, prefix string) error {
	paddr, err := pprofAddr(target.Printed)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.profileDir, 0o755); err != nil {
		return err
	}
	modelID, err := readyModel(mock.Addr)
	if err != nil {
		return err
	}
	secs := max(int(cfg.duration.Seconds()), 1)
	client := &http.Client{Timeout: time.Duration(secs+30) * time.Second}
	save := func(url, file string) error {
		resp, err := client.Get(url)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("%s: %s", url, resp.Status)
		}
		f, err := os.Create(file)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, resp.Body); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	for _, sc := range scenarios(modelID) {
		slug := prefix + "get-model"
		if strings.HasPrefix(sc.name, "POST") {
			slug = prefix + "create-conversation"
		}
		// The alloc profile counts from the start of the process: take a
		// baseline now and compare with -diff_base.
		base := filepath.Join(cfg.profileDir, "allocs-"+slug+"-base.pprof")
		if err := save("http://"+paddr+"/debug/pprof/allocs", base); err != nil {
			return err
		}
		cpu := filepath.Join(cfg.profileDir, "cpu-"+slug+".pprof")
		errc := make(chan error, 1)
		go func() { errc <- save(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", paddr, secs), cpu) }()
		res := loadgen.Hammer(target.Addr, sc.request(target.Addr), cfg.conns, time.Duration(secs)*time.Second)
		if err := <-errc; err != nil {
			return err
		}
		allocs := filepath.Join(cfg.profileDir, "allocs-"+slug+".pprof")
		if err := save("http://"+paddr+"/debug/pprof/allocs", allocs); err != nil {
			return err
		}
		fmt.Fprintf(out, "%s: %d requests (%.0f req/s, %d failed) -> %s, %s (diff against %s)\n", sc.name, res.OK, res.Rate(), res.Failed, cpu, allocs, base)
	}
	return nil
}

// pprofLine is what the mock and the proxy print, before they listen,
// once their pprof listener is up.
var pprofLine = regexp.MustCompile(`^pprof on http://(\S+)/debug/pprof/`)

// pprofAddr finds the pprof listener's address among the lines a server
// printed.
func pprofAddr(printed []string) (string, error) {
	for _, line := range printed {
		if g := pprofLine.FindStringSubmatch(line); g != nil {
			return g[1], nil
		}
	}
	return "", errors.New("the server printed no pprof address")
}
