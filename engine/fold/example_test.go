package fold_test

import (
	"fmt"

	"transitbench/engine/fold"
)

func ExamplePhase() {
	// Days from the nearest mid-transit of a 3-day orbit with t0 = 10.
	fmt.Println(fold.Phase([]float64{10, 11, 11.6, 22.9}, 3, 10))
	// Output: [0 1 -1.4000000000000004 0.8999999999999986]
}
