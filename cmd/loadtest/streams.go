package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"contractkit/internal/loadgen"
)

var done = []byte("data: [DONE]\n\n")

// runStreams opens cfg.streams paced inference streams at once and reports
// the mock's resident memory per open stream: VmRSS at the peak minus VmRSS
// before, over the most streams open at the same time. Every stream must
// end with data: [DONE].
func runStreams(ctx context.Context, cfg config, out io.Writer) error {
	mock, err := startMock(ctx, cfg, "--token-interval", cfg.tokenInterval.String())
	if err != nil {
		return err
	}
	defer mock.stop()
	modelID, err := readyModel(mock.Addr)
	if err != nil {
		return err
	}
	body := []byte(`{"query":"What is the standard warranty period and what does it cover?","model_id":` +
		strconv.FormatInt(modelID, 10) + `,"response_length_preference":"detailed"}`)
	req := loadgen.NewRequest("inference", "POST", mock.Addr, "/api/v1/user/inference",
		map[string]string{"Authorization": "Bearer " + apiKey, "Content-Type": "application/json", "Accept": "text/event-stream"}, body).Raw

	deadline := time.Now().Add(cfg.streamsWithin)
	warm := time.Now()
	if err := oneStream(mock.Addr, req, deadline, nil); err != nil { // warm up, and time one stream
		return fmt.Errorf("a first stream: %w", err)
	}
	one := time.Since(warm)
	before, err := rssKB(mock.Pid())
	if err != nil {
		return err
	}

	var open, maxOpen, ended atomic.Int64
	var failed atomic.Int64
	var errOnce sync.Once
	var firstErr error
	sem := make(chan struct{}, 256) // dials in flight: the listen backlog is finite
	var wg sync.WaitGroup
	startAll := time.Now()
	for range cfg.streams {
		wg.Go(func() {
			err := oneStream(mock.Addr, req, deadline, func(opened bool) {
				if opened {
					<-sem
					n := open.Add(1)
					for m := maxOpen.Load(); n > m && !maxOpen.CompareAndSwap(m, n); m = maxOpen.Load() {
					}
				} else {
					open.Add(-1)
				}
			}, sem)
			if err != nil {
				failed.Add(1)
				errOnce.Do(func() { firstErr = err })
				return
			}
			ended.Add(1)
		})
	}
	var peak, peakOpen int64
	var allOpen int64 // the highest VmRSS sampled while every stream was open
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				n := open.Load()
				kb, err := rssKB(mock.Pid())
				if err != nil {
					continue
				}
				if kb > peak {
					peak, peakOpen = kb, n
				}
				if n == int64(cfg.streams) && kb > allOpen {
					allOpen = kb
				}
			}
		}
	}()
	wg.Wait()
	close(stop)
	<-sampled
	wall := time.Since(startAll)

	fmt.Fprintf(out, "\nstreams: %d paced streams (--token-interval %s, one stream alone took %s), all ended in %s\n",
		cfg.streams, cfg.tokenInterval, one.Round(time.Millisecond), wall.Round(time.Millisecond))
	fmt.Fprintf(out, "  ended with [DONE]   %d of %d (failed %d)\n", ended.Load(), cfg.streams, failed.Load())
	fmt.Fprintf(out, "  open at once (max)  %d\n", maxOpen.Load())
	fmt.Fprintf(out, "  mock VmRSS          before %d KB, highest while all %d were open %d KB, highest of the run %d KB (with %d open)\n",
		before, cfg.streams, allOpen, peak, peakOpen)
	if allOpen > 0 {
		fmt.Fprintf(out, "  RSS per open stream %.1f KB  ((highest while all were open - before) / streams)\n",
			float64(allOpen-before)/float64(cfg.streams))
	}
	if maxOpen.Load() > 0 {
		// The run's peak can come as streams end and their journal entries
		// are recorded: shown, as the most the process held at any time.
		fmt.Fprintf(out, "  RSS of the run's peak per stream %.1f KB  ((highest of the run - before) / max open)\n", float64(peak-before)/float64(maxOpen.Load()))
	}
	if failed.Load() > 0 {
		return fmt.Errorf("%d stream(s) did not end with [DONE]; first: %v", failed.Load(), firstErr)
	}
	if maxOpen.Load() < int64(cfg.streams) {
		fmt.Fprintf(out, "  note: not every stream was open at once; raise --token-interval\n")
	}
	return nil
}

// oneStream sends req on its own connection and reads until data: [DONE].
// onOpen(true) is called when the first bytes of the answer arrive and
// onOpen(false) when the stream is over; sem (optional) is held while
// dialing and released by onOpen(true) or on failure.
func oneStream(addr string, req []byte, deadline time.Time, onOpen func(bool), sem ...chan struct{}) error {
	if len(sem) > 0 {
		sem[0] <- struct{}{}
	}
	opened := false
	defer func() {
		if onOpen != nil && opened {
			onOpen(false)
		} else if len(sem) > 0 && !opened {
			<-sem[0]
		}
	}()
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(deadline)
	if _, err := c.Write(req); err != nil {
		return err
	}
	buf := make([]byte, 2048)
	var tail []byte // the end of what was read, so [DONE] split across reads is found
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if !opened {
				if !bytes.HasPrefix(buf[:n], []byte("HTTP/1.1 200")) {
					return fmt.Errorf("answer %.60q", buf[:n])
				}
				opened = true
				if onOpen != nil {
					onOpen(true)
				}
			}
			tail = append(tail, buf[:n]...)
			if bytes.Contains(tail, done) {
				return nil
			}
			if len(tail) > len(done) {
				tail = append(tail[:0], tail[len(tail)-len(done):]...)
			}
		}
		if err != nil {
			return fmt.Errorf("the stream ended without [DONE]: %w", err)
		}
	}
}
