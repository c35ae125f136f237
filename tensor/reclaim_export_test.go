package tensor

// SetReclaimFloor sets the least growth of the bytes in use that triggers a
// reclaim on d, so that tests can reach the bound with small tensors.
func SetReclaimFloor(d *Device, bytes int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.rc.floor = bytes
}

// FixReclaimGrowth keeps the growth allowed between reclaims on d at the
// live set, however much the collections cost, so that tests reclaim often.
func FixReclaimGrowth(d *Device) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.rc.fixed = true
}

// Reclaims returns how many reclaims d has run.
func Reclaims(d *Device) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.rc.count
}
