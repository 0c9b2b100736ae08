/*
 * chart.h: what the report charts (hop-class histograms, heatmaps, I/O
 * curves) share around their plots: the smallest image they accept and
 * the heading lines at the top.  Internal to libtopoplace_report.
 */
#ifndef TP_CHART_H
#define TP_CHART_H

#include <stddef.h>
#include <stdint.h>

#include "canvas.h"
#include "tp_error.h"

/*
 * TP_OK when a @width x @height image leaves a chart room for its labels
 * (at least TP_REPORT_MIN_WIDTH x TP_REPORT_MIN_HEIGHT, hops.h);
 * TP_ERR_INVALID naming @path and both sizes otherwise.
 */
tp_status tp_chart_check_size(const char *path, uint32_t width, uint32_t height,
                              tp_error *err);

/*
 * A chart's title into @title of @size bytes: @fmt and its arguments, then
 * the names of the @count mappings its panels show, joined by " vs " (cut
 * short where @size ends).
 */
void tp_chart_title(char *title, size_t size, const char *const *mappings,
                    uint32_t count, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/*
 * The heading, centred in black and shrunk to fit the canvas's width:
 * @title in 15 points on the first line, then @subtitle and @note in 11
 * points on the two lines under it (a NULL line is left out).
 */
void tp_chart_heading(tp_canvas *canvas, const char *title,
                      const char *subtitle, const char *note);

#endif /* TP_CHART_H */
