package sim

// Range is a closed interval [Lo, Hi] a quantity is drawn from (uniformly unless the field says otherwise).
type Range struct{ Lo, Hi float64 }

// Knobs holds every rate, amplitude and threshold of the simulator in one place. DefaultKnobs documents each
// default and where it comes from; the calibration against the baseline ladder (SPEC A7) tunes these values and
// nothing else. Changing a default changes the output: bump Version.
type Knobs struct {
	Calendar   CalendarKnobs
	Star       StarKnobs
	Noise      NoiseKnobs
	Planet     PlanetKnobs
	EB         EBKnobs
	FalseAlarm FalseAlarmKnobs
	Confirmed  ConfirmedKnobs
	Measure    MeasureKnobs
}

// CalendarKnobs shape the observing calendar and the instrumental events flagged in the quality column.
type CalendarKnobs struct {
	StartBKJD           Range   // start of the first quarter, BKJD days
	MonthDays           Range   // interval between downlinks, days; a quarter is three months, the year twelve
	RollGapDays         Range   // data lost at each quarterly roll, days
	DownlinkGapDays     Range   // data lost at each monthly downlink, days
	EarthPointDays      Range   // cadences flagged 8 (Earth point) just before each downlink and roll, days
	SafeModeRate        float64 // expected safe-mode events per year (Poisson)
	SafeModeDays        Range   // data lost in a safe mode, days
	DesatIntervalDays   Range   // interval between reaction-wheel desaturations (flag 32), days
	DesatTwoCadence     float64 // probability that a desaturation flags two cadences instead of one
	AttitudeTweakRate   float64 // attitude tweaks per year (flag 1, one cadence each)
	CoarsePointRate     float64 // coarse-point episodes per year (flag 4)
	CoarsePointDays     Range   // length of a coarse-point episode, days
	ModuleLossProb      float64 // probability that the star falls on a failing CCD module and loses the end of a quarter
	ModuleLossDays      Range   // data lost at the end of that quarter, days
	CosmicRate          float64 // probability per cadence of a flagged, corrected aperture cosmic ray (flag 128; flux untouched)
	UnflaggedHitRate    float64 // probability per cadence of an unflagged cosmic-ray hit (a positive outlier)
	CollateralRate      float64 // probability per cadence of a collateral cosmic ray flag (8192; flux untouched)
	ZeroCrossingRate    float64 // probability per cadence of a reaction-wheel zero-crossing flag (16; flux untouched)
	AnomalyRate         float64 // probability per cadence of a detector-anomaly flag (16384, masked)
	ArgabrighteningRate float64 // probability per cadence of an Argabrightening event (flags 64 and 4096; flux untouched)
	NoFinePointRate     float64 // no-fine-point episodes per year (flag 32768; flux untouched)
	NoFinePointDays     Range   // length of a no-fine-point episode, days
	OutlierRate         float64 // probability per cadence of an impulsive outlier (flag 2048)
	SPSDRate            float64 // sudden pixel sensitivity dropouts per star-year (flag 1024 on the event cadence)
	RollingBandProb     float64 // share of stars on a channel with rolling-band episodes (flag 131072)
	RollingBandEpisodes Range   // number of rolling-band episodes in the year for such a star
	RollingBandDays     Range   // length of a rolling-band episode, days
	RollingBandMaskOnly float64 // share of episodes that touch only the pixel mask (flag 262144, no ripple in the flux)
}

// StarKnobs limit the stellar parameters drawn from the fitted Kepler target distributions (fitted.go).
type StarKnobs struct {
	Kepmag           Range   // Kepler magnitudes kept (draws outside are redrawn)
	CDPPScatterScale float64 // multiplies the fitted log-normal scatter of CDPP at fixed magnitude
	CDPPScale        float64 // multiplies the fitted median CDPP
	MassMsun         Range   // stellar masses kept, solar masses
	RadiusRsun       Range   // stellar radii kept, solar radii
	Catalogue        CatalogueKnobs
}

// CatalogueKnobs set the errors of the stellar parameters star.json reports (catalogue.go): each star's
// parameters come from one of two kinds of catalogue, drawn per star. A KIC-like entry (photometric
// classification) is off mostly in log g, i.e. in the star's evolutionary state: log g is perturbed by
// KICLoggDex, the mass by KICMassDex, and the radius follows from both (R ∝ √(M/g)), so a 0.3 dex log g error
// is a ≈ 0.15 dex (−29 %/+41 %) radius error; Teff by KICTeffK. A Gaia-like entry (parallax radius) has the
// radius off by GaiaRadiusDex and the mass by GaiaMassDex, and log g follows; Teff by GaiaTeffK. In both the
// reported mass is 10^(log g − log g☉)·R², consistent with the reported log g and radius. Errors are normal
// in the stated unit, truncated at ±3σ.
type CatalogueKnobs struct {
	GaiaShare     float64 // share of stars with a Gaia-like entry; the others are KIC-like
	KICLoggDex    float64 // σ of the KIC-like log g error, dex
	KICMassDex    float64 // σ of the KIC-like mass error, dex
	KICTeffK      float64 // σ of the KIC-like Teff error, K
	GaiaRadiusDex float64 // σ of the Gaia-like radius error, dex
	GaiaMassDex   float64 // σ of the Gaia-like mass error, dex
	GaiaTeffK     float64 // σ of the Gaia-like Teff error, K
}

// NoiseKnobs set the mixture and amplitudes of the astrophysical and instrumental noise (SPEC A3).
type NoiseKnobs struct {
	RedFraction      Range   // share of the 6-h CDPP variance carried by granulation-like red noise
	RedTauDays       Range   // time constant of the red noise (an Ornstein–Uhlenbeck process), days
	SpotProb         float64 // share of stars with rotational spot modulation
	SpotAmp          Range   // semi-amplitude of spot modulation, relative flux, log-uniform
	SpotPeriodDays   Range   // rotation periods kept, days
	SpotPeriodMedian float64 // median rotation period, days (log-normal)
	SpotPeriodDex    float64 // scatter of log10 rotation period
	SpotLifetimeRots Range   // spot-pattern coherence time in rotations
	PulsatorTeff     float64 // stars hotter than this (K) may pulsate (instability strip)
	PulsatorProb     float64 // share of hot stars that pulsate
	DeltaScutiProb   float64 // share of pulsators that are δ Scuti (p modes); the rest are γ Doradus (g modes)
	DeltaScutiDays   Range   // δ Scuti mode periods, days, log-uniform
	GammaDorDays     Range   // γ Doradus mode periods, days, log-uniform
	PulsationAmp     Range   // mode semi-amplitude, relative flux, log-uniform
	PulsationModes   Range   // number of modes (rounded down)
	FlareTeff        float64 // stars cooler than this (K) flare
	FlareRatePerDay  Range   // flare rate on a flaring star, per day, log-uniform
	FlareAmp         Range   // flare peak, relative flux, log-uniform (power-law-like spread)
	FlareDecayDays   Range   // flare e-folding decay time, days, log-uniform
	QuarterOffset    float64 // standard deviation of the residual quarter-to-quarter flux offsets, relative flux
	TrendAmp         Range   // amplitude of slow per-quarter trends (focus, velocity aberration), relative flux, log-uniform
	RampAmp          Range   // amplitude of thermal settling ramps after downlinks and safe modes, relative flux, log-uniform
	RampTauDays      Range   // e-folding time of those ramps, days
	RampScatter      float64 // each ramp's amplitude is uniform within ±this share of the star's
	SPSDDepth        Range   // fractional flux drop of a sudden pixel sensitivity dropout, log-uniform
	SPSDRecovery     Range   // share of the drop recovered exponentially after the event
	SPSDTauDays      Range   // recovery time, days
	OutlierSigma     Range   // size of unflagged cosmic-ray hits and impulsive outliers in units of the per-cadence white noise
	NegativeOutliers float64 // share of impulsive outliers that are dips (the rest, and all cosmic-ray hits, are spikes)
	RollingBandAmp   Range   // semi-amplitude of rolling-band ripples, relative flux, log-uniform
	RollingBandDays  Range   // ripple period, days
}

// PlanetKnobs govern the injected planet (SPEC A2, A4).
type PlanetKnobs struct {
	MES          Range   // multiple-event statistic, uniform
	PeriodDays   Range   // period, log-uniform, further limited to periods leaving MinTransits transits with data
	MinTransits  int     // transits with data the planet must show
	B            Range   // impact parameter, uniform
	MaxRpRs      float64 // largest radius ratio the depth solve may reach; a draw needing more is redrawn
	Redraws      int     // attempts at (period, b, t0) before the largest-MES feasible draw is accepted
	MESTolerance float64 // relative tolerance of the depth solve on the measured MES
	// HighMESShare is the share of injected stars whose planet's MES is drawn log-uniform in HighMES instead
	// of uniform in MES (stream "planet-high"); 0 in the defaults, so that dev, A and B are unchanged. The
	// train pool sets it (sets.TrainPlanet) so that the learned vetter sees strong planets as well as strong
	// binaries and false alarms.
	HighMESShare float64
	HighMES      Range
}

// EBKnobs govern eclipsing binaries drawn from the Villanova catalogue fit (SPEC A3, A4).
type EBKnobs struct {
	PeriodDays          Range   // catalogue periods kept (at least two eclipses fit in the year)
	BackgroundProb      float64 // share of EBs that are diluted background binaries with planet-like depths
	BackgroundDepth     Range   // diluted primary depth of a background binary, log-uniform (sets its light fraction)
	CompanionDilution   Range   // light fraction of a bound or foreground binary (third light elsewhere), uniform
	ShapeFlatness       float64 // eclipse profile exponent s = 1 + ShapeFlatness·(1 − morph): V (s = 1) for contact, flatter for detached
	EllipsoidalPerMorph float64 // ellipsoidal semi-amplitude per unit morphology above EllipsoidalMorph, relative flux
	EllipsoidalMorph    float64 // morphology above which ellipsoidal and reflection modulation appears
	ReflectionShare     float64 // reflection semi-amplitude as a share of the ellipsoidal one
	SecondaryMES        float64 // giveaway "secondary": secondary eclipse MES at or above this
	OddEvenSigma        float64 // giveaway "odd_even": odd/even depth difference at or above this many σ
	OddEvenFoldRatio    float64 // secondary/primary depth ratio above which a search folds a circular EB at P/2
	TooDeepRpRs         float64 // giveaway "too_deep": √depth above this radius ratio
	EllipsoidalSNR      float64 // giveaway "ellipsoidal": modulation SNR at or above this
}

// FalseAlarmKnobs govern the false signal planted on false-alarm-population stars (SPEC A2, A3).
type FalseAlarmKnobs struct {
	Kinds        []KindWeight // the kinds of false signal and their relative frequencies
	MES          Range        // strength of the planted signal, as the MES a box search would give it, uniform
	EventScatter float64      // event-to-event depth scatter: each event's depth is uniform within ±this share
	MaxRescale   float64      // largest factor the planted signal is scaled up by to reach the drawn MES after the simulator's own detrending (≥ 1)

	DesatGlitchCadences    Range // desat_glitch: dip length after each desaturation, cadences (rounded down)
	SingleEventPeriodDays  Range // single_events: the period the three events fold at, days, log-uniform
	SingleEventDays        Range // single_events: length of each event (sudden drop, linear recovery), days
	SpotDipPeriodDays      Range // spot_dips: rotation period, days
	SpotDipDays            Range // spot_dips: dip FWHM, days
	SpotDipLifetimeRots    Range // spot_dips: coherence time of the dip depth, rotations
	HarmonicPeriodDays     Range // harmonic: variability period, days
	GapRampTauDays         Range // gap_ramps: e-folding time of the ramps, days
	RollingBandPeriodDays  Range // rolling_band: dip period, days
	RollingBandDipDays     Range // rolling_band: dip length, days
	RollingBandEpisodes    Range // rolling_band: number of flagged episodes holding the dips (rounded down)
	RollingBandEpisodeDays Range // rolling_band: episode length, days
}

// KindWeight is one kind of false alarm and its relative frequency.
type KindWeight struct {
	Kind   string
	Weight float64
}

// ConfirmedKnobs govern the planets of confirmed-planet hosts (never scored).
type ConfirmedKnobs struct {
	Multiplicity [3]float64 // relative frequency of 1, 2 and 3 planets
	PeriodDays   Range      // periods kept from the fitted confirmed-planet period distribution
	MaxRpRs      float64    // radius ratios above this are redrawn
}

// MeasureKnobs set how the simulator measures noise on its own output (σ_D, CDPP, MES).
type MeasureKnobs struct {
	WindowDurations float64 // detrending window as a multiple of the longest duration measured
	MinWindowDays   float64 // shortest detrending window, days
}

// DefaultKnobs returns the simulator's defaults. Sources: Kepler Data Release Notes and Archive Manual
// (calendar, quality bits), Christiansen et al. 2012 and the KOI table fit (noise), McQuillan, Mazeh & Aigrain
// 2014 (rotation), SPEC A2–A4 (injection, giveaways), Prša et al. 2011 / Kirk et al. 2016 (eclipsing binaries).
func DefaultKnobs() *Knobs {
	return &Knobs{
		Calendar:   defaultCalendarKnobs(),
		Star:       defaultStarKnobs(),
		Noise:      defaultNoiseKnobs(),
		Planet:     defaultPlanetKnobs(),
		EB:         defaultEBKnobs(),
		FalseAlarm: defaultFalseAlarmKnobs(),
		Confirmed:  defaultConfirmedKnobs(),
		Measure:    defaultMeasureKnobs(),
	}
}

// defaultCalendarKnobs returns the defaults of Knobs.Calendar (see DefaultKnobs for the sources).
func defaultCalendarKnobs() CalendarKnobs {
	return CalendarKnobs{
		StartBKJD:           Range{169.5, 170.0}, // Q2 began at BKJD 169.76
		MonthDays:           Range{30.4, 31.0},   // Q2–Q5 (BKJD 169.8–538.2, 368 d) held eleven downlinks and rolls
		RollGapDays:         Range{1.0, 2.5},     // Q2→Q3→Q4→Q5 roll gaps were 1.3–2.9 d
		DownlinkGapDays:     Range{1.0, 1.2},     // ≈ 1 d lost per downlink (Data Release Notes)
		EarthPointDays:      Range{0.2, 0.5},     // slew to and from Earth point is flagged (bit 8) for hours
		SafeModeRate:        0.6,                 // Kepler entered safe mode a few times in four years of early operations
		SafeModeDays:        Range{1.5, 4.0},     // safe modes cost days of data
		DesatIntervalDays:   Range{2.9, 3.1},     // desaturations every ≈ 3 d in the first years
		DesatTwoCadence:     0.3,                 // some desaturations touch two long cadences
		AttitudeTweakRate:   3,                   // a few attitude tweaks a year (bit 1)
		CoarsePointRate:     2,                   // occasional loss of fine point (bit 4)
		CoarsePointDays:     Range{0.05, 0.3},    // Kepler-90 Q3 file: 48 cadences (≈ 1 d) flagged 4 in a quarter, in short runs
		ModuleLossProb:      0.02,                // module 3 (1 of 21) failed in Q4; the roll moves a star onto it one quarter in four
		ModuleLossDays:      Range{20, 60},       // Kepler-90's Q4 file holds 21 of ≈ 90 days (SIMULATOR-NOTES)
		CosmicRate:          0.02,                // Kepler-90 Q3/Q5 files: 68–90 cadences of 4,400 flagged 128
		UnflaggedHitRate:    0.001,               // a few per cent of the flagged rate escape detection (a calibration knob)
		CollateralRate:      0.03,                // same files: 100–152 flagged 8192
		ZeroCrossingRate:    0.02,                // same files: 68–105 flagged 16
		AnomalyRate:         0.0025,              // same files: 9–13 flagged 16384
		ArgabrighteningRate: 0.001,               // same files: 5 cadences a quarter flagged 64 and 4096
		NoFinePointRate:     8,                   // same files: 33–77 cadences flagged 32768 per quarter, in short episodes
		NoFinePointDays:     Range{0.05, 0.3},    // with NoFinePointRate, ≈ 30–60 cadences a quarter as in those files
		OutlierRate:         0.0005,              // impulsive outliers (bit 2048)
		SPSDRate:            0.5,                 // Data Release Notes: hundreds per quarter over the field's ≈ 160 k targets, concentrated on some
		RollingBandProb:     0.3,                 // rolling band affects a minority of channels
		RollingBandEpisodes: Range{2, 8},         // Kepler-90 Q5: rolling band flagged in a few short stretches
		RollingBandDays:     Range{0.5, 3.0},     // rolling band follows the focal plane's thermal cycles: days
		RollingBandMaskOnly: 0.5,                 // Kepler-90 Q5: as many cadences flagged 262144 as 131072
	}
}

// defaultStarKnobs returns the defaults of Knobs.Star (see DefaultKnobs for the sources).
func defaultStarKnobs() StarKnobs {
	return StarKnobs{
		Kepmag:           Range{10, 16},   // SPEC A3: Kepler magnitude ≈ 10–16
		CDPPScatterScale: 1,               // the fit as it is (a calibration knob)
		CDPPScale:        1,               // the fit as it is (a calibration knob)
		MassMsun:         Range{0.3, 2.5}, // dwarfs to F stars and subgiants: the KOI hosts' bulk
		RadiusRsun:       Range{0.3, 6},   // drops the few giants whose transits no one-year search finds
		Catalogue:        defaultCatalogueKnobs(),
	}
}

// defaultCatalogueKnobs returns the defaults of Knobs.Star.Catalogue. Sources: Brown et al. 2011 (AJ 142,
// 112), the KIC: σ(log g) ≈ 0.4 dex, σ(Teff) ≈ 200 K; Huber et al. 2014 (ApJS 211, 2) and Mathur et al. 2017
// (ApJS 229, 30), the Q1–17 DR25 stellar properties built on it: median radius errors ≈ 25–40 % for dwarfs
// without spectroscopy; Berger et al. 2018 (ApJ 866, 99) and 2020 (AJ 159, 280), Gaia DR2 radii of Kepler
// targets: median radius error ≈ 8 %, masses ≈ 7 %, Teff ≈ 110–150 K. The real Kepler sets TransitBench used
// carry both kinds of entry; half and half is the stated choice.
func defaultCatalogueKnobs() CatalogueKnobs {
	return CatalogueKnobs{
		GaiaShare:     0.5,
		KICLoggDex:    0.3,   // the "≈ 0.3 dex", between DR25's ≈ 0.2 and the KIC's 0.4
		KICMassDex:    0.05,  // ≈ 12 %: masses of dwarfs follow Teff more closely than radii do
		KICTeffK:      200,   // Brown et al. 2011
		GaiaRadiusDex: 0.03,  // ≈ 7 %: Berger et al. 2018
		GaiaMassDex:   0.035, // ≈ 8 %: Berger et al. 2020
		GaiaTeffK:     150,   // Berger et al. 2020
	}
}

// defaultNoiseKnobs returns the defaults of Knobs.Noise (see DefaultKnobs for the sources).
func defaultNoiseKnobs() NoiseKnobs {
	return NoiseKnobs{
		RedFraction:      Range{0.1, 0.55},    // the dv light curves' residuals are red at 1–10 c/d (PSD slope ≈ −0.15); see the realism test
		RedTauDays:       Range{0.05, 0.4},    // granulation/flicker: hours
		SpotProb:         0.3,                 // McQuillan+2014: periods for ≈ a quarter of main-sequence targets
		SpotAmp:          Range{1e-4, 1e-2},   // McQuillan+2014: R_var ≈ 0.1–2 %, most below 1 %
		SpotPeriodDays:   Range{1, 50},        // SPEC A3
		SpotPeriodMedian: 15,                  // McQuillan+2014: periods of main-sequence stars peak at ≈ 10–30 d
		SpotPeriodDex:    0.3,                 // McQuillan+2014: most periods within 5–30 d
		SpotLifetimeRots: Range{1, 5},         // spots evolve over a few rotations
		PulsatorTeff:     6800,                // instability strip's red edge on the main sequence
		PulsatorProb:     0.5,                 // Uytterhoeven et al. 2011 found δ Sct/γ Dor pulsation in most Kepler A–F stars; half is conservative
		DeltaScutiProb:   0.5,                 // assumed equal shares (many real pulsators are hybrids)
		DeltaScutiDays:   Range{0.02, 0.25},   // δ Sct: 0.5–12 h
		GammaDorDays:     Range{0.3, 3.0},     // γ Dor: 0.3–3 d
		PulsationAmp:     Range{5e-5, 2e-3},   // mode amplitudes of tens of ppm to a few mmag
		PulsationModes:   Range{1, 5},         // a few dominant modes (real stars have many more, weaker)
		FlareTeff:        4200,                // flares on K/M dwarfs
		FlareRatePerDay:  Range{0.02, 0.3},    // assumed: active K/M dwarfs flare about daily to monthly
		FlareAmp:         Range{5e-4, 3e-2},   // assumed: long-cadence flare peaks of 0.05–3 %
		FlareDecayDays:   Range{0.01, 0.08},   // assumed: decays of 15 min to 2 h
		QuarterOffset:    1e-4,                // PDC normalises each quarter; what is left is ≈ 1e-4
		TrendAmp:         Range{2e-5, 5e-4},   // focus and velocity-aberration residuals: tens to hundreds of ppm a quarter
		RampAmp:          Range{3e-5, 6e-4},   // thermal settling after downlinks: tens to hundreds of ppm
		RampTauDays:      Range{0.2, 1.0},     // SIMULATOR-NOTES: exponential settling over hours to days
		RampScatter:      0.5,                 // downlinks differ in length and temperature swing
		SPSDDepth:        Range{3e-5, 3e-4},   // PDC corrects most SPSDs (Stumpe et al. 2012); residual steps of tens to hundreds of ppm remain
		SPSDRecovery:     Range{0.3, 0.9},     // partial recovery (SIMULATOR-NOTES)
		SPSDTauDays:      Range{0.1, 1.0},     // recovery over hours to a day
		OutlierSigma:     Range{4, 20},        // clear outliers, from barely to very significant
		NegativeOutliers: 0.05,                // few dips: a 20σ one-cadence dip on three epochs already makes an SNR ≈ 8 box
		RollingBandAmp:   Range{1e-5, 1.5e-4}, // low-amplitude ripples: tens of ppm
		RollingBandDays:  Range{0.1, 1.0},     // ripple periods of hours
	}
}

// defaultPlanetKnobs returns the defaults of Knobs.Planet (see DefaultKnobs for the sources).
func defaultPlanetKnobs() PlanetKnobs {
	return PlanetKnobs{
		MES:          Range{4, 20},    // SPEC A2
		PeriodDays:   Range{0.5, 120}, // SPEC A4
		MinTransits:  3,               // SPEC A4 (as Kepler's TPS)
		B:            Range{0, 0.9},   // SPEC A4
		MaxRpRs:      0.25,            // below the 0.3 an EB's "too_deep" giveaway uses
		Redraws:      20,              // enough that a redraw is needed for well under 1 % of stars
		MESTolerance: 0.01,            // SPEC A4 asks for 5 %; the solve meets 1 %
	}
}

// defaultEBKnobs returns the defaults of Knobs.EB (see DefaultKnobs for the sources).
func defaultEBKnobs() EBKnobs {
	return EBKnobs{
		PeriodDays:          Range{0.25, 120},  // the catalogue's span, cut at two eclipses in a year
		BackgroundProb:      0.1,               // the catalogue's depths already carry aperture blending; ≈ 125 of 150 EBs counted (SPEC A2: 114)
		BackgroundDepth:     Range{2e-4, 5e-3}, // planet-like depths: a super-Earth (200 ppm) to a warm Jupiter (0.5 %)
		CompanionDilution:   Range{0.8, 1.0},   // a little extra third light: catalogue depths are measured on Kepler apertures
		ShapeFlatness:       3,                 // s = 4 for a well-detached binary's flat-bottomed eclipse
		EllipsoidalPerMorph: 0.05,              // a morph-1 binary: ≈ 2.5 % ellipsoidal modulation, as W UMa light curves
		EllipsoidalMorph:    0.5,               // Matijevič et al. 2012: above 0.5 the stars are close enough to be distorted
		ReflectionShare:     0.2,               // reflection is weaker than ellipsoidal variation in close binaries
		SecondaryMES:        7.1,               // SPEC A4
		OddEvenSigma:        5,                 // SPEC A4
		OddEvenFoldRatio:    0.5,               // a box search folds eclipses of depths within a factor 2 together
		TooDeepRpRs:         0.3,               // SPEC A4
		EllipsoidalSNR:      10,                // SPEC A4
	}
}

// defaultFalseAlarmKnobs returns the defaults of Knobs.FalseAlarm (see DefaultKnobs for the sources).
func defaultFalseAlarmKnobs() FalseAlarmKnobs {
	return FalseAlarmKnobs{
		Kinds: []KindWeight{
			{KindDesatGlitch, 1},
			{KindSingleEvents, 1},
			{KindSpotDips, 1},
			{KindHarmonic, 1},
			{KindGapRamps, 1},
			{KindRollingBand, 1},
		},
		MES:          Range{5, 12}, // one year of Kepler's false-alarm TCEs at MES 10–24 over 17 quarters (MES/√4); sets the false rows of plain searches (starter F ≈ 29 per 100 stars in TransitBench)
		EventScatter: 0.3,
		MaxRescale:   1.5, // ramps at gap edges vanish in a 1-d biweight but not in a running median: plant, do not inflate

		DesatGlitchCadences:    Range{2, 5},      // a few cadences of pointing recovery after the wheels unload
		SingleEventPeriodDays:  Range{40, 110},   // long periods: three events among few epochs (≤ span/3)
		SingleEventDays:        Range{0.08, 0.4}, // SPSD residuals and spacecraft events last hours
		SpotDipPeriodDays:      Range{2, 15},     // active, fairly fast rotators
		SpotDipDays:            Range{0.15, 0.4}, // narrow enough to survive a 1–1.5-d detrending window
		SpotDipLifetimeRots:    Range{2, 6},      // spots evolve over a few rotations
		HarmonicPeriodDays:     Range{0.3, 2},    // short enough that detrending leaves the peaked minima
		GapRampTauDays:         Range{0.1, 0.3},  // thermal settling: hours
		RollingBandPeriodDays:  Range{1, 6},
		RollingBandDipDays:     Range{0.08, 0.25},
		RollingBandEpisodes:    Range{1, 3},
		RollingBandEpisodeDays: Range{30, 70},
	}
}

// defaultConfirmedKnobs returns the defaults of Knobs.Confirmed (see DefaultKnobs for the sources).
func defaultConfirmedKnobs() ConfirmedKnobs {
	return ConfirmedKnobs{
		Multiplicity: [3]float64{0.7, 0.2, 0.1}, // about a fifth of Kepler hosts are multis
		PeriodDays:   Range{0.5, 120},           // as injected planets
		MaxRpRs:      0.2,                       // Jupiters around small stars; no grazing binaries among planets
	}
}

// defaultMeasureKnobs returns the defaults of Knobs.Measure (see DefaultKnobs for the sources).
func defaultMeasureKnobs() MeasureKnobs {
	return MeasureKnobs{
		WindowDurations: 3,   // Hippke et al. 2019: a window of 3 × the longest duration keeps transits
		MinWindowDays:   1.0, // a day at least, to follow no more variability than a search would
	}
}
