package stargazer

// View is what a contestant may see of a task: the observations, the star's mass, the reference time of the
// phases, the tier and the budget. It holds no truth: no planets, no noise parameters, and not the difficulty
// score (its terms count the planets and the resonances).
type View struct {
	TaskID      string    `json:"task"`
	Tier        string    `json:"tier"`
	Budget      Budget    `json:"budget"`
	MStarSun    float64   `json:"M_star_sun"`
	TRefDays    float64   `json:"t_ref_days"` // times_days[0]: mean anomalies M0 are referred to it
	NObs        int       `json:"n_obs"`
	Instruments []string  `json:"instrument_labels"`
	TimesDays   []float64 `json:"times_days"`
	RVsMS       []float64 `json:"rvs_ms"`
	SigmasMS    []float64 `json:"sigmas_ms"`
	Instrument  []string  `json:"instruments"`
}

// View returns the contestant's view of the task (RVs after the load-time conversion).
func (t *Task) View() View {
	o := t.Observations
	v := View{
		TaskID: t.TaskID, Tier: t.Tier(), Budget: t.Budget(), MStarSun: t.Config.Star.MStarSun,
		TRefDays: o.TimesDays[0], NObs: len(o.TimesDays), Instruments: t.Data().Instruments,
		TimesDays: o.TimesDays, RVsMS: o.RVsMS, SigmasMS: o.SigmasMS, Instrument: o.Instruments,
	}
	return v
}
