package proxy

import (
	"sync/atomic"
	"time"
)

// judgePool runs the judgements of ended exchanges on a few long-lived
// goroutines. A goroutine per exchange started with a small stack and grew
// it, copying, in every validation of an answer against the contract (a
// POST's profile: 3 µs of stack copying per answer); a judge that stays
// keeps its grown stack for the next exchange. A judge with no work for
// judgeIdle ends, so an idle proxy holds none.
type judgePool struct {
	// work is unbuffered: a send succeeds only when a judge waits.
	work    chan *tap
	running atomic.Int32
	max     int32
}

// judgeIdle is how long a judge waits for the next exchange before it ends.
const judgeIdle = time.Second

func newJudgePool(n int) judgePool {
	return judgePool{work: make(chan *tap), max: int32(n)}
}

// hand gives t to an idle judge, or to a new one while fewer than max run;
// false when every judge is busy (the caller judges t itself). The judge
// ends t's count in its proxy's inflight once t is judged.
func (jp *judgePool) hand(t *tap) bool {
	select {
	case jp.work <- t:
		return true
	default:
	}
	if jp.running.Add(1) > jp.max {
		jp.running.Add(-1)
		return false
	}
	go jp.judge(t)
	return true
}

// judge judges t, then whatever it is handed next, until it waits idle
// for judgeIdle.
func (jp *judgePool) judge(t *tap) {
	defer jp.running.Add(-1)
	idle := time.NewTimer(judgeIdle)
	defer idle.Stop()
	for {
		t.finish()
		t.p.inflight.Done()
		idle.Reset(judgeIdle)
		select {
		case t = <-jp.work:
		case <-idle.C:
			return
		}
	}
}
