/*
 * test_json.c: the JSON writer produces exactly the documents it is asked
 * for, escapes every string so the output stays valid JSON, and reports
 * misuse instead of writing a broken document.
 */
#include "tp_config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tp_json.h"

/* A writer into memory; the text is in *text after close_text. */
typedef struct text_out {
	char *text;
	size_t size;
	FILE *f;
} text_out;

static void open_text(text_out *t, tp_json *j)
{
	t->text = NULL;
	t->size = 0;
	t->f = open_memstream(&t->text, &t->size);
	assert_non_null(t->f);
	tp_json_init(j, t->f);
}

static void close_text(text_out *t)
{
	assert_int_equal(fclose(t->f), 0);
}

static void test_document_has_schema_and_version_first(void **state)
{
	text_out t;
	tp_json j;
	tp_error err = {0};

	(void)state;
	open_text(&t, &j);
	tp_json_begin_document(&j, "remap", 1);
	tp_json_uint(&j, "ranks", 64);
	tp_json_begin_array(&j, "hosts");
	tp_json_string(&j, NULL, "n0001");
	tp_json_string(&j, NULL, "n0002");
	tp_json_end_array(&j);
	tp_json_begin_object(&j, "empty");
	tp_json_end_object(&j);
	tp_json_begin_array(&j, "none");
	tp_json_end_array(&j);
	tp_json_bool(&j, "ok", true);
	tp_json_null(&j, "missing");
	tp_json_int(&j, "delta", -3);
	tp_json_end_document(&j);
	assert_int_equal(tp_json_finish(&j, &err), TP_OK);
	close_text(&t);
	assert_string_equal(t.text, "{\n"
	                            "  \"schema\": \"topoplace.remap\",\n"
	                            "  \"version\": 1,\n"
	                            "  \"ranks\": 64,\n"
	                            "  \"hosts\": [\n"
	                            "    \"n0001\",\n"
	                            "    \"n0002\"\n"
	                            "  ],\n"
	                            "  \"empty\": {},\n"
	                            "  \"none\": [],\n"
	                            "  \"ok\": true,\n"
	                            "  \"missing\": null,\n"
	                            "  \"delta\": -3\n"
	                            "}\n");
	free(t.text);
}

static void test_strings_are_escaped_and_bad_utf8_replaced(void **state)
{
	text_out t;
	tp_json j;
	tp_error err = {0};

	(void)state;
	open_text(&t, &j);
	tp_json_begin_document(&j, "x", 2);
	/* quote, backslash, controls, DEL, valid 2- and 3-byte UTF-8 */
	tp_json_string(&j, "s", "a\"b\\c\n\t\r\x01\x7f\xc3\xa9\xe2\x82\xac");
	/* a lone continuation byte, an overlong '/', a surrogate, a cut
	 * sequence at the end */
	tp_json_string(&j, "bad", "\x80x\xc0\xaf\xed\xa0\x80\xe2\x82");
	tp_json_string(&j, "null", NULL);
	tp_json_end_document(&j);
	assert_int_equal(tp_json_finish(&j, &err), TP_OK);
	close_text(&t);
	assert_non_null(strstr(t.text, "\"s\": \"a\\\"b\\\\c\\n\\t\\r\\u0001"
	                               "\\u007f\xc3\xa9\xe2\x82\xac\""));
	/* one U+FFFD per byte that starts no valid sequence: 1, x, 2 for
	 * the overlong pair, 3 for the surrogate, 2 for the cut sequence */
	assert_non_null(strstr(t.text, "\"bad\": \"\\ufffdx\\ufffd\\ufffd"
	                               "\\ufffd\\ufffd\\ufffd"
	                               "\\ufffd\\ufffd\""));
	assert_non_null(strstr(t.text, "\"null\": null"));
	assert_non_null(strstr(t.text, "\"version\": 2"));
	free(t.text);
}

static void test_numbers_are_short_and_round_trip(void **state)
{
	text_out t;
	tp_json j;
	tp_error err = {0};
	const double third = 1.0 / 3.0;
	char *at;

	(void)state;
	open_text(&t, &j);
	tp_json_begin_document(&j, "n", 1);
	tp_json_double(&j, "tenth", 0.1);
	tp_json_double(&j, "third", third);
	tp_json_double(&j, "inf", INFINITY);
	tp_json_double(&j, "nan", NAN);
	tp_json_uint(&j, "max", UINT64_MAX);
	tp_json_int(&j, "min", INT64_MIN);
	tp_json_end_document(&j);
	assert_int_equal(tp_json_finish(&j, &err), TP_OK);
	close_text(&t);
	assert_non_null(strstr(t.text, "\"tenth\": 0.1,"));
	at = strstr(t.text, "\"third\": ");
	assert_non_null(at);
	assert_true(strtod(at + strlen("\"third\": "), NULL) == third);
	assert_non_null(strstr(t.text, "\"inf\": null,"));
	assert_non_null(strstr(t.text, "\"nan\": null,"));
	assert_non_null(strstr(t.text, "\"max\": 18446744073709551615,"));
	assert_non_null(strstr(t.text, "\"min\": -9223372036854775808\n"));
	free(t.text);
}

/* Each misuse is reported by finish, naming what went wrong. */
static void expect_misuse(void (*misuse)(tp_json *), const char *words)
{
	text_out t;
	tp_json j;
	tp_error err = {0};

	open_text(&t, &j);
	misuse(&j);
	assert_int_not_equal(tp_json_finish(&j, &err), TP_OK);
	assert_non_null(strstr(err.message, "JSON output: "));
	if (!strstr(err.message, words))
		fail_msg("'%s' does not say '%s'", err.message, words);
	close_text(&t);
	free(t.text);
}

static void key_in_array(tp_json *j)
{
	tp_json_begin_document(j, "m", 1);
	tp_json_begin_array(j, "a");
	tp_json_uint(j, "k", 1);
	tp_json_end_array(j);
	tp_json_end_document(j);
}

static void no_key_in_object(tp_json *j)
{
	tp_json_begin_document(j, "m", 1);
	tp_json_uint(j, NULL, 1);
	tp_json_end_document(j);
}

static void wrong_end(tp_json *j)
{
	tp_json_begin_document(j, "m", 1);
	tp_json_begin_array(j, "a");
	tp_json_end_object(j);
	tp_json_end_document(j);
}

static void left_open(tp_json *j)
{
	tp_json_begin_document(j, "m", 1);
	tp_json_begin_object(j, "o");
	tp_json_end_object(j);
}

static void too_deep(tp_json *j)
{
	tp_json_begin_document(j, "m", 1);
	for (int i = 0; i < TP_JSON_MAX_DEPTH; i++)
		tp_json_begin_array(j, i == 0 ? "a" : NULL);
}

static void nothing(tp_json *j)
{
	(void)j;
}

static void two_documents(tp_json *j)
{
	tp_json_begin_document(j, "m", 1);
	tp_json_end_document(j);
	tp_json_begin_document(j, "m", 1);
	tp_json_end_document(j);
}

static void test_misuse_is_reported_not_written(void **state)
{
	(void)state;
	expect_misuse(key_in_array, "key 'k' inside an array");
	expect_misuse(no_key_in_object, "without a key inside an object");
	expect_misuse(wrong_end, "end of object with no object open");
	expect_misuse(left_open, "1 container(s) left open");
	expect_misuse(too_deep, "nesting deeper than 16 levels");
	expect_misuse(nothing, "no document written");
	expect_misuse(two_documents, "a value outside the document");
}

static void test_write_error_is_reported(void **state)
{
	FILE *full = fopen("/dev/full", "w");
	tp_json j;
	tp_error err = {0};

	(void)state;
	if (!full)
		skip();
	tp_json_init(&j, full);
	tp_json_begin_document(&j, "m", 1);
	tp_json_end_document(&j);
	assert_int_equal(tp_json_finish(&j, &err), TP_ERR_IO);
	assert_string_equal(err.message, "JSON output: write error");
	fclose(full);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_document_has_schema_and_version_first),
	    cmocka_unit_test(test_strings_are_escaped_and_bad_utf8_replaced),
	    cmocka_unit_test(test_numbers_are_short_and_round_trip),
	    cmocka_unit_test(test_misuse_is_reported_not_written),
	    cmocka_unit_test(test_write_error_is_reported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
