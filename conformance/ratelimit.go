package conformance

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"contractkit/conformance/client"
	"contractkit/exchange"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// burstLimit bounds the requests a rate-limit check sends before it
// concludes the server does not limit; burstWorkers send them in parallel
// so a per-second limit is crossed even over a slow link.
const (
	burstLimit   = 200
	burstWorkers = 8
)

// burst sends up to burstLimit list requests and returns the first 429 and
// the last success seen (either may be nil).
func (e *env) burst(ctx context.Context) (limited, passed *exchange.Exchange) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu   sync.Mutex
		sent int
		wg   sync.WaitGroup
	)
	for range burstWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if limited != nil || sent >= burstLimit || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				sent++
				mu.Unlock()
				x := e.client.Do(ctx, client.Request{Method: http.MethodGet, Path: pathModels, NoRetry: true})
				mu.Lock()
				switch {
				case x.Status == http.StatusTooManyRequests && limited == nil:
					limited = x
					cancel()
				case x.Status == http.StatusOK:
					passed = x
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return limited, passed
}

// rateLimitSpecs registers the Rate limiting area (label rate-limit, left
// out unless --label-filter names it). It is Ordered because its checks
// judge one burst, sent once in BeforeAll; AfterAll waits until the server
// answers again so later checks are not limited.
func (e *env) rateLimitSpecs() {
	e.describe("Rate limiting", Label("rate-limit"), Ordered, ContinueOnFailure, func() {
		var limited, passed *exchange.Exchange
		BeforeAll(func(ctx SpecContext) {
			limited, passed = e.burst(ctx)
		})
		AfterAll(func(ctx SpecContext) {
			if limited == nil {
				return
			}
			// Let the window pass so later checks are not limited.
			Eventually(ctx, func(g Gomega) {
				x := e.client.Do(ctx, client.Request{Method: http.MethodGet, Path: pathModels, NoRetry: true})
				g.Expect(x.Status).NotTo(Equal(http.StatusTooManyRequests))
			}).WithTimeout(e.cfg.Timeout).Should(Succeed(), "the server still answers 429 after --timeout")
		})
		needLimit := func() {
			if limited == nil {
				Skip(fmt.Sprintf("the server answered no 429 within a burst of %d requests: rate limiting (which the seed allows, not requires) was not observed", burstLimit))
			}
		}

		e.check("MUST answer a rate-limited request with 429 and the error envelope",
			declared("8.4", "7.2", "1.2"), func(ctx SpecContext) {
				needLimit()
				e.expectError(limited, refusal{statuses: []int{http.StatusTooManyRequests}})
			})

		e.check("SHOULD say in Retry-After how many seconds to wait",
			decidedBy("D-14", "8.4"), func(ctx SpecContext) {
				needLimit()
				v := limited.ResponseHeader.Get("Retry-After")
				n, err := strconv.Atoi(v)
				e.want(limited, err == nil && n >= 0, "header:Retry-After", "a number of seconds", strconv.Quote(v))
			})

		e.check("SHOULD send X-RateLimit-Limit and X-RateLimit-Remaining while limiting is on",
			decidedBy("D-14", "8.4"), func(ctx SpecContext) {
				needLimit()
				x := passed
				if x == nil {
					x = limited
				}
				for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining"} {
					_, err := strconv.Atoi(x.ResponseHeader.Get(h))
					e.want(x, err == nil, "header:"+h, "a number", strconv.Quote(x.ResponseHeader.Get(h)))
				}
			})
	})
}
