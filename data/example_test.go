package data_test

import (
	"fmt"
	"os"
	"path/filepath"

	"transitbench/data"
	"transitbench/engine/lc"
)

// Stitch three Kepler quarters, drop flagged cadences with the default mask and write a star directory.
func ExampleReadKeplerFITS() {
	dir := "../../shared/data/kepler/fits/kic011442793"
	c, err := data.ReadKeplerFITS(
		filepath.Join(dir, "kplr011442793-2009350155506_llc.fits"),
		filepath.Join(dir, "kplr011442793-2010009091648_llc.fits"),
		filepath.Join(dir, "kplr011442793-2010174085026_llc.fits"),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	// 9787 = 4228 + 1021 + 4538 rows with a finite time; 9628 = 4134 + 1008 + 4486 valid, as astropy counts them.
	clean := c.Clean(lc.DefaultQualityMask)
	first, last := clean.Span()
	fmt.Printf("%d cadences, %d valid, BKJD %.4f to %.4f\n", c.Len(), clean.Len(), first, last)

	out, _ := os.MkdirTemp("", "star")
	defer os.RemoveAll(out)
	star := &data.Star{ID: "kic011442793", Kepmag: 13.804, Teff: 5970, Logg: 4.317, RadiusRsun: 1.2,
		CadenceDays: lc.CadenceDays, TimeSystem: "BKJD"}
	if err := data.WriteStarDir(out, clean, star); err != nil {
		fmt.Println(err)
		return
	}
	back, s, _ := data.ReadStarDir(out)
	fmt.Println(back.Len(), s.ID)
	// Output:
	// 9787 cadences, 9628 valid, BKJD 260.2446 to 538.1624
	// 9628 kic011442793
}
