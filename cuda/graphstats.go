package cuda

// EnvGraphs set to 1 turns graphs on for every device the backend opens
// (SetGraphs), so that a program using the tensor front end, such as the
// demo's training, runs its repeated steps as graphs without code changes.
const EnvGraphs = "SHADERFLOW_CUDA_GRAPHS"

// GraphStats counts what a device's graphs did since they were first
// turned on.
type GraphStats struct {
	Segments    uint64 // flushes of queued launches
	Eager       uint64 // segments run as plain launches (first seen, one launch, or a fallback)
	Built       uint64 // graphs built and instantiated
	Replays     uint64 // segments that relaunched an instantiated graph
	NodeUpdates uint64 // kernel nodes whose parameters a replay changed
	Failures    uint64 // graph calls that failed (each one turns graphs off)
	// Off is the failure that turned graphs off, nil while they work.
	Off error
}
