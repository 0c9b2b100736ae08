/*
 * chart.c: the size check, title and heading the report charts share.
 */
#include "tp_config.h"

#include "chart.h"

#include <stdarg.h>
#include <stdio.h>

#include "hops.h"

tp_status tp_chart_check_size(const char *path, uint32_t width, uint32_t height,
                              tp_error *err)
{
	if (width < TP_REPORT_MIN_WIDTH || height < TP_REPORT_MIN_HEIGHT)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: image size %ux%u too small for a "
		                    "readable chart (at least %ux%u)",
		                    path, width, height, TP_REPORT_MIN_WIDTH,
		                    TP_REPORT_MIN_HEIGHT);
	return TP_OK;
}

void tp_chart_title(char *title, size_t size, const char *const *mappings,
                    uint32_t count, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = (size_t)vsnprintf(title, size, fmt, ap);
	va_end(ap);
	for (uint32_t p = 0; p < count && n < size; p++)
		n += (size_t)snprintf(title + n, size - n, "%s%s",
		                      p ? " vs " : "", mappings[p]);
}

void tp_chart_heading(tp_canvas *canvas, const char *title,
                      const char *subtitle, const char *note)
{
	static const tp_rgb ink = {0, 0, 0};
	double width = tp_canvas_width(canvas);

	tp_canvas_set_rgb(canvas, ink);
	tp_canvas_text_fit(canvas, width / 2.0, 24, 15, width - 20.0,
	                   TP_ALIGN_CENTER, title);
	if (subtitle)
		tp_canvas_text_fit(canvas, width / 2.0, 44, 11, width - 20.0,
		                   TP_ALIGN_CENTER, subtitle);
	if (note)
		tp_canvas_text_fit(canvas, width / 2.0, 60, 11, width - 20.0,
		                   TP_ALIGN_CENTER, note);
}
