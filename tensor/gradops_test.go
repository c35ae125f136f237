package tensor

import (
	"fmt"
	"reflect"
	"testing"
)

// TestGradOpTable checks that every differentiable operation has a name,
// spelt as its front-end function, and a backward rule, so that a missing
// rule fails here rather than at a user's Backward, and that no two
// operations share a name (errors would not tell them apart).
func TestGradOpTable(t *testing.T) {
	// Package-level front-end functions; the other names are methods.
	funcs := map[string]any{"Where": Where, "Cat": Cat, "ScatterAdd": ScatterAdd}
	methods := reflect.TypeOf(&Tensor{})
	seen := map[string]gradOp{}
	for op := gradOp(1); op < numGradOps; op++ {
		name := gradOpNames[op]
		if name == "" {
			t.Errorf("gradOp %d has no name", op)
			continue
		}
		if op.String() != name {
			t.Errorf("gradOp %d prints as %q, not %q", op, op.String(), name)
		}
		if prev, dup := seen[name]; dup {
			t.Errorf("gradOps %d and %d are both named %q", prev, op, name)
		}
		seen[name] = op
		if op.rule() == nil {
			t.Errorf("%s has no backward rule", name)
		}
		if _, ok := methods.MethodByName(name); !ok && funcs[name] == nil {
			t.Errorf("%s is neither a Tensor method nor a front-end function", name)
		}
	}
	if gradRules[0] != nil || gradOpNames[0] != "" {
		t.Errorf("gradOp 0, which means no operation, has a name or a rule")
	}
	if got, want := numGradOps.String(), fmt.Sprintf("gradOp(%d)", uint8(numGradOps)); got != want || numGradOps.rule() != nil {
		t.Errorf("a value outside the table prints as %q (want %q) or has a rule", got, want)
	}
}
