package sets

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"transitbench/data"
)

// The mini taskset of SPEC A8.
const (
	MiniLabelled = 12 // labelled stars per mini task (answers given)
	MiniHidden   = 16 // hidden stars per mini task (answers withheld)
	MiniPlanets  = 8  // injected planets among the hidden stars
	MiniDevTasks = 32 // mini-dev-00000000 … mini-dev-00000031
)

// MiniPool is the set every mini task's hidden stars come from (SPEC A8): a hidden set like A and B, built from
// the grader's secret seed with MiniPoolComposition, so that no public pool (which anyone can regenerate with
// the simulator in the binary) holds them. Its stars are never shown and run under anonymous ids (SPEC A1).
const MiniPool = "M"

// MiniPoolComposition is the mini pool's: A's composition, 1,000 stars (400 injected planets, 350 untouched
// stars, 150 eclipsing binaries, 100 confirmed hosts), so that the 16 hidden stars of a task are drawn from
// 400 planets and about 450 other scored stars.
var MiniPoolComposition = HiddenComposition

// Mini is one mini task: labelled stars of a public pool set (train for mini-train tasks, dev for mini-dev
// tasks) and hidden stars of the secret pool MiniPool. Labelled holds star ids of Set, Hidden star ids of
// HiddenSet, both sorted; Hidden holds exactly MiniPlanets scored injected stars and as many other scored stars
// (untouched stars and counted eclipsing binaries); Labelled holds stars of any category. The hidden stars'
// ids stay with the grader: JSON carries only their number and pool.
type Mini struct {
	ID          string   `json:"task"`
	Pool        string   `json:"pool"`
	Labelled    []string `json:"labelled"`
	HiddenPool  string   `json:"hidden_pool"`
	HiddenStars int      `json:"hidden_stars"`
	Hidden      []string `json:"-"`
	Planets     int      `json:"planets"`
	Set         *Set     `json:"-"`
	HiddenSet   *Set     `json:"-"`
}

// ParseMiniTask checks a mini task id and returns its pool set name and number: "mini-train-%08d" (any
// non-negative number, written with at least 8 digits and no extra leading zeros) draws from the train pool,
// "mini-dev-00000000" … "mini-dev-00000031" from dev.
func ParseMiniTask(id string) (pool string, n uint64, err error) {
	bad := func() (string, uint64, error) {
		return "", 0, fmt.Errorf("sets: %q is not a mini task id: use mini-train-NNNNNNNN (8 or more digits) or "+
			"mini-dev-00000000 … mini-dev-%08d", id, MiniDevTasks-1)
	}
	var digits string
	switch {
	case strings.HasPrefix(id, "mini-train-"):
		pool, digits = Train, strings.TrimPrefix(id, "mini-train-")
	case strings.HasPrefix(id, "mini-dev-"):
		pool, digits = Dev, strings.TrimPrefix(id, "mini-dev-")
	default:
		return bad()
	}
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return bad()
	}
	n, err = strconv.ParseUint(digits, 10, 64)
	if err != nil || fmt.Sprintf("%08d", n) != digits || pool == Dev && n >= MiniDevTasks {
		return bad()
	}
	return pool, n, nil
}

// MiniTask returns mini task taskID of the data directory home, building its pool set (train or dev, standard
// composition) first if needed.
func MiniTask(home, taskID string) (*Mini, error) { return OpenMiniTask(home, taskID, Options{}) }

// OpenMiniTask is MiniTask with options for opening the public pool set (progress of a first build, a train
// pool size) and the secret pool MiniPool (opt.MiniPool: its composition, for tests). The stars are drawn
// deterministically from the task id and the pools: the secret pool's scored injected stars and its other scored
// stars, and all the public pool's stars, are each shuffled with a key made from the task id (see shuffle);
// Hidden takes the first MiniPlanets of the first two lists, Labelled the first MiniLabelled stars of the third.
// Mini-train tasks therefore depend on the train pool's size too. Building the secret pool needs the secret
// seed, made at the first build of a hidden set (SPEC A2).
func OpenMiniTask(home, taskID string, opt Options) (*Mini, error) {
	m, err := OpenMiniLabelled(home, taskID, opt)
	if err != nil {
		return nil, err
	}
	po := Options{Progress: opt.Progress, Context: opt.Context, Workers: opt.Workers, Composition: opt.MiniPool, gen: opt.gen}
	hs, err := Open(home, MiniPool, po)
	if err != nil {
		return nil, err
	}
	return m, m.drawHidden(hs)
}

// OpenMiniLabelled is OpenMiniTask without the hidden stars (Hidden empty, HiddenSet nil): what a mini
// workspace is made from, without building the secret pool.
func OpenMiniLabelled(home, taskID string, opt Options) (*Mini, error) {
	pool, _, err := ParseMiniTask(taskID)
	if err != nil {
		return nil, err
	}
	s, err := Open(home, pool, opt)
	if err != nil {
		return nil, err
	}
	if len(s.IDs) < MiniLabelled {
		return nil, fmt.Errorf("sets: pool %s is too small for mini tasks: it has %d stars, a task needs %d; "+
			"rebuild it larger (--stars)", s.Name, len(s.IDs), MiniLabelled)
	}
	labelled := miniPick(taskID, "labelled", s.IDs, MiniLabelled)
	slices.Sort(labelled)
	return &Mini{ID: taskID, Pool: s.Name, Labelled: labelled, HiddenPool: MiniPool, HiddenStars: MiniHidden,
		Planets: MiniPlanets, Set: s}, nil
}

// miniPick returns the first k of ids shuffled with the task's key for label.
func miniPick(taskID, label string, ids []string, k int) []string {
	ids = slices.Clone(ids)
	shuffle(len(ids), hashKey("transitbench mini "+label, []byte(taskID)), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	return ids[:min(k, len(ids))]
}

// drawHidden draws the task's hidden stars from hs, the secret pool.
func (m *Mini) drawHidden(hs *Set) error {
	var injected, others []string
	for _, id := range hs.IDs {
		a := hs.Answers[id]
		switch {
		case len(a.ScoredPlanets()) == 1:
			injected = append(injected, id)
		case a.Scored && a.Category != data.CategoryInjected:
			others = append(others, id)
		}
	}
	need := MiniHidden - MiniPlanets
	if len(injected) < MiniPlanets || len(others) < need {
		return fmt.Errorf("sets: the mini pool %s is too small for mini tasks: it has %d scored injected and %d "+
			"other scored stars, a task needs %d and %d; rebuild it with its standard composition", hs.Name,
			len(injected), len(others), MiniPlanets, need)
	}
	hidden := append(miniPick(m.ID, "planets", injected, MiniPlanets), miniPick(m.ID, "others", others, need)...)
	slices.Sort(hidden)
	m.Hidden, m.HiddenSet = hidden, hs
	return nil
}

// MiniReward is the reward of a mini task (SPEC A8): clip((credit − false)/8, −1, 1), with credit the planets
// found (full and half credits) and false the false candidates on the hidden stars.
func MiniReward(credit, falseCandidates float64) float64 {
	return min(1, max(-1, (credit-falseCandidates)/MiniPlanets))
}
