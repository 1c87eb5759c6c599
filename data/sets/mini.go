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

// Mini is one mini task: stars of a pool set (train for mini-train tasks, dev for mini-dev tasks). Labelled
// and Hidden hold star ids of Set, sorted; Hidden holds exactly MiniPlanets scored injected stars and as many
// other scored stars (untouched stars and counted eclipsing binaries); Labelled holds stars of any category.
type Mini struct {
	ID       string   `json:"task"`
	Pool     string   `json:"pool"`
	Labelled []string `json:"labelled"`
	Hidden   []string `json:"hidden"`
	Planets  int      `json:"planets"`
	Set      *Set     `json:"-"`
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

// OpenMiniTask is MiniTask with options for opening the pool set (progress of a first build, a train pool size).
// The stars are drawn deterministically from the task id and the pool: the pool's scored injected stars, its other
// scored stars and all its stars are each shuffled with a key made from the task id (see shuffle); Hidden takes
// the first MiniPlanets of the first two lists, Labelled the first MiniLabelled stars of the third not already
// hidden. Mini-train tasks therefore depend on the train pool's size too.
func OpenMiniTask(home, taskID string, opt Options) (*Mini, error) {
	pool, _, err := ParseMiniTask(taskID)
	if err != nil {
		return nil, err
	}
	s, err := Open(home, pool, opt)
	if err != nil {
		return nil, err
	}
	return miniFrom(s, taskID)
}

func miniFrom(s *Set, taskID string) (*Mini, error) {
	var injected, others []string
	for _, id := range s.IDs {
		a := s.Answers[id]
		switch {
		case len(a.ScoredPlanets()) == 1:
			injected = append(injected, id)
		case a.Scored && a.Category != data.CategoryInjected:
			others = append(others, id)
		}
	}
	need := MiniHidden - MiniPlanets
	if len(injected) < MiniPlanets || len(others) < need || len(s.IDs) < MiniHidden+MiniLabelled {
		return nil, fmt.Errorf("sets: pool %s is too small for mini tasks: it has %d scored injected and %d other "+
			"scored stars of %d, a task needs %d, %d and %d; rebuild it larger (--stars)", s.Name, len(injected),
			len(others), len(s.IDs), MiniPlanets, need, MiniHidden+MiniLabelled)
	}
	pick := func(label string, ids []string, k int, skip map[string]bool) []string {
		ids = slices.Clone(ids)
		shuffle(len(ids), hashKey("transitbench mini "+label, []byte(taskID)), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		var out []string
		for _, id := range ids {
			if len(out) == k {
				break
			}
			if !skip[id] {
				out = append(out, id)
			}
		}
		return out
	}
	hidden := append(pick("planets", injected, MiniPlanets, nil), pick("others", others, need, nil)...)
	skip := map[string]bool{}
	for _, id := range hidden {
		skip[id] = true
	}
	labelled := pick("labelled", s.IDs, MiniLabelled, skip)
	slices.Sort(hidden)
	slices.Sort(labelled)
	return &Mini{ID: taskID, Pool: s.Name, Labelled: labelled, Hidden: hidden, Planets: MiniPlanets, Set: s}, nil
}

// MiniReward is the reward of a mini task (SPEC A8): clip((credit − false)/8, −1, 1), with credit the planets
// found (full and half credits) and false the false candidates on the hidden stars.
func MiniReward(credit, falseCandidates float64) float64 {
	return min(1, max(-1, (credit-falseCandidates)/MiniPlanets))
}
