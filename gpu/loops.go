package gpu

import (
	"fmt"
	"math"
	"strings"
)

// LlvmpipeLoopIterations is the loop limit of llvmpipe (Mesa's CPU driver,
// lavapipe's compiler): it counts the iterations of all loops of an
// invocation together and silently leaves every loop once the count
// reaches 65535 (LP_MAX_TGSI_LOOP_ITERATIONS; measured with Mesa 22.3.6 by
// the backends' loop-limit tests).
const LlvmpipeLoopIterations = 65535

// LoopLimit returns the MaxLoopIterations of a device from its name: the
// llvmpipe limit on llvmpipe, no limit elsewhere.
func LoopLimit(deviceName string) int {
	if strings.Contains(strings.ToLower(deviceName), "llvmpipe") {
		return LlvmpipeLoopIterations
	}
	return 0
}

// loopBudget is the trip count a kernel's data-dependent loop may have on
// t: half the device's limit, leaving the other half to the kernel's
// bounded loops (the workgroup tree, the epilogue's sixteen elements,
// window geometry), whatever the driver unrolls.
func (t Target) loopBudget() int {
	if t.MaxLoopIterations <= 0 {
		return math.MaxInt
	}
	return max(t.MaxLoopIterations/2, 1)
}

// checkLoops refuses a launch whose invocations would run more loop
// iterations than the device runs.
func (e *encoder) checkLoops(what string, trips int) {
	if b := e.plan.target.loopBudget(); trips > b {
		e.fail("%s takes %d loop iterations per invocation, more than the device runs (%d)", what, trips, b)
	}
}

// loopError is the error of a kernel that no plan brings under the loop limit.
func loopError(kernel, what string, trips int, t Target) error {
	return fmt.Errorf("gpu: %s: %s takes %d loop iterations per invocation, more than the device runs (%d)", kernel, what, trips, t.loopBudget())
}
