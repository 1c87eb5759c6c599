package sets_test

import (
	"fmt"

	"transitbench/data/sets"
)

// The train pool keeps the hidden sets' proportions at any size.
func ExampleTrainComposition() {
	fmt.Printf("%+v\n", sets.TrainComposition(2000))
	fmt.Printf("%+v\n", sets.TrainComposition(30))
	// Output:
	// {Injected:800 Untouched:700 EB:300 Confirmed:200 Labelled:0}
	// {Injected:12 Untouched:11 EB:4 Confirmed:3 Labelled:0}
}

// Mini task ids name their pool and number.
func ExampleParseMiniTask() {
	for _, id := range []string{"mini-dev-00000007", "mini-train-00123456", "mini-dev-00000032"} {
		pool, n, err := sets.ParseMiniTask(id)
		fmt.Println(pool, n, err != nil)
	}
	// Output:
	// dev 7 false
	// train 123456 false
	//  0 true
}

// Star ids are the set name and the star's index, zero-padded.
func ExampleStarID() {
	fmt.Println(sets.StarID(sets.Dev, 4, 42), sets.StarID(sets.Train, 6, 123))
	// Output: dev-0042 train-000123
}
