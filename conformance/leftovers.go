package conformance

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"contractkit/conformance/budget"
	"contractkit/conformance/client"
	"contractkit/spec"
)

// maxLeftReads bounds the reads confirmLeft sends: a run that left more
// than this behind says so without asking about each.
const maxLeftReads = 200

// confirmLeft reads, before the reports are written, each resource the
// ledger still counts as left behind, with each key: what every account
// answers 404 is gone and counted removed. A delete removes more than
// its own resource on many servers (a model's conversations with it, D-32),
// and the explore phase's sequences delete parents whose children the
// ledger saw made; the server's own answer is the one account of what is
// left, not the suite's guess at its cascades.
func (e *env) confirmLeft(ctx context.Context) {
	if e.client == nil || e.cfg.Keep {
		return
	}
	reads := readsOf(spec.Declared(), e.spend.resources)
	auths := []client.Auth{client.AuthKey}
	if e.cfg.APIKey2 != "" {
		auths = append(auths, client.AuthKey2)
	}
	sent := 0
	for _, left := range e.spend.ledger.Left() {
		read, ok := reads[left.Kind]
		if left.Lost || !ok {
			continue
		}
		path := strings.Replace(read.path, "{"+read.param+"}", url.PathEscape(left.ID), 1)
		gone := true
		for _, a := range auths {
			if sent >= maxLeftReads || ctx.Err() != nil {
				return
			}
			sent++
			if x := e.client.Do(ctx, client.Request{Method: http.MethodGet, Path: path, Auth: a}); x.Status != http.StatusNotFound {
				gone = false
				break
			}
		}
		if gone {
			e.spend.ledger.Removed(left.Kind, left.ID)
		}
	}
}

// leftRead is the read that tells whether a resource of one kind is still
// there: a GET naming it and nothing else.
type leftRead struct{ path, param string }

// readsOf finds, for each kind the ledger counts, the GET of its item or,
// for a resource without one (a conversation), a GET under its item (its
// messages), from the contract.
func readsOf(c *spec.Contract, kinds budget.Resources) map[budget.Kind]leftRead {
	out := map[budget.Kind]leftRead{}
	for _, want := range []spec.Role{spec.RoleGet, spec.RoleChild} {
		for _, op := range c.Operations {
			role, r := c.Place(op)
			if op.Method != http.MethodGet || role != want || r == nil || strings.Count(op.Path, "{") != 1 {
				continue
			}
			if k, ok := kinds[r.Param]; ok {
				if _, have := out[k]; !have {
					out[k] = leftRead{op.Path, r.Param}
				}
			}
		}
	}
	return out
}
