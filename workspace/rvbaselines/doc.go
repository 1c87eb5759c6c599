// Package rvbaselines runs the RV track's reference pipelines (SPEC B4) over task sets in-process: a Solver
// sees only what a contestant sees (the data and the star mass), RunBaseline grades each configuration with
// the gate (grader/rvgate) and summarises per tier as workspace/rvtrack does for a contestant's solution.
// ClassicalSolver, ClassicalThoroughSolver, SearchSolver and HonestSolver answer once; ExpertSolver, an
// InteractiveSolver run by RunInteractive, submits the models the data support within the tier's submissions
// and uses the contestant's feedback on each only to choose among them.
// They are the pipelines 'transitbench rv baseline' runs.
package rvbaselines
