package workpool

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// countJob records which seats joined it; seats beyond its limit do nothing.
type countJob struct {
	next   atomic.Int32
	seats  int32
	mu     sync.Mutex
	joined map[int32]bool
	done   chan struct{}
}

func newCountJob(seats int32) *countJob {
	return &countJob{seats: seats, joined: map[int32]bool{}, done: make(chan struct{}, seats)}
}

func (j *countJob) Join() {
	if id := j.next.Add(1); id < j.seats {
		j.mu.Lock()
		j.joined[id] = true
		j.mu.Unlock()
		j.done <- struct{}{}
	}
}

func TestOfferedHelpersJoinWithUniqueSeats(t *testing.T) {
	drained(t)
	for round := range 200 {
		j := newCountJob(4)
		Offer(j, 3)
		for range 3 {
			joined(t, j)
		}
		j.mu.Lock()
		require.Equal(t, map[int32]bool{1: true, 2: true, 3: true}, j.joined, "round %d", round)
		j.mu.Unlock()
	}
}

func TestOfferNeverBlocks(t *testing.T) {
	block := make(chan struct{})
	blocker := joinFunc(func() { <-block })
	Offer(blocker, 2) // park the helpers that exist so far
	finished := make(chan struct{})
	go func() {
		for range 1000 {
			Offer(newCountJob(1), 1) // far more offers than the queue holds
		}
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(5 * time.Second):
		t.Fatal("Offer blocked with busy helpers and a full queue")
	}
	close(block)
	drained(t)
}

// drained waits until the helpers have taken every queued offer, so that
// the next test's offers are not dropped by a full queue.
func drained(t *testing.T) {
	deadline := time.Now().Add(5 * time.Second)
	for len(pool.offers) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the helpers did not drain the queue")
		}
		time.Sleep(time.Millisecond)
	}
}

// joined waits for one join of j.
func joined(t *testing.T, j *countJob) {
	t.Helper()
	select {
	case <-j.done:
	case <-time.After(5 * time.Second):
		t.Fatal("an offered helper never joined")
	}
}

func TestOfferOfNothingStartsNoHelper(t *testing.T) {
	pool.mu.Lock()
	before := pool.started
	pool.mu.Unlock()
	Offer(newCountJob(1), 0)
	Offer(newCountJob(1), -1)
	pool.mu.Lock()
	defer pool.mu.Unlock()
	require.Equal(t, before, pool.started)
}

func TestIdleHelpersParkAndWakeForLaterOffers(t *testing.T) {
	drained(t)
	j := newCountJob(2)
	Offer(j, 1)
	joined(t, j)
	time.Sleep(3 * Spin) // past the polling: the helpers park on the queue
	j = newCountJob(2)
	Offer(j, 1)
	joined(t, j)
}

// joinFunc adapts a function to Joiner.
type joinFunc func()

func (f joinFunc) Join() { f() }

func TestHeldHelpersParkAtOnceAndStillTakeOffers(t *testing.T) {
	drained(t)
	defer Hold(time.Time{})
	Hold(time.Now().Add(-time.Second))
	require.False(t, Held(), "a hold in the past is over")
	Hold(time.Now().Add(time.Hour))
	require.True(t, Held())

	// Unheld, an idle poll lasts Spin; held, it ends after its first round.
	fastest := time.Hour
	for range 3 {
		t0 := time.Now()
		require.Nil(t, poll())
		fastest = min(fastest, time.Since(t0))
	}
	require.Less(t, fastest, Spin/2)

	j := newCountJob(2) // parked helpers still wake for offers
	Offer(j, 1)
	joined(t, j)

	Hold(time.Time{})
	require.False(t, Held())
}
