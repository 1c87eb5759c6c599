package grader

// MESBinName names the MES bin of a planet as SPEC A5 bins them and MESBins's JSON keys say: "4-7.1" below
// MESEdgeLow, "7.1-10" below MESEdgeHigh, "10-20" above; "none" when mes ≤ 0 (a star with no planet).
func MESBinName(mes float64) string {
	switch {
	case mes <= 0:
		return "none"
	case mes < MESEdgeLow:
		return "4-7.1"
	case mes < MESEdgeHigh:
		return "7.1-10"
	}
	return "10-20"
}
