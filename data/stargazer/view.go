package stargazer

// View is what a contestant may see of a task: the observations, the star's mass, the reference time of the
// phases, the tier and the budget. It holds no truth: no planets, no noise parameters, and not the difficulty
// score (its terms count the planets and the resonances).
type View struct {
	TaskID      string   `json:"task"`
	Tier        string   `json:"tier"`
	Budget      Budget   `json:"budget"`
	MStarSun    float64  `json:"M_star_sun"`
	TRefDays    float64  `json:"t_ref_days"` // times_days[0]: mean anomalies M0 are referred to it
	NObs        int      `json:"n_obs"`
	Instruments []string `json:"instrument_labels"`
	// The series (left out of the JSON when empty: a front end's view of a task whose clock has not started).
	TimesDays  []float64 `json:"times_days,omitempty"`
	RVsMS      []float64 `json:"rvs_ms,omitempty"`
	SigmasMS   []float64 `json:"sigmas_ms,omitempty"`
	Instrument []string  `json:"instruments,omitempty"`
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

// Meta returns the view without its series: what may be shown of a task before its clock starts (its tier,
// budget, star mass, reference time, number of points and instruments).
func (v View) Meta() View {
	v.TimesDays, v.RVsMS, v.SigmasMS, v.Instrument = nil, nil, nil, nil
	return v
}
