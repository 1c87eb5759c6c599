package rvgate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"transitbench/engine/rv"
)

// SubmittedPlanet is one planet as a contestant submits it. Exactly one of KMS and MSinIMJup gives the
// amplitude; exactly one of LRad, M0Rad and TPeriDays gives the phase. OmegaNodeRad is accepted for
// compatibility with the original format and enters only through l (M0 = l − Ω − ω); after the load-time
// conversion the truth has Ω = 0.
type SubmittedPlanet struct {
	PDays        float64  `json:"P_days"`
	KMS          *float64 `json:"K_ms,omitempty"`
	MSinIMJup    *float64 `json:"m_sin_i_mjup,omitempty"`
	E            float64  `json:"e"`
	OmegaRad     float64  `json:"omega_rad"`
	OmegaNodeRad float64  `json:"Omega_rad,omitempty"`
	LRad         *float64 `json:"l_rad,omitempty"`
	M0Rad        *float64 `json:"M0_rad,omitempty"`
	TPeriDays    *float64 `json:"t_peri_days,omitempty"`
}

// Submission is a planetary configuration and an optional jitter (m/s).
type Submission struct {
	Planets  []SubmittedPlanet `json:"planets"`
	JitterMS float64           `json:"jitter_ms,omitempty"`
	// Instruments, when present, is what a fit found per instrument. It is information for the reader and is
	// not graded: the gate fits its own offsets and takes the one jitter_ms.
	Instruments []InstrumentFit `json:"instruments,omitempty"`
}

// InstrumentFit is one instrument's offset and jitter (m/s) in a fit with per-instrument terms, and its
// number of points.
type InstrumentFit struct {
	Name     string  `json:"name"`
	Points   int     `json:"points"`
	OffsetMS float64 `json:"offset_ms"`
	JitterMS float64 `json:"jitter_ms"`
}

// ErrBadSubmission wraps every problem with a submission's content.
var ErrBadSubmission = errors.New("rv: bad submission")

// ParseSubmission reads a submission: either a JSON list of planets or an object {"planets": [...],
// "jitter_ms": s}. Unknown fields are refused, so a misspelt key is not silently ignored.
func ParseSubmission(b []byte) (*Submission, error) {
	trim := bytes.TrimSpace(b)
	if len(trim) == 0 {
		return nil, fmt.Errorf("%w: empty input; give a JSON list of planets or {\"planets\": [...]}", ErrBadSubmission)
	}
	var s Submission
	dec := json.NewDecoder(bytes.NewReader(trim))
	dec.DisallowUnknownFields()
	var err error
	if trim[0] == '[' {
		err = dec.Decode(&s.Planets)
	} else {
		err = dec.Decode(&s)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v (fields: P_days, K_ms or m_sin_i_mjup, e, omega_rad, l_rad or M0_rad or t_peri_days; optional jitter_ms, and instruments, which is not graded)", ErrBadSubmission, err)
	}
	return &s, nil
}

// Bounds of a submission, each far beyond any planet yet far below what overflows the gate's sums of squares
// (K² · N stays below 10¹⁸ for a million points):
//   - MaxKMS = 10⁶ m/s for K and jitter_ms (Jupiter moves the Sun by 12.5 m/s; a hot Jupiter on an M dwarf by
//     < 1 km/s; a stellar companion reaches ≈ 100 km/s);
//   - MaxPeriodDays = 10⁶ d (2,700 yr) for P;
//   - MaxPlanets = 100 planets;
//   - MaxAngleRad = 10⁴ rad for |ω|, |Ω|, |l|, |M0| (angles are taken mod 2π; larger values are mistakes);
//   - MaxTimeOffsetDays = 10⁷ d for |t_peri − t_ref|.
const (
	MaxTimeOffsetDays = 1e7
	MaxKMS            = 1e6
	MaxPeriodDays     = 1e6
	MaxPlanets        = 100
	MaxAngleRad       = 1e4
)

// Resolve turns the submission into forward-model planets for a star of mStarSun with reference time tRef:
// K from m sin i by rv.SemiAmplitude, M0 = l − Ω − ω, or M0 = 2π (t_ref − t_peri)/P. Eccentricities must lie
// in [0, 1): the original clipped submissions at 0.8 while its truths reach 0.9, so this accepts any e < 1.
// Every number must be finite and within the bounds above; a problem gives an error wrapping ErrBadSubmission
// that names the planet, the field and the value.
func (s *Submission) Resolve(mStarSun, tRef float64) ([]rv.Planet, error) {
	if !(s.JitterMS >= 0 && s.JitterMS <= MaxKMS) {
		return nil, fmt.Errorf("%w: jitter_ms = %g must lie in [0, %g] m/s", ErrBadSubmission, s.JitterMS, float64(MaxKMS))
	}
	if len(s.Planets) > MaxPlanets {
		return nil, fmt.Errorf("%w: %d planets, more than %d", ErrBadSubmission, len(s.Planets), MaxPlanets)
	}
	out := make([]rv.Planet, len(s.Planets))
	for i, p := range s.Planets {
		bad := func(format string, a ...any) error {
			return fmt.Errorf("%w: planet %d: %s", ErrBadSubmission, i+1, fmt.Sprintf(format, a...))
		}
		if !(p.PDays > 0 && p.PDays <= MaxPeriodDays) {
			return nil, bad("P_days = %g must lie in (0, %g] days", p.PDays, float64(MaxPeriodDays))
		}
		if !(p.E >= 0 && p.E < 1) {
			return nil, bad("e = %g must lie in [0, 1)", p.E)
		}
		if !(math.Abs(p.OmegaRad) <= MaxAngleRad) {
			return nil, bad("omega_rad = %g must be an angle within ±%g rad", p.OmegaRad, float64(MaxAngleRad))
		}
		if !(math.Abs(p.OmegaNodeRad) <= MaxAngleRad) {
			return nil, bad("Omega_rad = %g must be an angle within ±%g rad", p.OmegaNodeRad, float64(MaxAngleRad))
		}
		var k float64
		switch {
		case p.KMS != nil && p.MSinIMJup != nil:
			return nil, bad("give K_ms or m_sin_i_mjup, not both")
		case p.KMS != nil:
			k = *p.KMS
			if !(k > 0 && k <= MaxKMS) {
				return nil, bad("K_ms = %g must lie in (0, %g] m/s", k, float64(MaxKMS))
			}
		case p.MSinIMJup != nil:
			k = rv.SemiAmplitude(*p.MSinIMJup, p.PDays, p.E, mStarSun)
			if !(k > 0 && k <= MaxKMS) {
				return nil, bad("m_sin_i_mjup = %g gives K = %g m/s, outside (0, %g] m/s", *p.MSinIMJup, k, float64(MaxKMS))
			}
		default:
			return nil, bad("missing amplitude: give K_ms (m/s) or m_sin_i_mjup (Jupiter masses)")
		}
		var m0 float64
		n := 0
		if p.LRad != nil {
			n++
			if !(math.Abs(*p.LRad) <= MaxAngleRad) {
				return nil, bad("l_rad = %g must be an angle within ±%g rad", *p.LRad, float64(MaxAngleRad))
			}
			m0 = rv.M0FromLongitude(*p.LRad, p.OmegaNodeRad, p.OmegaRad)
		}
		if p.M0Rad != nil {
			n++
			if !(math.Abs(*p.M0Rad) <= MaxAngleRad) {
				return nil, bad("M0_rad = %g must be an angle within ±%g rad", *p.M0Rad, float64(MaxAngleRad))
			}
			m0 = *p.M0Rad
		}
		if p.TPeriDays != nil {
			n++
			if !(math.Abs(*p.TPeriDays-tRef) <= MaxTimeOffsetDays) {
				return nil, bad("t_peri_days = %g must lie within %g d of t_ref = %g", *p.TPeriDays, float64(MaxTimeOffsetDays), tRef)
			}
			m0 = rv.M0FromPeriastron(*p.TPeriDays, p.PDays, tRef)
		}
		if n != 1 {
			return nil, bad("give exactly one phase: l_rad, M0_rad or t_peri_days")
		}
		if !finite(m0) {
			return nil, bad("the phase is not finite")
		}
		out[i] = rv.Planet{PeriodDays: p.PDays, KMS: k, E: p.E, OmegaRad: p.OmegaRad, M0Rad: m0}
	}
	return out, nil
}

// FromPlanets writes forward-model planets as a submission (K_ms, M0_rad).
func FromPlanets(planets []rv.Planet, jitterMS float64) *Submission {
	s := &Submission{JitterMS: jitterMS, Planets: make([]SubmittedPlanet, len(planets))}
	for i, p := range planets {
		k, m0 := p.KMS, p.M0Rad
		s.Planets[i] = SubmittedPlanet{PDays: p.PeriodDays, KMS: &k, E: p.E, OmegaRad: p.OmegaRad, M0Rad: &m0}
	}
	return s
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
