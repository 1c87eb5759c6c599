package stat_test

import (
	"fmt"

	"transitbench/engine/stat"
)

// A robust standard deviation: 1.4826 × the median absolute deviation, which the outlier 40 does not move.
func ExampleMAD() {
	x := []float64{1.0, 1.2, 0.8, 1.1, 0.9, 40}
	fmt.Printf("%.4f\n", stat.MADToSigma*stat.MAD(x))
	// Output: 0.2224
}
