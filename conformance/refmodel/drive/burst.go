package drive

import (
	"sync"

	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel"
)

// Bursts: about eight calls sent at once with one key, as a page load
// sends them — the reads of a dashboard and answers streaming among them.
// Every answer is judged, after all have come (the calls write nothing, so
// the order the server served them in changes no prediction).

// burstSize is how many calls a burst sends at once.
const burstSize = 8

// bursts sends bursts until every operation with a burst dimension was in
// one.
func (d *driver) bursts() {
	g := d.g
	g.key = refmodel.KeyA
	var todo []inputs.Dimension
	for _, dim := range d.run.Dims {
		if dim.Family == inputs.FamilyBurst && d.run.Why[dim.Key()] == "" {
			todo = append(todo, dim)
		}
	}
	for len(todo) > 0 && !d.stopped() {
		var calls []refmodel.Call
		var keys [][]string
		streams := 0
		for len(calls) < burstSize && len(todo) > 0 {
			dim := todo[0]
			todo = todo[1:]
			op := d.cat.Op(dim.Op)
			c, ok := d.quiet(op)
			if !ok {
				continue
			}
			calls, keys = append(calls, c), append(keys, []string{dim.Key()})
			if op.Stream() {
				streams++
			}
		}
		// Streams open among the reads: at least two.
		for _, op := range d.cat.Ops {
			for streams < 2 && len(calls) > 0 && len(calls) < burstSize && op.Stream() {
				c, ok := d.quiet(op)
				if !ok {
					break
				}
				calls, keys = append(calls, c), append(keys, nil)
				streams++
			}
		}
		// Fill the burst with more of the same.
		for i := 0; len(calls) > 0 && len(calls) < burstSize; i++ {
			calls, keys = append(calls, calls[i%len(calls)]), append(keys, nil)
		}
		d.burst(calls, keys)
	}
}

// quiet is a call of op as it should succeed that writes nothing: a read,
// or a stream that continues no resource (the fields its effects write
// into left out).
func (d *driver) quiet(op *inputs.Op) (refmodel.Call, bool) {
	c, ok := d.g.minimal(op)
	if !ok {
		return c, false
	}
	for _, e := range op.Effects {
		if e.Into != "" {
			unset(&c, "body:"+e.Into)
		}
	}
	return c, true
}

// burst sends the calls at once and judges each answer in turn.
func (d *driver) burst(calls []refmodel.Call, keys [][]string) {
	if d.stopped() {
		return
	}
	answers := make([]refmodel.Answer, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func(i int, c refmodel.Call) {
			defer wg.Done()
			answers[i] = d.send.Send(d.ctx, c)
		}(i, d.permanent(c))
	}
	wg.Wait()
	for i, c := range calls {
		if d.ctx.Err() != nil && answers[i].Status == 0 {
			d.stopped()
			return
		}
		d.mark(keys[i]...)
		d.judge(c, answers[i])
	}
}

// permanent makes a delete that can be soft permanent when the run asks it
// (Config.Permanent), unless the call sends that parameter a value the
// contract refuses.
func (d *driver) permanent(c refmodel.Call) refmodel.Call {
	if !d.cfg.Permanent {
		return c
	}
	op := d.cat.Op(c.Op)
	name := softParam(op)
	if name == "" {
		return c
	}
	if v := c.Query.Get(name); v != "" && v != "true" && v != "false" {
		return c
	}
	q := query()
	for k, v := range c.Query {
		q[k] = v
	}
	q.Set(name, "true")
	c.Query = q
	return c
}
