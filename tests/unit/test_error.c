/*
 * test_error.c: error objects carry code and context, never overflow.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tp_error.h"
#include "tp_log.h"

static void test_error_set_returns_code_and_formats_message(void **state)
{
	tp_error err;

	(void)state;
	assert_int_equal(tp_error_set(&err, TP_ERR_PARSE, "%s: line %d: %s",
				      "topology.conf", 12, "bad switch"),
			 TP_ERR_PARSE);
	assert_int_equal(err.code, TP_ERR_PARSE);
	assert_string_equal(err.message, "topology.conf: line 12: bad switch");
}

static void test_error_set_accepts_null_error_object(void **state)
{
	(void)state;
	assert_int_equal(tp_error_set(NULL, TP_ERR_IO, "ignored %d", 1),
			 TP_ERR_IO);
	assert_int_equal(tp_error_prefix(NULL, "ctx"), TP_OK);
}

static void test_error_prefix_puts_context_in_front(void **state)
{
	tp_error err;

	(void)state;
	tp_error_set(&err, TP_ERR_INVALID, "rank 80 >= ranks 64");
	assert_int_equal(tp_error_prefix(&err, "profile %s", "alice/lulesh"),
			 TP_ERR_INVALID);
	assert_string_equal(err.message,
			    "profile alice/lulesh: rank 80 >= ranks 64");
}

static void test_error_long_message_is_truncated_and_terminated(void **state)
{
	char big[2 * TP_ERROR_MESSAGE_MAX];
	tp_error err;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	tp_error_set(&err, TP_ERR_LIMIT, "%s", big);
	assert_int_equal(strlen(err.message), TP_ERROR_MESSAGE_MAX - 1);
	tp_error_prefix(&err, "outer");
	assert_int_equal(strlen(err.message), TP_ERROR_MESSAGE_MAX - 1);
	assert_memory_equal(err.message, "outer: xxx", 10);
}

static void test_error_clear_resets_to_success(void **state)
{
	tp_error err;

	(void)state;
	tp_error_set(&err, TP_ERR_IO, "boom");
	tp_error_clear(&err);
	assert_int_equal(err.code, TP_OK);
	assert_string_equal(err.message, "");
}

static void test_status_names_are_distinct(void **state)
{
	(void)state;
	for (int a = TP_OK; a <= TP_ERR_INTERNAL; a++)
		for (int b = a + 1; b <= TP_ERR_INTERNAL; b++)
			assert_string_not_equal(tp_status_name((tp_status)a),
						tp_status_name((tp_status)b));
	assert_string_equal(tp_status_name((tp_status)999), "unknown error");
}

struct captured_log {
	int calls;
	tp_log_level level;
	char message[256];
};

static void capture_sink(void *sink_data, tp_log_level level,
			 const char *message)
{
	struct captured_log *log = sink_data;

	log->calls++;
	log->level = level;
	strncpy(log->message, message, sizeof(log->message) - 1);
}

static void test_log_reaches_sink_up_to_max_level_only(void **state)
{
	struct captured_log log = { 0 };
	tp_logger logger = { capture_sink, &log, TP_LOG_INFO };

	(void)state;
	tp_log(&logger, TP_LOG_WARNING, "leaf %s has %d hosts", "leaf001", 3);
	assert_int_equal(log.calls, 1);
	assert_int_equal(log.level, TP_LOG_WARNING);
	assert_string_equal(log.message, "leaf leaf001 has 3 hosts");
	tp_log(&logger, TP_LOG_DEBUG, "dropped");
	assert_int_equal(log.calls, 1);
	tp_log(NULL, TP_LOG_ERROR, "no logger: dropped");
	assert_int_equal(log.calls, 1);
	assert_string_equal(tp_log_level_name(TP_LOG_DEBUG), "debug");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_set_returns_code_and_formats_message),
		cmocka_unit_test(test_error_set_accepts_null_error_object),
		cmocka_unit_test(test_error_prefix_puts_context_in_front),
		cmocka_unit_test(test_error_long_message_is_truncated_and_terminated),
		cmocka_unit_test(test_error_clear_resets_to_success),
		cmocka_unit_test(test_status_names_are_distinct),
		cmocka_unit_test(test_log_reaches_sink_up_to_max_level_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
