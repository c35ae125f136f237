package main

import (
	"fmt"
	"os"
	"runtime/debug"
)

// trainingGCPercent is the garbage collector's growth target while the demo
// trains. Each training step leaves ~48 KB of short-lived graph objects. With
// the ~220 MB dataset on the Go heap, the default target (100%) lets the heap
// grow by another ~220 MB before a collection, so for ~5 MLP epochs every step
// allocates in fresh memory that the kernel must fault in and zero: measured
// on the development machine, 42k more page faults and 20-25% longer MLP
// epochs (4 epochs 0.44-0.56 s against 0.37-0.42 s at 5%). At 10% the
// collector runs about every 500 steps, marking only the small part of the
// heap that holds pointers (the dataset is pointer-free), and steps reuse
// memory that is still in cache.
const trainingGCPercent = 10

// paceGC applies trainingGCPercent unless the user set GOGC, and says so.
func paceGC() {
	if v, ok := os.LookupEnv("GOGC"); ok {
		fmt.Printf("Go GC: GOGC=%s from the environment\n", v)
		return
	}
	debug.SetGCPercent(trainingGCPercent)
	fmt.Printf("Go GC: GOGC=%d while training (set GOGC to override; see cmd/demo/gcpace.go)\n", trainingGCPercent)
}
