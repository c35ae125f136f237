package pool

import (
	"fmt"
	"strings"
)

// Stats is a snapshot of a pool's counters. Byte figures count whole blocks
// (their size class), except RequestedBytes.
type Stats struct {
	Allocs       int64   // successful Alloc calls
	Reuses       int64   // Allocs served from the cache
	DeviceAllocs int64   // buffers allocated on the device
	DeviceFrees  int64   // buffers released to the device
	OOMRetries   int64   // times the device ran out of memory and the pool emptied its cache and retried
	ReuseRate    float64 // Reuses / Allocs, zero before the first Alloc

	BytesInUse        int64 // blocks handed out and not yet freed
	RequestedBytes    int64 // what was asked for those blocks
	PeakBytesInUse    int64 // the largest BytesInUse since New or ResetPeak
	ReservedBytes     int64 // bytes held from the device: in use, cached, and evicted but not yet released
	PeakReservedBytes int64 // the largest ReservedBytes since New or ResetPeak
	CachedBytes       int64 // free blocks kept for reuse
	LiveBlocks        int   // blocks handed out and not yet freed
	CachedBlocks      int   // free blocks kept for reuse
}

// Stats returns a snapshot of the pool's counters.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := Stats{
		Allocs:            p.st.allocs,
		Reuses:            p.st.reuses,
		DeviceAllocs:      p.st.deviceAllocs,
		DeviceFrees:       p.st.deviceFrees,
		OOMRetries:        p.st.oomRetries,
		BytesInUse:        p.st.inUse,
		RequestedBytes:    p.st.requested,
		PeakBytesInUse:    p.st.peakInUse,
		ReservedBytes:     p.reserved(),
		PeakReservedBytes: p.st.peakReserved,
		CachedBytes:       p.cache.cachedBytes,
		LiveBlocks:        p.st.live,
		CachedBlocks:      p.cache.count,
	}
	if s.Allocs > 0 {
		s.ReuseRate = float64(s.Reuses) / float64(s.Allocs)
	}
	return s
}

// ResetPeak sets the peaks to the current figures, so that the next Stats
// reports the peaks reached from now on.
func (p *Pool) ResetPeak() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st.peakInUse = p.st.inUse
	p.st.peakReserved = p.reserved()
}

// String renders the stats as a short multi-line summary.
func (s Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "memory pool: %d allocs, %d reused (%.1f%%), %d device allocs, %d device frees, %d OOM retries\n",
		s.Allocs, s.Reuses, 100*s.ReuseRate, s.DeviceAllocs, s.DeviceFrees, s.OOMRetries)
	fmt.Fprintf(&b, "  in use   %s in %d blocks (requested %s), peak %s\n",
		FormatBytes(s.BytesInUse), s.LiveBlocks, FormatBytes(s.RequestedBytes), FormatBytes(s.PeakBytesInUse))
	fmt.Fprintf(&b, "  reserved %s (peak %s), cached %s in %d blocks\n",
		FormatBytes(s.ReservedBytes), FormatBytes(s.PeakReservedBytes), FormatBytes(s.CachedBytes), s.CachedBlocks)
	return b.String()
}

// FormatBytes renders n bytes with a binary unit: "512 B", "1.50 KiB",
// "3.00 GiB".
func FormatBytes(n int64) string {
	const units = "KMGTPE"
	if n < 1024 && n > -1024 {
		return fmt.Sprintf("%d B", n)
	}
	v := float64(n)
	i := -1
	for (v >= 1024 || v <= -1024) && i < len(units)-1 {
		v /= 1024
		i++
	}
	return fmt.Sprintf("%.2f %ciB", v, units[i])
}

// BytesInUse returns the bytes of the blocks handed out and not yet freed,
// as Stats().BytesInUse does, without building the whole snapshot: callers
// check it before every operation.
func (p *Pool) BytesInUse() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.st.inUse
}
