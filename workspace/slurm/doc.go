// Package slurm is the Slurm backend of a run (workspace.Backend): the controller writes the run's work list
// under the data directory (which the nodes must share: a probe job checks it), submits one job array whose
// tasks each run a chunk of stars through the same sandbox as a local run (the hidden `transitbench worker`
// command, Work), and ingests each star's sandbox.Result as the tasks append them, one fsync'd JSON line per
// star, to a file per task. The controller alone scores and writes the results store, so a run scores exactly
// as a local one. It follows the array with squeue (a finished task's state from scontrol or sacct), submits a
// failed or lost chunk again up to Backend.Retries times, and cancels the array with scancel when the run is
// cancelled, keeping every star that finished. Slurm itself is only ever driven through its commands.
package slurm
