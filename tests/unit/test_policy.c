/*
 * test_policy.c: placement policy names round-trip; bad names are refused
 * with a message that says what was given and what is accepted.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "policy.h"

static void test_every_policy_name_round_trips(void **state)
{
	const char *names[] = { "auto", "leaf", "shared", "pack", "spread", "off" };

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		tp_placement placement = TP_PLACEMENT_OFF;
		tp_error err;

		assert_int_equal(tp_placement_parse(names[i], &placement, &err),
				 TP_OK);
		assert_int_equal(placement, (tp_placement)i);
		assert_string_equal(tp_placement_name(placement), names[i]);
	}
}

static void test_unknown_policy_is_refused_naming_value_and_choices(void **state)
{
	tp_placement placement = TP_PLACEMENT_LEAF;
	tp_error err;

	(void)state;
	assert_int_equal(tp_placement_parse("leafs", &placement, &err),
			 TP_ERR_INVALID);
	assert_int_equal(placement, TP_PLACEMENT_LEAF); /* untouched */
	assert_non_null(strstr(err.message, "'leafs'"));
	assert_non_null(strstr(err.message, TP_PLACEMENT_CHOICES));
}

static void test_policy_names_are_case_sensitive_and_exact(void **state)
{
	tp_placement placement;

	(void)state;
	assert_int_equal(tp_placement_parse("Leaf", &placement, NULL),
			 TP_ERR_INVALID);
	assert_int_equal(tp_placement_parse("leaf ", &placement, NULL),
			 TP_ERR_INVALID);
	assert_int_equal(tp_placement_parse("", &placement, NULL),
			 TP_ERR_INVALID);
	assert_int_equal(tp_placement_parse(NULL, &placement, NULL),
			 TP_ERR_INVALID);
}

static void test_overlong_policy_value_is_cut_in_message(void **state)
{
	char value[400];
	tp_placement placement;
	tp_error err;

	(void)state;
	memset(value, 'z', sizeof(value) - 1);
	value[sizeof(value) - 1] = '\0';
	assert_int_equal(tp_placement_parse(value, &placement, &err),
			 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "...'"));
	assert_true(strlen(err.message) < 200);
}

static void test_out_of_range_policy_has_a_name(void **state)
{
	(void)state;
	assert_string_equal(tp_placement_name((tp_placement)42), "invalid");
}

/* Issue #15: the routing kind a site states, parsed and named alike. */
static void test_routing_kinds_round_trip_and_refuse_others(void **state)
{
	tp_routing routing = TP_ROUTING_ADAPTIVE;
	tp_error err;

	(void)state;
	assert_int_equal(tp_routing_parse("static", &routing, &err), TP_OK);
	assert_int_equal(routing, TP_ROUTING_STATIC);
	assert_string_equal(tp_routing_name(routing), "static");
	assert_int_equal(tp_routing_parse("adaptive", &routing, &err), TP_OK);
	assert_int_equal(routing, TP_ROUTING_ADAPTIVE);
	assert_string_equal(tp_routing_name(routing), "adaptive");
	assert_int_equal(tp_routing_parse("ecmp", &routing, &err),
			 TP_ERR_INVALID);
	assert_string_equal(err.message,
			    "'ecmp' is not a routing kind (expected one of "
			    "adaptive|static)");
	assert_int_equal(routing, TP_ROUTING_ADAPTIVE);
	assert_int_equal(tp_routing_parse(NULL, &routing, &err),
			 TP_ERR_INVALID);
	assert_string_equal(tp_routing_name((tp_routing)9), "invalid");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_policy_name_round_trips),
		cmocka_unit_test(test_unknown_policy_is_refused_naming_value_and_choices),
		cmocka_unit_test(test_policy_names_are_case_sensitive_and_exact),
		cmocka_unit_test(test_overlong_policy_value_is_cut_in_message),
		cmocka_unit_test(test_out_of_range_policy_has_a_name),
		cmocka_unit_test(test_routing_kinds_round_trip_and_refuse_others),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
