# topoplace.conf (issue 7): the parser in the core library, its unit test,
# `topoplace config check`, the man pages, an example file and the fuzz
# target's sources.  The parser is config/topoplace_conf.{c,h}, not
# config.{c,h}: the Slurm plugins include Slurm's own config.h.  config/
# sits above placement/, profiles/ and throttle/: it fills the policy structs
# they define.
placement_libtopoplace_la_SOURCES += \
	config/topoplace_conf.c config/topoplace_conf.h \
	config/topoplace_conf_keys.h

TP_UNIT_TESTS += tests/unit/test_config
check_PROGRAMS += tests/unit/test_config
TESTS += tests/unit/test_config
tests_unit_test_config_SOURCES = tests/unit/test_config.c
tests_unit_test_config_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_config_LDADD = $(TP_UNIT_LDADD)

# `topoplace config check`.
tools_topoplace_SOURCES += tools/cli_config.c
dist_man1_MANS += doc/topoplace-config.1
dist_man5_MANS += doc/topoplace.conf.5
TESTS += tests/integration/cli_config.sh
dist_check_SCRIPTS += tests/integration/cli_config.sh

# The example file, the fuzz target and its seeds (built by tests/fuzz/run).
EXTRA_DIST += etc/topoplace.conf.example \
	tests/fuzz/fuzz_config.c \
	tests/fuzz/corpus/config/empty.conf \
	tests/fuzz/corpus/config/every-key.conf \
	tests/fuzz/corpus/config/partitions.conf \
	tests/fuzz/corpus/config/bad-duration.conf \
	tests/fuzz/corpus/config/crlf-minmax.conf \
	tests/fuzz/corpus/config/example.conf

# `make install` puts the example in $(docdir)/examples, where
# topoplace.conf(5) says it is; install_example.sh installs into a DESTDIR
# and checks the installed copy as shipped.
topoplace_examplesdir = $(docdir)/examples
dist_topoplace_examples_DATA = etc/topoplace.conf.example
TESTS += tests/integration/install_example.sh
dist_check_SCRIPTS += tests/integration/install_example.sh
