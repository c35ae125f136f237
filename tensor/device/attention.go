package device

// AttentionKernel computes scaled dot-product attention in one pass over
// each batch element, without storing the weights: Out = P·V with
// P = softmax(Scale·Q·Kᵀ) along the keys (with Causal, query i attends
// only keys j <= i, the top-left aligned triangle of PyTorch's is_causal),
// and LSE, the log-sum-exp of each row of the scaled, masked scores, from
// which AttentionBackwardKernel recomputes P.
//
// Q [B..., L, E], K [B..., S, E] and V [B..., S, Ev] are Float32 views of
// any strides (stride 0 broadcasts) with one batch shape B... (possibly
// empty) and S >= 1; Out [B..., L, Ev] is a Float32 view that fills its
// elements' range one to one with its rows contiguous (View.IsDenseRows: a
// contiguous array, or one whose batch and row dimensions are permuted, as
// [B, L, H, Ev] viewed as [B, H, L, Ev]); LSE [B..., L] is a contiguous
// Float32 view; Scale is finite. As the softmax row kernels, a row of
// scores holding NaN or +Inf gives NaN outputs and a NaN LSE.
type AttentionKernel struct {
	Q, K, V View
	Scale   float64
	Causal  bool
	Out     View
	LSE     View
}

// AttentionBackwardKernel computes the gradients of an AttentionKernel's
// Q, K and V from its inputs, its results Out and LSE, and the gradient
// GradOut of Out: with P recomputed from Q, K and LSE and
// D = rowsum(GradOut ⊙ Out),
//
//	GradV = Pᵀ·GradOut
//	dS    = P ⊙ (GradOut·Vᵀ − D)
//	GradQ = Scale·dS·K
//	GradK = Scale·dSᵀ·Q
//
// Q, K, V, Scale and Causal are as in the forward kernel; Out and GradOut
// [B..., L, Ev] and LSE [B..., L] are Float32 views of any strides; GradQ,
// GradK and GradV are Float32 views of Q's, K's and V's shapes with
// contiguous, distinct rows (View.HasDistinctRows), which may interleave in
// one array but must not share elements (a broadcast operand's gradient is
// per batch element: the caller sums it).
type AttentionBackwardKernel struct {
	Q, K, V             View
	Out, LSE, GradOut   View
	Scale               float64
	Causal              bool
	GradQ, GradK, GradV View
}

// Attender is implemented by devices with fused attention kernels. The
// front end uses them for ScaledDotProductAttention without a mask tensor
// (causal or not) when every operand is Float32, and otherwise composes
// attention from a product, a masked softmax and a second product, which
// store the weights.
type Attender interface {
	// Attention runs an attention forward pass.
	Attention(k *AttentionKernel) error
	// AttentionBackward runs the gradient of an attention forward pass.
	AttentionBackward(k *AttentionBackwardKernel) error
}
