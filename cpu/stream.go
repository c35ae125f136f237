package cpu

import (
	"sync"
)

// streamDepth is how many kernel calls may wait in a stream before a caller
// blocks: enough for a training step's kernels, few enough that a caller
// far ahead of the kernels does not pin much memory in pending frees.
const streamDepth = 256

// stream runs a device's work in call order on one goroutine, so that the
// front end builds the next kernels while earlier ones run, as on a GPU.
// The device contract allows it: kernel calls may return before their work
// is done, Read and Sync wait for it, and an error found while running is
// returned by Read or Sync.
type stream struct {
	send sync.Mutex // held while sending to work and while closing it
	work chan func() error

	mu      sync.Mutex
	idle    sync.Cond // signalled when pending drops to zero
	pending int       // submitted and not finished
	err     error     // the first error since the last drain
	started bool
}

// submit queues f behind the work submitted before it.
func (s *stream) submit(f func() error) {
	s.send.Lock()
	defer s.send.Unlock()
	s.mu.Lock()
	if !s.started {
		s.started = true
		s.work = make(chan func() error, streamDepth)
		s.idle.L = &s.mu
		go s.run(s.work)
	}
	s.pending++
	s.mu.Unlock()
	s.work <- f
}

// run executes queued work until the channel is closed.
func (s *stream) run(work <-chan func() error) {
	for f := range work {
		var err error
		if perr := safely(func() { err = f() }); perr != nil {
			err = perr
		}
		s.mu.Lock()
		if err != nil && s.err == nil {
			s.err = err
		}
		s.pending--
		if s.pending == 0 {
			s.idle.Broadcast()
		}
		s.mu.Unlock()
	}
}

// busy reports whether work is queued or running.
func (s *stream) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending > 0
}

// drain waits until all submitted work has finished and returns the first
// error it found since the previous drain, forgetting it.
func (s *stream) drain() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.pending > 0 {
		s.idle.Wait()
	}
	err := s.err
	s.err = nil
	return err
}

// stop drains the stream and ends its goroutine; a later submit starts a
// new one.
func (s *stream) stop() error {
	s.send.Lock()
	defer s.send.Unlock()
	err := s.drain()
	s.mu.Lock()
	if s.started {
		close(s.work)
		s.started = false
	}
	s.mu.Unlock()
	return err
}
