# The `topoplace` command.  Subcommands live in tools/cli_<name>.c; the
# fragment that owns a subcommand adds its file to tools_topoplace_SOURCES
# and its line to the table in tools/topoplace.c.
bin_PROGRAMS += tools/topoplace
tools_topoplace_SOURCES = tools/topoplace.c tools/cli.c tools/cli.h \
	tools/cli_busy.c
# The report library first: it calls into the core, and the linker reads
# archives left to right.
tools_topoplace_LDADD = report/libtopoplace_report.la placement/libtopoplace.la \
	$(CAIRO_LIBS)
# Where the preload libraries are installed (profile record's default).
tools_topoplace_CPPFLAGS = $(AM_CPPFLAGS) $(CAIRO_CFLAGS) -DTP_PKGLIBDIR='"$(pkglibdir)"'
dist_man1_MANS += doc/topoplace.1

# The --json forms of every command (topoplace-json(7)).
dist_check_SCRIPTS += tests/integration/cli_json.sh
TESTS += tests/integration/cli_json.sh

# profile list --apps (last use) and profile prune: freshness per application.
dist_check_SCRIPTS += tests/integration/cli_profile_apps.sh
TESTS += tests/integration/cli_profile_apps.sh

# profile scale: a stencil found and rebuilt at another size, on real runs.
dist_check_SCRIPTS += tests/integration/cli_profile_scale.sh
TESTS += tests/integration/cli_profile_scale.sh

# The option helpers the subcommands share: one message per bad value.
dist_check_SCRIPTS += tests/integration/cli_options.sh
TESTS += tests/integration/cli_options.sh
dist_check_SCRIPTS += tests/integration/cli_output_files.sh
TESTS += tests/integration/cli_output_files.sh
