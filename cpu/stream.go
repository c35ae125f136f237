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
	work chan func() error // made by the first submit

	mu      sync.Mutex
	idle    sync.Cond // signalled when pending drops to zero
	pending int       // submitted and not finished
	err     error     // the first error since the last drain
	running bool      // a goroutine runs the queue; it ends when the queue empties
	stopped bool      // by stop: later work runs on the submitter's goroutine
}

// submit queues f behind the work submitted before it.
func (s *stream) submit(f func() error) {
	s.mu.Lock()
	if s.stopped { // the device closed meanwhile: f fails at once
		s.mu.Unlock()
		if err := runItem(f); err != nil {
			s.mu.Lock()
			if s.err == nil {
				s.err = err
			}
			s.mu.Unlock()
		}
		return
	}
	if s.work == nil {
		s.work = make(chan func() error, streamDepth)
		s.idle.L = &s.mu
	}
	if !s.running {
		s.running = true
		go s.run()
	}
	s.pending++
	s.mu.Unlock()
	s.work <- f
}

// run executes queued work until none is pending, then returns, so that an
// idle device holds no goroutine (and one never closed can be collected).
func (s *stream) run() {
	for {
		err := runItem(<-s.work)
		s.mu.Lock()
		if err != nil && s.err == nil {
			s.err = err
		}
		s.pending--
		if s.pending == 0 {
			s.running = false
			s.idle.Broadcast()
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
	}
}

// runItem runs f, turning a panic into an error.
func runItem(f func() error) error {
	var err error
	if perr := safely(func() { err = f() }); perr != nil {
		return perr
	}
	return err
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

// stop drains the stream; later work runs on the submitter's goroutine.
func (s *stream) stop() error {
	err := s.drain()
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	return err
}
