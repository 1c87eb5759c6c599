package grader

// MESBinName names the MES bin of a planet as SPEC A5 bins them and MESBins's JSON keys say: "4-7.1" below
// MESEdgeLow, "7.1-10" below MESEdgeHigh, "10-20" below MESEdgeTop, "20+" from it; "none" when mes ≤ 0 (a star
// with no planet).
func MESBinName(mes float64) string {
	if mes <= 0 {
		return "none"
	}
	return MESBinNames[MESBinIndex(mes)]
}

// MESBinNames are the bins' names in order, as MESBins's JSON keys.
var MESBinNames = [4]string{"4-7.1", "7.1-10", "10-20", "20+"}

// MESBinIndex returns the index of mes's bin: 0 below MESEdgeLow (MES below 4 included), 1 below MESEdgeHigh, 2
// below MESEdgeTop, 3 from it.
func MESBinIndex(mes float64) int {
	switch {
	case mes < MESEdgeLow:
		return 0
	case mes < MESEdgeHigh:
		return 1
	case mes < MESEdgeTop:
		return 2
	}
	return 3
}

// Bins returns the four bins in order.
func (b *MESBins) Bins() [4]*MESBin { return [4]*MESBin{&b.Low, &b.Mid, &b.High, &b.Top} }
