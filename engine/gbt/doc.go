// Package gbt is gradient-boosted regression trees for binary classification: logistic loss, depth-limited
// trees grown on the loss's gradient and Hessian (second-order boosting), shrinkage, seeded row subsampling,
// prediction, and a JSON form for models embedded in a program. It has no dependencies and does no I/O.
package gbt
