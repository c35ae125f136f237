package onnx

// attr returns the node's attribute called name, or nil.
func (n *NodeProto) attr(name string) *AttributeProto {
	for i := range n.Attributes {
		if n.Attributes[i].Name == name {
			return &n.Attributes[i]
		}
	}
	return nil
}

// attrInt returns an integer attribute, or def when absent.
func (n *NodeProto) attrInt(name string, def int64) int64 {
	if a := n.attr(name); a != nil {
		return a.I
	}
	return def
}

// attrFloat returns a float attribute, or def when absent.
func (n *NodeProto) attrFloat(name string, def float64) float64 {
	if a := n.attr(name); a != nil {
		return float64(a.F)
	}
	return def
}

// attrInts returns an integer-list attribute as ints, or nil when absent.
func (n *NodeProto) attrInts(name string) []int {
	a := n.attr(name)
	if a == nil {
		return nil
	}
	out := make([]int, len(a.Ints))
	for i, v := range a.Ints {
		out[i] = int(v)
	}
	return out
}

// attrString returns a string attribute, or def when absent.
func (n *NodeProto) attrString(name, def string) string {
	if a := n.attr(name); a != nil {
		return string(a.S)
	}
	return def
}
