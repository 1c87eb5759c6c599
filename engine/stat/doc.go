// Package stat holds the robust statistics the engine shares: the median (by selection, or read off a sorted
// slice), the median absolute deviation and its conversion to a normal standard deviation, and the finiteness
// test. Every median here is the mean of the two middle values for an even length, so it does not match
// gonum's stat.Quantile (which returns an order statistic and needs sorted input); the functions on unsorted
// input reorder it instead of copying, so hot paths can pass a work buffer.
package stat
