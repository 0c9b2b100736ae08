/*
 * test_strbuf.c: the growing string of common/tp_strbuf.c: appends grow it,
 * the bound and the first failure stick, take hands the text over.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tp_strbuf.h"

static void test_appends_grow_past_the_first_allocation(void **state)
{
	tp_strbuf b = TP_STRBUF_INIT(0);
	char *text;

	(void)state;
	for (int i = 0; i < 1000; i++)
		assert_true(tp_strbuf_printf(&b, "%d,", i % 10));
	assert_true(tp_strbuf_append(&b, "end-ignored", 3));
	assert_int_equal(b.len, 2003);
	assert_false(tp_strbuf_failed(&b));
	text = tp_strbuf_take(&b);
	assert_non_null(text);
	assert_int_equal(strlen(text), 2003);
	assert_memory_equal(text, "0,1,2,", 6);
	assert_string_equal(text + 2000, "end");
	assert_null(b.s);
	free(text);
}

static void test_empty_buffer_takes_as_empty_string(void **state)
{
	tp_strbuf b = TP_STRBUF_INIT(0);
	char *text = tp_strbuf_take(&b);

	(void)state;
	assert_non_null(text);
	assert_string_equal(text, "");
	free(text);
}

static void test_bound_fails_the_buffer_for_good(void **state)
{
	tp_strbuf b = TP_STRBUF_INIT(8);

	(void)state;
	assert_true(tp_strbuf_printf(&b, "%s", "12345678"));
	assert_false(tp_strbuf_printf(&b, "9"));
	assert_true(tp_strbuf_failed(&b));
	assert_true(b.too_long);
	/* Later appends that would fit are refused too: the text has a hole. */
	assert_false(tp_strbuf_append(&b, "", 0));
	assert_null(tp_strbuf_take(&b));
	/* take resets the buffer for reuse (the bound stays). */
	assert_false(tp_strbuf_failed(&b));
	assert_true(tp_strbuf_printf(&b, "ok"));
	assert_string_equal(b.s, "ok");
	tp_strbuf_free(&b);
	assert_null(b.s);
	tp_strbuf_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_appends_grow_past_the_first_allocation),
	    cmocka_unit_test(test_empty_buffer_takes_as_empty_string),
	    cmocka_unit_test(test_bound_fails_the_buffer_for_good),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
