package conformance

import (
	"fmt"
	"net/http"

	. "github.com/onsi/ginkgo/v2"

	"contractkit/conformance/client"
	"contractkit/spec"
)

// authSpecs registers the Authentication area: every operation of the
// contract refuses a missing, unknown, other-scheme or empty key with 401
// and the error envelope (seed §5), and a valid key is accepted.
func (e *env) authSpecs() {
	e.describe("Authentication", Label("auth"), func() {
		for _, op := range spec.Strict().Operations {
			clause := op.Clause
			e.describe(opTitle(op), func() {
				cases := []struct {
					behaviour string
					auth      client.Auth
					raw       func() string
					clauses   []string
				}{
					{"MUST answer 401 with the error envelope when the Authorization header is missing", client.AuthNone, nil, []string{"5.1", "5.3"}},
					{"MUST answer 401 with the error envelope when the bearer key is unknown", client.AuthRaw, func() string { return "Bearer ck-unknown-" + randomHex(12) }, []string{"5.3"}},
					{"MUST answer 401 with the error envelope when the key comes under another scheme than Bearer", client.AuthRaw, func() string { return "Token " + e.cfg.APIKey }, []string{"5.1", "5.3"}},
					{"MUST answer 401 with the error envelope when the bearer key is empty", client.AuthRaw, func() string { return "Bearer " }, []string{"5.3"}},
				}
				for _, c := range cases {
					e.check(c.behaviour, declared(append(c.clauses, "1.2", "7.1", clause)...), func(ctx SpecContext) {
						r := e.sampleRequest(op, nil)
						r.Auth = c.auth
						if c.raw != nil {
							r.RawAuth = c.raw()
						}
						e.expectError(e.do(ctx, r), refusal{statuses: []int{http.StatusUnauthorized}})
					})
				}
			})
		}

		e.describe("a valid key", func() {
			for _, op := range freeReads(spec.Strict()) {
				e.check(fmt.Sprintf("MUST be accepted as `Authorization: Bearer <key>` on %s with a success envelope", opTitle(op)),
					declared("5.1", "1.1", op.Clause), func(ctx SpecContext) {
						e.expectSuccess(e.do(ctx, e.sampleRequest(op, nil)))
					})
			}
		})
	})
}
