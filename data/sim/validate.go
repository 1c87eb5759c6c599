package sim

import (
	"errors"
	"fmt"
	"reflect"

	"transitbench/engine/stat"
)

// ErrKnobs is returned for knobs that cannot be simulated with (see Knobs.Validate).
var ErrKnobs = errors.New("sim: invalid knobs")

// Validate checks the knobs: every Range has finite bounds with Lo ≤ Hi, every number is finite and not
// negative, every probability or share (the fields named *Prob, *Share, NegativeOutliers, DesatTwoCadence,
// RollingBandMaskOnly) is at most 1, and the false-alarm kinds are known with a positive total weight.
// Generate calls it; calibration code can call it before a run.
func (k *Knobs) Validate() error {
	if err := validateStruct(reflect.ValueOf(*k), "Knobs"); err != nil {
		return err
	}
	total := 0.0
	for _, kw := range k.FalseAlarm.Kinds {
		switch kw.Kind {
		case KindDesatGlitch, KindSingleEvents, KindSpotDips, KindHarmonic, KindGapRamps, KindRollingBand:
		default:
			return fmt.Errorf("%w: FalseAlarm.Kinds holds unknown kind %q", ErrKnobs, kw.Kind)
		}
		total += kw.Weight
	}
	if len(k.FalseAlarm.Kinds) > 0 && !(total > 0) {
		return fmt.Errorf("%w: FalseAlarm.Kinds weights sum to %v; give at least one kind a positive weight", ErrKnobs, total)
	}
	if k.Planet.MinTransits < 1 {
		return fmt.Errorf("%w: Planet.MinTransits is %d; a planet needs at least one transit", ErrKnobs, k.Planet.MinTransits)
	}
	return nil
}

// shareFields are the knobs that are probabilities or shares, in [0, 1].
var shareFields = map[string]bool{
	"DesatTwoCadence": true, "ModuleLossProb": true, "RollingBandProb": true,
	"RollingBandMaskOnly": true, "SpotProb": true, "PulsatorProb": true, "DeltaScutiProb": true,
	"NegativeOutliers": true, "BackgroundProb": true, "ReflectionShare": true, "CosmicRate": true,
	"UnflaggedHitRate": true, "CollateralRate": true, "ZeroCrossingRate": true, "AnomalyRate": true,
	"ArgabrighteningRate": true, "GaiaShare": true, "OutlierRate": true, "EventScatter": true, "RampScatter": true,
}

func validateStruct(v reflect.Value, path string) error {
	for i := range v.NumField() {
		f, name := v.Field(i), v.Type().Field(i).Name
		p := path + "." + name
		switch x := f.Interface().(type) {
		case Range:
			if !stat.Finite(x.Lo) || !stat.Finite(x.Hi) || x.Lo > x.Hi || x.Lo < 0 {
				return fmt.Errorf("%w: %s is [%v, %v]; want finite bounds with 0 ≤ Lo ≤ Hi", ErrKnobs, p, x.Lo, x.Hi)
			}
		case float64:
			if !stat.Finite(x) || x < 0 {
				return fmt.Errorf("%w: %s is %v; want a finite number ≥ 0", ErrKnobs, p, x)
			}
			if shareFields[name] && x > 1 {
				return fmt.Errorf("%w: %s is %v; it is a probability or share, at most 1", ErrKnobs, p, x)
			}
		case [3]float64:
			for _, w := range x {
				if !stat.Finite(w) || w < 0 {
					return fmt.Errorf("%w: %s holds %v; want weights ≥ 0", ErrKnobs, p, w)
				}
			}
		default:
			if f.Kind() == reflect.Struct {
				if err := validateStruct(f, p); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
