/*
 * prediction.c: Student's t quantile and the prediction bound of one new
 * run (see prediction.h).
 *
 * The quantile is found by bisection on the distribution function rather
 * than by a closed-form approximation: the degrees of freedom here are
 * small (a sweep of 2-30 runs), where the usual expansions are least
 * accurate, and a few hundred evaluations cost nothing beside a sweep.
 * The incomplete beta function is the continued fraction of Numerical
 * Recipes (Lentz's method), which converges quickly on the side of the
 * symmetry relation it is evaluated on.
 */
#include "tp_config.h"

#include <math.h>

#include "prediction.h"

#define CF_MAX_TERMS 300
#define CF_EPSILON   1e-15
#define CF_TINY      1e-300

/* The continued fraction of the incomplete beta function I_x(a, b). */
static double beta_fraction(double a, double b, double x)
{
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < CF_TINY ? CF_TINY : d);
	h = d;
	for (int m = 1; m <= CF_MAX_TERMS; m++) {
		double even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		double odd = -(a + m) * (a + b + m) * x /
		             ((a + 2 * m) * (a + 2 * m + 1));
		double step;

		d = 1 + even * d;
		d = 1 / (fabs(d) < CF_TINY ? CF_TINY : d);
		c = 1 + even / c;
		c = fabs(c) < CF_TINY ? CF_TINY : c;
		h *= d * c;
		d = 1 + odd * d;
		d = 1 / (fabs(d) < CF_TINY ? CF_TINY : d);
		c = 1 + odd / c;
		c = fabs(c) < CF_TINY ? CF_TINY : c;
		step = d * c;
		h *= step;
		if (fabs(step - 1) < CF_EPSILON)
			break;
	}
	return h;
}

/* ln Gamma(@x), x > 0.  lgamma_r: lgamma sets the global signgam, and
 * this runs in multithreaded daemons (slurmstepd). */
static double log_gamma(double x)
{
	int sign;

	return lgamma_r(x, &sign);
}

/* The regularized incomplete beta function I_x(a, b), 0 <= x <= 1. */
static double incomplete_beta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(log_gamma(a + b) - log_gamma(a) - log_gamma(b) +
	            a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_fraction(a, b, x) / a;
	return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

/* P(T <= t) for Student's t with @df degrees of freedom. */
static double student_t_cdf(double t, double df)
{
	double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));

	return t > 0 ? 1 - tail : tail;
}

double tp_student_t_quantile(double q, unsigned df)
{
	double lo = 0, hi = 1;

	if (df == 0 || !(q > 0 && q < 1))
		return NAN;
	if (q < 0.5)
		return -tp_student_t_quantile(1 - q, df);
	/* Bracket, then halve: the cdf is increasing in t. */
	while (student_t_cdf(hi, df) < q && hi < 1e12)
		hi *= 2;
	while (hi - lo > 1e-10 * (1 + hi)) {
		double mid = (lo + hi) / 2;

		if (student_t_cdf(mid, df) < q)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double tp_prediction_upper(double mean, double sd, unsigned runs, double q)
{
	if (runs < 2 || !(sd >= 0))
		return NAN;
	return mean + tp_student_t_quantile(q, runs - 1) * sd *
	                  sqrt(1 + 1.0 / runs);
}
