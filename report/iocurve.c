/*
 * iocurve.c: latency against request interval, threshold and window marked.
 */
#include "tp_config.h"

#include "iocurve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canvas.h"
#include "chart.h"
#include "units.h"

tp_status tp_iocurve_select(const tp_sweep_point *points, size_t n,
                            uint64_t request_bytes, uint32_t clients,
                            size_t *first, size_t *count, tp_error *err)
{
	char groups[200] = "";
	size_t len = 0, i = 0;

	if (n == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "the sweep has no measured point");
	if (request_bytes == 0) {
		request_bytes = points[0].request_bytes;
		clients = points[0].clients;
	}
	while (i < n) {
		size_t j = i;

		while (j < n &&
		       points[j].request_bytes == points[i].request_bytes &&
		       points[j].clients == points[i].clients)
			j++;
		if (points[i].request_bytes == request_bytes &&
		    points[i].clients == clients) {
			*first = i;
			*count = j - i;
			return TP_OK;
		}
		if (len < sizeof(groups) - 40)
			len += (size_t)snprintf(
			    groups + len, sizeof(groups) - len, "%s%llu/%u",
			    len ? ", " : "",
			    (unsigned long long)points[i].request_bytes,
			    points[i].clients);
		i = j;
	}
	return tp_error_set(err, TP_ERR_NOTFOUND,
	                    "no points of %llu-byte requests from %u clients "
	                    "in the sweep (bytes/clients measured: %s)",
	                    (unsigned long long)request_bytes, clients, groups);
}

bool tp_iocurve_log_axis(double lo, double hi)
{
	return lo > 0 && hi / lo >= 10;
}

struct axis {
	double lo, hi; /* data range shown */
	double p0, p1; /* pixels of lo and hi */
	bool log;
	bool ratio; /* values are ratios ("1.5x"), not times */
};

static double axis_px(const struct axis *a, double v)
{
	double t =
	    a->log ? (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo))
	           : (v - a->lo) / (a->hi - a->lo);

	return a->p0 + t * (a->p1 - a->p0);
}

/* Pad the range and pick log or linear. */
static void axis_fit(struct axis *a, double lo, double hi, bool allow_log)
{
	a->log = allow_log && tp_iocurve_log_axis(lo, hi);
	if (a->log) {
		/* A margin, so points on the extremes (the plateau) stay
		 * off the axis lines. */
		a->lo = lo / 1.6;
		a->hi = hi * 1.6;
	} else {
		double step = tp_canvas_nice_step(hi - fmin(lo, 0), 6);

		a->lo = 0;
		a->hi = ceil(hi * 1.05 / step) * step;
		if (a->hi <= a->lo)
			a->hi = a->lo + 1;
	}
}

static void format_us(double us, char *buf, size_t size)
{
	tp_units_format_us(us, buf, size);
}

static const tp_rgb ink = {0, 0, 0};
static const tp_rgb grid = {0.87, 0.87, 0.87};

/*
 * The two curves differ in colour, line and point shape, so they stay apart
 * in grey print and for colour-blind readers: the median solid and heavy
 * with round points, the 95th percentile dashed and light with square ones.
 */
#define MEDIAN_WIDTH 2.2
#define P95_WIDTH    1.4
#define P95_DASH     4.0

/* The window line is wider than the dashed threshold drawn over it, so
 * when the two coincide both stay visible: dashes on a band. */
#define WINDOW_WIDTH    3.0
#define THRESHOLD_WIDTH 1.5

/* A curve's point at (@x, @y): a disc for the median, a square for p95. */
static void draw_point(cairo_t *cr, double x, double y, bool median)
{
	cairo_new_path(cr);
	if (median)
		cairo_arc(cr, x, y, 3.5, 0, 2 * M_PI);
	else
		cairo_rectangle(cr, x - 2.75, y - 2.75, 5.5, 5.5);
	cairo_fill(cr);
}

/* Point @i of a chart's curve @primary (true: the solid one): false when
 * the point has nothing to draw there. */
typedef bool (*curve_point_fn)(const void *chart, size_t i, bool primary,
                               double *x, double *y);

/* A chart's two curves over its @n points: lines through the points, then
 * the points; the primary curve (colour @cols[0]) first, heavy and solid
 * with discs, the other (@cols[1]) on top, light and dashed with squares,
 * so both stay readable where they coincide. */
static void draw_curves(tp_canvas *cv, const struct axis *xa,
                        const struct axis *ya, size_t n, curve_point_fn at,
                        const void *chart, const tp_rgb cols[2])
{
	cairo_t *cr = tp_canvas_cairo(cv);
	double x, y;

	for (int pass = 1; pass >= 0; pass--) {
		int started = 0;

		cairo_new_path(cr);
		for (size_t i = 0; i < n; i++) {
			if (!at(chart, i, pass, &x, &y))
				continue;
			if (started++)
				cairo_line_to(cr, axis_px(xa, x),
				              axis_px(ya, y));
			else
				cairo_move_to(cr, axis_px(xa, x),
				              axis_px(ya, y));
		}
		tp_canvas_set_rgb(cv, cols[!pass]);
		cairo_save(cr);
		cairo_set_line_width(cr, pass ? MEDIAN_WIDTH : P95_WIDTH);
		if (!pass) {
			const double dash = P95_DASH;

			cairo_set_dash(cr, &dash, 1, 0);
		}
		cairo_stroke(cr);
		cairo_restore(cr);
		for (size_t i = 0; i < n; i++)
			if (at(chart, i, pass, &x, &y))
				draw_point(cr, axis_px(xa, x), axis_px(ya, y),
				           pass);
	}
}

/* The legend of draw_curves' two curves, from (@x, @top): each curve's
 * line and point, then its name. */
static void draw_legend(tp_canvas *cv, double x, double top,
                        const char *const names[2], const tp_rgb cols[2])
{
	for (int i = 0; i < 2; i++) {
		double y = top + 14 + 16 * i;

		tp_canvas_line(cv, x, y - 4, x + 22, y - 4,
		               i ? P95_WIDTH : MEDIAN_WIDTH, cols[i],
		               i ? P95_DASH : 0);
		tp_canvas_set_rgb(cv, cols[i]);
		draw_point(tp_canvas_cairo(cv), x + 11, y - 4, i == 0);
		tp_canvas_set_rgb(cv, ink);
		tp_canvas_text(cv, x + 28, y, 10, TP_ALIGN_LEFT, 0, names[i]);
	}
}

/* The latency chart's points: median (primary) and p95 against the
 * interval; back-to-back points and, on a log axis, zeros are not drawn. */
struct latency_chart {
	const tp_iocurve *c;
	bool log;
};

static bool latency_point(const void *chart, size_t i, bool primary, double *x,
                          double *y)
{
	const struct latency_chart *lc = chart;
	const tp_sweep_point *p = &lc->c->points[i];

	*x = p->interval_us;
	*y = primary ? p->median_us : p->p95_us;
	return p->interval_us > 0 && !(lc->log && *y <= 0);
}

static void tick_label(const struct axis *a, double v, char *buf, size_t size)
{
	if (a->ratio)
		snprintf(buf, size, "%gx", v);
	else
		format_us(v, buf, size);
}

static void draw_ticks(tp_canvas *cv, const struct axis *a, bool vertical,
                       double other0, double other1)
{
	char num[32];

	if (a->log) {
		/* Grid at 1, 2, 5 x 10^k; labels at 10^k, and at 2 and 5 as
		 * well when the axis spans at most two decades. */
		bool minor_labels = a->hi / a->lo <= 100;

		for (int d = (int)floor(log10(a->lo));
		     d <= (int)ceil(log10(a->hi)); d++)
			for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) {
				double v = m * pow(10, d), p;

				if (v < a->lo || v > a->hi)
					continue;
				p = axis_px(a, v);
				tick_label(a, v, num, sizeof(num));
				if (vertical)
					tp_canvas_line(cv, other0, p, other1, p,
					               0.6, grid, 0);
				else
					tp_canvas_line(cv, p, other0, p, other1,
					               0.6, grid, 0);
				if (m != 1 && !minor_labels)
					continue;
				tp_canvas_set_rgb(cv, ink);
				if (vertical)
					tp_canvas_text(cv, other0 - 5, p + 3.5,
					               10, TP_ALIGN_RIGHT, 0,
					               num);
				else
					tp_canvas_text(cv, p, other0 + 15, 10,
					               TP_ALIGN_CENTER, 0, num);
			}
		return;
	}
	{
		double step = tp_canvas_nice_step(a->hi - a->lo, 6);

		for (double v = a->lo; v <= a->hi + step * 1e-9; v += step) {
			double p = axis_px(a, v);

			tick_label(a, v, num, sizeof(num));
			if (v == 0)
				snprintf(num, sizeof(num), "0");
			if (vertical) {
				tp_canvas_line(cv, other0, p, other1, p, 0.6,
				               grid, 0);
				tp_canvas_set_rgb(cv, ink);
				tp_canvas_text(cv, other0 - 5, p + 3.5, 10,
				               TP_ALIGN_RIGHT, 0, num);
			} else {
				tp_canvas_line(cv, p, other0, p, other1, 0.6,
				               grid, 0);
				tp_canvas_set_rgb(cv, ink);
				tp_canvas_text(cv, p, other0 + 15, 10,
				               TP_ALIGN_CENTER, 0, num);
			}
		}
	}
}

void tp_iocurve_words(const tp_iocurve *c, bool x_log, tp_iocurve_text *t)
{
	char a[32], b[32], why[256];
	size_t zero = 0;

	for (size_t i = 0; i < c->count; i++)
		zero += c->points[i].interval_us <= 0;
	tp_canvas_format_bytes(
	    c->count ? (double)c->points[0].request_bytes : 0, a, sizeof(a));
	snprintf(t->title, sizeof(t->title),
	         "%s: I/O latency against request interval, %s requests, %u "
	         "clients",
	         c->name ? c->name : "sweep", a,
	         c->count ? c->points[0].clients : 0);
	if (c->have_threshold) {
		format_us(c->threshold.threshold_us, a, sizeof(a));
		format_us(c->threshold.plateau_us, b, sizeof(b));
		snprintf(t->subtitle, sizeof(t->subtitle),
		         "congestion threshold %s (intervals below it "
		         "congest), plateau %s, confidence %.2f",
		         a, b, c->threshold.confidence);
	} else {
		const char *reason = c->no_threshold_why
		                         ? c->no_threshold_why
		                         : "no congestion detected";

		/* The detector's message often says "no knee" itself. */
		snprintf(t->subtitle, sizeof(t->subtitle), "%s%s",
		         strstr(reason, "no knee") ? "" : "no knee: ", reason);
	}
	/* The window's reason words its times with tp_units_format_us, as
	 * the chart does. */
	snprintf(why, sizeof(why), "%s", c->window_why ? c->window_why : "");
	if (c->window_us > 0) {
		format_us(c->window_us, a, sizeof(a));
		snprintf(t->note, sizeof(t->note), "throttle window %s%s%s", a,
		         why[0] ? ": " : "", why);
	} else {
		snprintf(t->note, sizeof(t->note), "no throttle window%s%s",
		         why[0] ? ": " : "", why);
	}
	if (zero > 0)
		snprintf(t->x_label, sizeof(t->x_label),
		         "mean interval between a client's request starts%s; "
		         "%zu back-to-back point%s (interval 0) not shown",
		         x_log ? " (log)" : "", zero, zero == 1 ? "" : "s");
	else
		snprintf(t->x_label, sizeof(t->x_label),
		         "mean interval between a client's request starts%s",
		         x_log ? " (log)" : "");
}

tp_status tp_iocurve_draw(const char *path, uint32_t width, uint32_t height,
                          const tp_iocurve *c, tp_error *err)
{
	double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
	double left = 78, right = width - 24.0, top = 92,
	       bottom = height - 52.0;
	struct axis xa, ya;
	size_t shown = 0, zero = 0;
	char label[300];
	tp_iocurve_text words;
	tp_rgb median = tp_canvas_category(4), p95 = tp_canvas_category(6);
	tp_rgb thr = tp_canvas_category(5), win = tp_canvas_category(2);
	bool same_place = false;
	tp_canvas *cv;
	tp_status rc;

	if (c->count == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: I/O curve: no measured point", path);
	if ((rc = tp_chart_check_size(path, width, height, err)) != TP_OK)
		return rc;
	for (size_t i = 0; i < c->count; i++) {
		const tp_sweep_point *p = &c->points[i];

		if (p->interval_us <= 0) {
			zero++;
			continue;
		}
		xlo = fmin(xlo, p->interval_us);
		xhi = fmax(xhi, p->interval_us);
		ylo = fmin(ylo, fmin(p->median_us, p->p95_us));
		yhi = fmax(yhi, fmax(p->median_us, p->p95_us));
		shown++;
	}
	if (shown == 0)
		return tp_error_set(
		    err, TP_ERR_INVALID,
		    "%s: I/O curve: every point is back to back "
		    "(interval 0): nothing to draw against the "
		    "interval",
		    path);
	if (c->have_threshold) {
		xlo = fmin(xlo, c->threshold.threshold_us);
		xhi = fmax(xhi, c->threshold.threshold_us);
	}
	if (c->window_us > 0) {
		xlo = fmin(xlo, c->window_us);
		xhi = fmax(xhi, c->window_us);
	}
	if (!(ylo > 0))
		ylo = fmin(yhi, 1);
	axis_fit(&xa, xlo, xhi, true);
	axis_fit(&ya, ylo, yhi, ylo > 0);
	xa.ratio = ya.ratio = false;
	/* Bigger intervals to the right; latency up. */
	xa.p0 = left, xa.p1 = right;
	ya.p0 = bottom, ya.p1 = top;

	rc = tp_canvas_open(path, width, height, &cv, err);
	if (rc != TP_OK)
		return rc;
	tp_iocurve_words(c, xa.log, &words);
	tp_chart_heading(cv, words.title, words.subtitle, words.note);

	draw_ticks(cv, &xa, false, bottom, top);
	draw_ticks(cv, &ya, true, left, right);
	tp_canvas_line(cv, left, bottom, right, bottom, 1, ink, 0);
	tp_canvas_line(cv, left, top, left, bottom, 1, ink, 0);

	/* Markers first, so the curve stays on top of them: the window,
	 * then the threshold over it (a window chosen at the threshold is
	 * common: the label then says so, as the lines coincide). */
	if (c->have_threshold && c->window_us > 0)
		same_place = fabs(axis_px(&xa, c->window_us) -
		                  axis_px(&xa, c->threshold.threshold_us)) < 6;
	if (c->window_us > 0) {
		double x = axis_px(&xa, c->window_us);

		tp_canvas_line(cv, x, top, x, bottom, WINDOW_WIDTH, win, 0);
		tp_canvas_set_rgb(cv, win);
		tp_canvas_text(cv, x + 4, top + 26, 10, TP_ALIGN_LEFT, 0,
		               same_place ? "window = threshold" : "window");
	}
	if (c->have_threshold) {
		double x = axis_px(&xa, c->threshold.threshold_us);
		double y = axis_px(&ya, c->threshold.plateau_us);

		tp_canvas_line(cv, x, top, x, bottom, THRESHOLD_WIDTH, thr, 5);
		if (c->threshold.plateau_us >= ya.lo &&
		    c->threshold.plateau_us <= ya.hi)
			tp_canvas_line(cv, left, y, right, y, 0.8, thr, 2);
		tp_canvas_set_rgb(cv, thr);
		tp_canvas_text(cv, x + 4, top + 12, 10, TP_ALIGN_LEFT, 0,
		               "threshold");
	}
	{
		static const char *const names[] = {"median latency",
		                                    "95th percentile"};
		const struct latency_chart lc = {c, ya.log};
		const tp_rgb cols[] = {median, p95};

		draw_curves(cv, &xa, &ya, c->count, latency_point, &lc, cols);
		/* Top right inside the plot. */
		draw_legend(cv, right - 150, top, names, cols);
	}
	tp_canvas_set_rgb(cv, ink);
	tp_canvas_text_fit(cv, (left + right) / 2, height - 12, 11,
	                   right - left, TP_ALIGN_CENTER, words.x_label);
	snprintf(label, sizeof(label), "request latency%s",
	         ya.log ? " (log)" : "");
	tp_canvas_text(cv, 16, (top + bottom) / 2, 11, TP_ALIGN_CENTER,
	               -M_PI / 2, label);
	return tp_canvas_close(cv, err);
}

/* The I/O time ratio of point @p: its measured interval over the
 * unthrottled one (@t0); 0 when either is unknown. */
static double io_ratio(const tp_curve_point *p, double t0)
{
	return t0 > 0 && p->io_interval_us > 0 ? fmax(1, p->io_interval_us / t0)
	                                       : 0;
}

static double unthrottled_us(const tp_iocurve_tradeoff *c)
{
	return c->count && c->points[0].window_us == 0
	           ? c->points[0].io_interval_us
	           : 0;
}

void tp_iocurve_tradeoff_words(const tp_iocurve_tradeoff *c, tp_iocurve_text *t)
{
	char a[32], b[32];
	double t0 = unthrottled_us(c);

	tp_canvas_format_bytes(
	    c->count ? (double)c->points[0].request_bytes : 0, a, sizeof(a));
	snprintf(t->title, sizeof(t->title),
	         "%s: throttle trade-off, %s requests, %u clients: victim "
	         "latency and I/O time against the window",
	         c->name ? c->name : "sweep", a,
	         c->count ? c->points[0].clients : 0);
	if (t0 > 0) {
		format_us(t0, b, sizeof(b));
		snprintf(t->subtitle, sizeof(t->subtitle),
		         "unthrottled: clients start a request every %s "
		         "(measured), victim at %.2fx of its no-I/O latency",
		         b, c->points[0].victim_mean_x);
	} else {
		snprintf(t->subtitle, sizeof(t->subtitle),
		         "no unthrottled point measured: I/O time ratios "
		         "unknown");
	}
	if (c->window_us > 0) {
		format_us(c->window_us, a, sizeof(a));
		snprintf(t->note, sizeof(t->note),
		         "window %s, objective %s%s%s", a,
		         c->objective ? c->objective : "none",
		         c->window_why ? ": " : "",
		         c->window_why ? c->window_why : "");
	} else {
		snprintf(t->note, sizeof(t->note),
		         "no window, objective %s%s%s",
		         c->objective ? c->objective : "none",
		         c->window_why ? ": " : "",
		         c->window_why ? c->window_why : "");
	}
	snprintf(t->x_label, sizeof(t->x_label),
	         "throttle window (log); ratios: victim mean latency over "
	         "no-I/O, I/O time over unthrottled");
}

/* The trade-off chart's points: the victim's mean (primary) and the I/O
 * time ratio against the window; unthrottled and unmeasured points are
 * not drawn. */
struct tradeoff_chart {
	const tp_iocurve_tradeoff *c;
	double t0; /* the unthrottled interval */
};

static bool tradeoff_point(const void *chart, size_t i, bool primary, double *x,
                           double *y)
{
	const struct tradeoff_chart *tc = chart;
	const tp_curve_point *p = &tc->c->points[i];

	*x = p->window_us;
	*y = primary ? p->victim_mean_x : io_ratio(p, tc->t0);
	return p->window_us > 0 && *y > 0;
}

tp_status tp_iocurve_draw_tradeoff(const char *path, uint32_t width,
                                   uint32_t height,
                                   const tp_iocurve_tradeoff *c, tp_error *err)
{
	double xlo = INFINITY, xhi = 0, ylo = 1, yhi = 1,
	       t0 = unthrottled_us(c);
	double left = 78, right = width - 24.0, top = 92,
	       bottom = height - 52.0;
	struct axis xa, ya;
	size_t shown = 0;
	tp_iocurve_text words;
	tp_rgb victim = tp_canvas_category(4), io = tp_canvas_category(6);
	tp_rgb win = tp_canvas_category(2), lim = tp_canvas_category(5);
	tp_canvas *cv;
	tp_status rc;

	if ((rc = tp_chart_check_size(path, width, height, err)) != TP_OK)
		return rc;
	for (size_t i = 0; i < c->count; i++) {
		const tp_curve_point *p = &c->points[i];
		double r = io_ratio(p, t0);

		if (p->window_us <= 0 || (!(p->victim_mean_x > 0) && !r))
			continue;
		xlo = fmin(xlo, p->window_us);
		xhi = fmax(xhi, p->window_us);
		if (p->victim_mean_x > 0)
			yhi = fmax(yhi, p->victim_mean_x);
		yhi = fmax(yhi, r);
		shown++;
	}
	if (shown == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: trade-off: no measured window with a "
		                    "victim latency or an I/O time",
		                    path);
	if (c->window_us > 0) {
		xlo = fmin(xlo, c->window_us);
		xhi = fmax(xhi, c->window_us);
	}
	if (c->limit_ratio > 0)
		yhi = fmax(yhi, c->limit_ratio);
	if (xhi <= xlo)
		xhi = xlo * 10;
	axis_fit(&xa, xlo, xhi, true);
	xa.log = true; /* windows span decades; never 0 here */
	xa.lo = xlo / 1.6;
	xa.hi = xhi * 1.6;
	axis_fit(&ya, ylo, fmax(yhi, 2), true);
	xa.ratio = false;
	ya.ratio = true;
	xa.p0 = left, xa.p1 = right;
	ya.p0 = bottom, ya.p1 = top;

	rc = tp_canvas_open(path, width, height, &cv, err);
	if (rc != TP_OK)
		return rc;
	tp_iocurve_tradeoff_words(c, &words);
	tp_chart_heading(cv, words.title, words.subtitle, words.note);
	draw_ticks(cv, &xa, false, bottom, top);
	draw_ticks(cv, &ya, true, left, right);
	tp_canvas_line(cv, left, bottom, right, bottom, 1, ink, 0);
	tp_canvas_line(cv, left, top, left, bottom, 1, ink, 0);
	if (c->window_us > 0) {
		double x = axis_px(&xa, c->window_us);

		tp_canvas_line(cv, x, top, x, bottom, WINDOW_WIDTH, win, 0);
		tp_canvas_set_rgb(cv, win);
		tp_canvas_text(cv, x + 4, top + 12, 10, TP_ALIGN_LEFT, 0,
		               "window");
	}
	if (c->limit_ratio > 0 && c->limit_ratio <= ya.hi) {
		double y = axis_px(&ya, c->limit_ratio);

		tp_canvas_line(cv, left, y, right, y, THRESHOLD_WIDTH, lim, 5);
		tp_canvas_set_rgb(cv, lim);
		tp_canvas_text(cv, left + 6, y - 4, 10, TP_ALIGN_LEFT, 0,
		               c->objective ? c->objective : "objective");
	}
	{
		static const char *const names[] = {"victim mean latency",
		                                    "I/O time"};
		const struct tradeoff_chart tc = {c, t0};
		const tp_rgb cols[] = {victim, io};

		draw_curves(cv, &xa, &ya, c->count, tradeoff_point, &tc, cols);
		/* Top left: the I/O time rises to the top right. */
		draw_legend(cv, left + 12, top, names, cols);
	}
	tp_canvas_set_rgb(cv, ink);
	tp_canvas_text_fit(cv, (left + right) / 2, height - 12, 11,
	                   right - left, TP_ALIGN_CENTER, words.x_label);
	tp_canvas_text(cv, 16, (top + bottom) / 2, 11, TP_ALIGN_CENTER,
	               -M_PI / 2, ya.log ? "ratio (log)" : "ratio");
	return tp_canvas_close(cv, err);
}
