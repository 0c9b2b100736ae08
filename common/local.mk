# common/: the ground floor of the core library: errors with context
# (tp_error), the caller's log sink (tp_log), bounded file reads (tp_file),
# the JSON writer (tp_json) and strict parsing of durations and byte counts
# (units).  Nothing here includes a header from another directory.
placement_libtopoplace_la_SOURCES += \
	common/tp_error.c common/tp_error.h \
	common/tp_log.c common/tp_log.h \
	common/tp_file.c common/tp_file.h \
	common/tp_json.c common/tp_json.h \
	common/units.c common/units.h
