package data

// Star is the content of a star directory's star.json (SPEC A1): what a solution may know about the star. On a
// simulated star the stellar parameters are catalogue estimates, not the truth (Answer.TrueStar).
type Star struct {
	ID          string             `json:"id"`
	Kepmag      float64            `json:"kepmag"`
	Teff        float64            `json:"teff"`
	Logg        float64            `json:"logg"`
	RadiusRsun  float64            `json:"radius_rsun"`
	MassMsun    float64            `json:"mass_msun"`
	CDPPppm     map[string]float64 `json:"cdpp_ppm"` // keys "3.0", "6.0", "12.0" (hours)
	CadenceDays float64            `json:"cadence_days"`
	TimeSystem  string             `json:"time_system"` // always "BKJD"
}

// Categories of a star (SPEC A2).
const (
	CategoryInjected  = "injected"
	CategoryUntouched = "untouched"
	CategoryEB        = "eb"
	CategoryConfirmed = "confirmed"
	// CategoryLabelled is a real star imported with its known planets (data import, one label row per planet):
	// scored like an injected star, each planet claimable once (SPEC A5). The simulated sets have none.
	CategoryLabelled = "labelled"
)

// Populations of injected and untouched stars (SPEC A2).
const (
	PopulationRandom     = "random"
	PopulationFalseAlarm = "false_alarm"
)

// Planet is a transiting planet's truth. Times in BKJD days; Depth is fractional (the model's deepest point);
// MES is the multiple-event statistic measured as SPEC A4 defines it; NTransits counts transits with data.
type Planet struct {
	PeriodDays   float64 `json:"period_days"`
	T0Days       float64 `json:"t0_days"`
	DurationDays float64 `json:"duration_days"` // T14
	Depth        float64 `json:"depth"`
	RpRs         float64 `json:"rp_rs"`
	B            float64 `json:"b"`
	MES          float64 `json:"mes"`
	NTransits    int     `json:"n_transits"`
}

// EB is an eclipsing binary's truth. Counted is true when the year of data gives it away (SPEC A4); Giveaway
// lists the reasons ("secondary", "odd_even", "too_deep", "ellipsoidal").
type EB struct {
	PeriodDays            float64  `json:"period_days"`
	T0Days                float64  `json:"t0_days"`
	PrimaryDepth          float64  `json:"primary_depth"`
	SecondaryDepth        float64  `json:"secondary_depth"`
	PrimaryDurationDays   float64  `json:"primary_duration_days"`
	SecondaryDurationDays float64  `json:"secondary_duration_days"`
	SecondaryPhase        float64  `json:"secondary_phase"`
	Morphology            string   `json:"morphology"` // detached | semi_detached | contact | ellipsoidal | background
	Counted               bool     `json:"counted"`
	Giveaway              []string `json:"giveaway"`
}

// FalseAlarm describes the false signal planted on a false-alarm-population star. PeriodDays is 0 for
// aperiodic kinds.
type FalseAlarm struct {
	Kind       string  `json:"kind"`
	PeriodDays float64 `json:"period_days,omitempty"`
	T0Days     float64 `json:"t0_days,omitempty"`
}

// Answer is one star's truth (SPEC A2). Planet is set for injected stars, EB for eclipsing binaries, Confirmed
// for confirmed-planet hosts (never scored) and FalseAlarm for stars of the false-alarm population.
type Answer struct {
	ID         string      `json:"id"`
	Category   string      `json:"category"`
	Population string      `json:"population,omitempty"`
	Scored     bool        `json:"scored"`
	Planet     *Planet     `json:"planet,omitempty"`
	EB         *EB         `json:"eb,omitempty"`
	Confirmed  []Planet    `json:"confirmed,omitempty"`
	FalseAlarm *FalseAlarm `json:"false_alarm,omitempty"`
	// Labelled are the planets of a labelled star (CategoryLabelled), by period.
	Labelled []Planet `json:"labelled,omitempty"`
	// TrueStar is the simulated star's true parameters, with which its signals were drawn; star.json reports
	// catalogue estimates of them (SPEC A1). Nil for real stars, whose truth no one knows.
	TrueStar *TrueStar `json:"true_star,omitempty"`
}

// TrueStar is a simulated star's true parameters, and the kind of catalogue entry ("kic" or "gaia") whose
// errors star.json's parameters carry.
type TrueStar struct {
	Teff       float64 `json:"teff"`
	Logg       float64 `json:"logg"`
	RadiusRsun float64 `json:"radius_rsun"`
	MassMsun   float64 `json:"mass_msun"`
	Catalogue  string  `json:"catalogue"`
}

// ScoredPlanets returns the planets that count for scoring on this star: the injected planet of a scored
// injected star, the planets of a scored labelled star, none otherwise (a confirmed host's planets never count).
func (a *Answer) ScoredPlanets() []Planet {
	if a.Scored && a.Category == CategoryLabelled {
		return a.Labelled
	}
	if !a.Scored || a.Category != CategoryInjected || a.Planet == nil {
		return nil
	}
	return []Planet{*a.Planet}
}
