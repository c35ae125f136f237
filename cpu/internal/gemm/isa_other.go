//go:build (!amd64 && !arm64) || purego

package gemm

// detectLevel returns the pure-Go level: this build has no assembly kernels.
func detectLevel() level { return levelGo }

// archLevels is empty: this build has no assembly levels.
var archLevels []level
