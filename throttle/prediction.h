/*
 * prediction.h: how bad one run not yet measured may be, from N runs
 * that were.
 *
 * A calibration sweep measures each window in N runs (seeds, job ids,
 * placements) of one system.  The worst of them bounds the runs measured;
 * a new run is worse than all N with chance 1 / (N + 1) and by an amount
 * nothing bounds.  The one-sided prediction bound for ONE new run,
 *     mean + t(N - 1, q) * sd * sqrt(1 + 1 / N),
 * holds with confidence q when the runs are independent draws of one
 * normal distribution (the t quantile pays for estimating its mean and
 * spread from N runs; sqrt(1 + 1/N) for the new run's own scatter).  It
 * does not depend on how the sweep's windows are spaced, and it narrows
 * as N grows instead of creeping up with the maximum of more runs.
 * Pure functions: no state, no allocation.
 */
#ifndef TP_PREDICTION_H
#define TP_PREDICTION_H

/*
 * The @q quantile (0 < q < 1) of Student's t distribution with @df >= 1
 * degrees of freedom (by bisection on its distribution function, the
 * regularized incomplete beta function; absolute error below 1e-9).
 * Returns NAN for @df 0 or @q outside (0, 1).
 */
double tp_student_t_quantile(double q, unsigned df);

/*
 * The upper @q prediction bound for one new run of runs whose figure has
 * sample @mean and sample standard deviation @sd over @runs >= 2 runs
 * (the formula above).  NAN for fewer than 2 runs, a negative @sd or a
 * @q outside (0, 1).
 */
double tp_prediction_upper(double mean, double sd, unsigned runs, double q);

#endif /* TP_PREDICTION_H */
