package gemm

import "unsafe"

// Copies that the copying micro-kernels carry out while they compute (see
// copying.go) are lists of pieces of 128 bytes, each moved from a source
// row to a destination row with fixed strides.

// pieceFloats is the size of one piece: 128 bytes, two zmm registers.
const pieceFloats = 32

// copyPieces is what a copying kernel reads through its pfA argument and
// advances: count pieces, piece i from src + i*sstride to dst + i*dstride
// (bytes). Its layout is fixed by asmgen (the job* offsets).
type copyPieces struct {
	src, dst         uintptr
	sstride, dstride int
	count            int
}

// copyJob is a planned copy of count pieces: piece i from
// src[so+i*ss:][:pieceFloats] to dst[do+i*ds:][:pieceFloats].
type copyJob struct {
	src, dst              []float32
	so, ss, do, ds, count int
}

// newCopyJob returns a job of count pieces, panicking when a piece would
// lie outside src or dst: the kernels copy through raw addresses.
func newCopyJob(src []float32, so, ss int, dst []float32, do, ds, count int) copyJob {
	if count > 0 {
		_ = src[so+(count-1)*ss+pieceFloats-1]
		_ = dst[do+(count-1)*ds+pieceFloats-1]
	}
	return copyJob{src: src, dst: dst, so: so, ss: ss, do: do, ds: ds, count: count}
}

// advance records that the next n pieces were copied.
func (j *copyJob) advance(n int) {
	j.so += n * j.ss
	j.do += n * j.ds
	j.count -= n
}

// finish copies the pieces that are left.
func (j *copyJob) finish() {
	for ; j.count > 0; j.advance(1) {
		copy(j.dst[j.do:j.do+pieceFloats], j.src[j.so:j.so+pieceFloats])
	}
}

// copyQueue is one worker's pending jobs, handed to its kernels a few
// pieces per call. It lives on the heap: kernels receive raw's address.
type copyQueue struct {
	raw   copyPieces
	given int // pieces in raw when the kernel was called
	jobs  []copyJob
	head  int
}

// add appends a job.
func (q *copyQueue) add(j copyJob) {
	if j.count > 0 {
		q.jobs = append(q.jobs, j)
	}
}

// take returns the pfA argument of a copying kernel that may copy up to n
// pieces: the address of raw, loaded with up to n pieces of the first
// unfinished job (none when the queue is empty). Call taken after the
// kernel.
func (q *copyQueue) take(n int) uintptr {
	for q.head < len(q.jobs) && q.jobs[q.head].count == 0 {
		q.head++
	}
	q.raw = copyPieces{}
	if q.head < len(q.jobs) && n > 0 {
		j := &q.jobs[q.head]
		q.raw = copyPieces{
			src: uintptr(unsafe.Pointer(&j.src[j.so])), dst: uintptr(unsafe.Pointer(&j.dst[j.do])),
			sstride: j.ss * 4, dstride: j.ds * 4, count: min(n, j.count),
		}
	}
	q.given = q.raw.count
	return uintptr(unsafe.Pointer(&q.raw))
}

// taken records the pieces the kernel copied since take.
func (q *copyQueue) taken() {
	if q.given > 0 {
		q.jobs[q.head].advance(q.given - q.raw.count)
	}
	q.given = 0
}

// finish copies every piece left and empties the queue.
func (q *copyQueue) finish() {
	for i := q.head; i < len(q.jobs); i++ {
		q.jobs[i].finish()
	}
	clear(q.jobs) // drop the references to the caller's matrices
	q.jobs, q.head = q.jobs[:0], 0
}
