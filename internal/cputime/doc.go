// Package cputime reads the process's CPU time for benchmarks that report
// it beside wall time: on a shared, oversubscribed machine the CPU time an
// operation costs is steadier than the wall time it takes.
package cputime
