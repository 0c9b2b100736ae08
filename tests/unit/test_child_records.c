/*
 * test_child_records.c: the records a daemon's bounded child hands back
 * (jobprep/child_records.h): what is written is read back whole and in
 * order, an entry that cannot be one line is refused by name instead of
 * split, and the reader skips and counts what is not a record.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "child_records.h"

/* What the reader passed on, one "K name|value" line per record. */
struct seen {
	char text[1024];
	int count;
};

static void collect(tp_child_record_kind kind, const char *name,
                    const char *value, void *ctx)
{
	struct seen *s = ctx;
	size_t used = strlen(s->text);

	snprintf(s->text + used, sizeof(s->text) - used, "%c %s|%s\n",
	         (char)kind, name ? name : "(null)", value ? value : "(null)");
	s->count++;
}

static char *written(tp_strbuf *b)
{
	char *text = tp_strbuf_take(b);

	assert_non_null(text);
	return text;
}

/* Set, unset and note come back as written, in order; the done line is
 * not passed on and marks the records complete. */
static void test_round_trip(void **state)
{
	tp_strbuf b = TP_STRBUF_INIT(0);
	struct seen s = {{0}, 0};
	tp_error err;
	char *text;

	(void)state;
	assert_int_equal(tp_child_record_add(&b, TP_CHILD_RECORD_SET,
	                                     "SLURM_HOSTFILE", "/tmp/a=b",
	                                     &err),
	                 TP_OK);
	assert_int_equal(tp_child_record_add(&b, TP_CHILD_RECORD_UNSET,
	                                     "LD_PRELOAD", NULL, &err),
	                 TP_OK);
	assert_int_equal(tp_child_record_add(&b, TP_CHILD_RECORD_NOTE, NULL,
	                                     "remapped: 4 ranks", &err),
	                 TP_OK);
	assert_int_equal(tp_child_record_add(&b, TP_CHILD_RECORD_SET, "EMPTY",
	                                     "", &err),
	                 TP_OK);
	tp_strbuf_append(&b, TP_CHILD_RECORD_DONE,
	                 strlen(TP_CHILD_RECORD_DONE));
	text = written(&b);
	assert_string_equal(text, "E SLURM_HOSTFILE=/tmp/a=b\nU LD_PRELOAD\n"
	                          "N remapped: 4 ranks\nE EMPTY=\nD\n");
	assert_true(tp_child_records_done(text, strlen(text)));
	assert_int_equal(tp_child_records_each(text, collect, &s), 0);
	assert_int_equal(s.count, 4);
	assert_string_equal(s.text, "E SLURM_HOSTFILE|/tmp/a=b\n"
	                            "U LD_PRELOAD|(null)\n"
	                            "N (null)|remapped: 4 ranks\n"
	                            "E EMPTY|\n");
	free(text);
}

/* A value or name that cannot be one line is refused by name and adds
 * nothing: split, its second half would be read as another record. */
static void test_refuses_what_is_not_one_line(void **state)
{
	tp_strbuf b = TP_STRBUF_INIT(0);
	tp_error err;
	char *text;

	(void)state;
	assert_int_equal(tp_child_record_add(&b, TP_CHILD_RECORD_SET, "X",
	                                     "a\nE LD_PRELOAD=/evil.so", &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "environment variable X"));
	assert_non_null(strstr(err.message, "newline"));
	assert_int_equal(tp_child_record_add(&b, TP_CHILD_RECORD_SET, "A=B",
	                                     "v", &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "\"A=B\""));
	assert_int_equal(tp_child_record_add(&b, TP_CHILD_RECORD_UNSET,
	                                     "A\nB", NULL, &err),
	                 TP_ERR_INVALID);
	assert_int_equal(tp_child_record_add(&b, TP_CHILD_RECORD_SET, "",
	                                     "v", &err),
	                 TP_ERR_INVALID);
	assert_int_equal(tp_child_record_add(&b, TP_CHILD_RECORD_SET, NULL,
	                                     "v", &err),
	                 TP_ERR_INVALID);
	assert_int_equal(tp_child_record_add(&b, TP_CHILD_RECORD_SET, "V",
	                                     NULL, &err),
	                 TP_ERR_INVALID);
	assert_int_equal(tp_child_record_add(&b, (tp_child_record_kind)'Q',
	                                     "V", "v", &err),
	                 TP_ERR_INVALID);
	text = tp_strbuf_take(&b);
	assert_non_null(text);
	assert_string_equal(text, "");
	free(text);
}

/* A note is text for a person: its newlines become spaces, one record. */
static void test_note_is_one_line(void **state)
{
	tp_strbuf b = TP_STRBUF_INIT(0);
	struct seen s = {{0}, 0};
	tp_error err;
	char *text;

	(void)state;
	assert_int_equal(tp_child_record_add(&b, TP_CHILD_RECORD_NOTE, NULL,
	                                     "store /p\nq: gone\n", &err),
	                 TP_OK);
	assert_int_equal(tp_child_record_add(&b, TP_CHILD_RECORD_NOTE, NULL,
	                                     NULL, &err),
	                 TP_OK);
	text = written(&b);
	assert_string_equal(text, "N store /p q: gone \nN \n");
	assert_int_equal(tp_child_records_each(text, collect, &s), 0);
	assert_int_equal(s.count, 2);
	assert_string_equal(s.text, "N (null)|store /p q: gone \nN (null)|\n");
	free(text);
}

/* Lines that are no record are skipped and counted; the records around
 * them still count. */
static void test_skips_and_counts_garbage(void **state)
{
	char text[] = "E A=1\nX what\nE =v\nE noequals\nU \nU A=B\nE\n"
	              "N\n\nEA=2\nU B\nN fine\n";
	struct seen s = {{0}, 0};

	(void)state;
	assert_int_equal(tp_child_records_each(text, collect, &s), 8);
	assert_int_equal(s.count, 3);
	assert_string_equal(s.text, "E A|1\nU B|(null)\nN (null)|fine\n");
}

/* Complete only when the done record ends the text on its own line. */
static void test_done(void **state)
{
	(void)state;
	assert_true(tp_child_records_done("D\n", 2));
	assert_true(tp_child_records_done("E A=1\nD\n", 8));
	assert_false(tp_child_records_done("E A=D\n", 6));
	assert_false(tp_child_records_done("E A=1\n", 6));
	assert_false(tp_child_records_done("D", 1));
	assert_false(tp_child_records_done("", 0));
	/* A record cut short by the child's death. */
	assert_false(tp_child_records_done("E A=1\nD\nE B", 11));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_refuses_what_is_not_one_line),
	    cmocka_unit_test(test_note_is_one_line),
	    cmocka_unit_test(test_skips_and_counts_garbage),
	    cmocka_unit_test(test_done),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
