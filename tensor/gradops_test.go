package tensor

import (
	"reflect"
	"testing"
)

// TestGradOpTable checks that every differentiable operation has a name,
// spelt as its front-end function, and a backward rule, so that a missing
// rule fails here rather than at a user's Backward, and that no two
// operations share a name (errors would not tell them apart).
func TestGradOpTable(t *testing.T) {
	// Package-level front-end functions; the other names are methods.
	funcs := map[string]any{"Where": Where, "Cat": Cat, "ScatterAdd": ScatterAdd, "ScaledDotProductAttention": ScaledDotProductAttention}
	methods := reflect.TypeOf(&Tensor{})
	seen := map[string]bool{}
	for _, op := range gradOps {
		name := op.String()
		if name == "" {
			t.Errorf("an operation has no name")
			continue
		}
		if seen[name] {
			t.Errorf("two operations are named %q", name)
		}
		seen[name] = true
		if op.rule() == nil {
			t.Errorf("%s has no backward rule", name)
		}
		if _, ok := methods.MethodByName(name); !ok && funcs[name] == nil {
			t.Errorf("%s is neither a Tensor method nor a front-end function", name)
		}
	}
	var none gradOp
	if none.rule() != nil || none.String() != "no operation" {
		t.Errorf("the nil operation prints as %q or has a rule", none.String())
	}
}
