package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/engine/lc"
)

// lightCurveArgs is the argument check of a command taking a light curve as arguments (bls, fold): at least one.
func lightCurveArgs(command string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usageErrorf("%s needs a light-curve FILE (or several Kepler FITS files of one star, or a folder of them)", command)
		}
		return nil
	}
}

// readInputs reads the light curve that bls, fold and vet take: one file or star directory (data.ReadLightCurve),
// several Kepler FITS files of one star, or a folder of Kepler FITS quarters (a directory that is not a star
// directory and holds *.fits files), the quarters stitched by data.ReadKeplerFITS. It returns the curve and the
// name it is reported under (the files joined by spaces, or the folder).
func readInputs(files []string) (*lc.LightCurve, string, error) {
	if len(files) == 0 {
		return nil, "", usageErrorf("give a light-curve FILE, several Kepler FITS files of one star or a folder of quarters")
	}
	if err := checkInputs(files...); err != nil {
		return nil, "", err
	}
	name := strings.Join(files, " ")
	paths := files
	if len(files) == 1 {
		quarters, err := fitsQuarters(files[0])
		if err != nil {
			return nil, name, err
		}
		if quarters == nil {
			c, err := data.ReadLightCurve(files[0])
			if err != nil {
				return nil, name, withCode(codeBadInput, err)
			}
			return c, name, nil
		}
		paths = quarters
	}
	c, err := data.ReadKeplerFITS(paths...)
	if err != nil {
		return nil, name, withCode(codeBadInput, err)
	}
	return c, name, nil
}

// fitsQuarters returns the *.fits files of dir, sorted, when dir is a directory without a star's files
// (star.json, lightcurve.csv) and with FITS files; nil otherwise.
func fitsQuarters(dir string) ([]string, error) {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return nil, nil
	}
	for _, f := range []string{data.StarFile, data.LightCurveFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return nil, nil
		}
	}
	var out []string
	for _, pat := range []string{"*.fits", "*.fits.gz"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return nil, err
		}
		out = append(out, m...)
	}
	if len(out) == 0 {
		return nil, nil // not quarters: the star-directory reader says what is missing
	}
	slices.Sort(out)
	return out, nil
}
