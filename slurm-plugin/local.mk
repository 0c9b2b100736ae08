# Slurm plugins: thin adapters between Slurm and libtopoplace.
#
# Built against Slurm's internal headers (configure --with-slurm-source),
# linked against no Slurm library: symbols resolve from the loading daemon
# (slurmctld, slurmstepd) or client at load time.  Installed into Slurm's
# plugin directory.
if WITH_SLURM
slurmplugindir = $(SLURM_PLUGIN_DIR)
slurmplugin_LTLIBRARIES = \
	slurm-plugin/select_topoplace_cons_tres.la \
	slurm-plugin/task_topoplace.la \
	slurm-plugin/spank_topoplace.la

# Slurm's headers do not survive our strictest warnings; plugins get the
# common set, still as errors in CI.
TP_PLUGIN_CFLAGS = -std=gnu11 -Wall -Wextra -Wno-unused-parameter \
	-Wno-sign-compare -Wno-missing-field-initializers \
	$(TP_WERROR)
TP_PLUGIN_CPPFLAGS = $(SLURM_CPPFLAGS) -I$(top_srcdir)/placement \
	-I$(top_srcdir)/profiles -I$(top_srcdir)/throttle \
	-I$(top_srcdir)/slurm-plugin
TP_PLUGIN_LDFLAGS = -module -avoid-version -shared

slurm_plugin_select_topoplace_cons_tres_la_SOURCES = \
	slurm-plugin/select_topoplace_cons_tres.c \
	slurm-plugin/spank_env.c slurm-plugin/spank_env.h \
	slurm-plugin/tp_slurm_core.c slurm-plugin/tp_slurm_core.h \
	slurm-plugin/tp_slurm_fabric.c slurm-plugin/tp_slurm_fabric.h \
	slurm-plugin/tp_slurm_options.c slurm-plugin/tp_slurm_options.h
slurm_plugin_select_topoplace_cons_tres_la_CFLAGS = $(TP_PLUGIN_CFLAGS)
slurm_plugin_select_topoplace_cons_tres_la_CPPFLAGS = $(TP_PLUGIN_CPPFLAGS)
slurm_plugin_select_topoplace_cons_tres_la_LDFLAGS = $(TP_PLUGIN_LDFLAGS)
slurm_plugin_select_topoplace_cons_tres_la_LIBADD = placement/libtopoplace.la

slurm_plugin_task_topoplace_la_SOURCES = \
	slurm-plugin/task_topoplace.c \
	slurm-plugin/spank_env.c slurm-plugin/spank_env.h \
	slurm-plugin/tp_slurm_core.c slurm-plugin/tp_slurm_core.h \
	slurm-plugin/tp_slurm_fabric.c slurm-plugin/tp_slurm_fabric.h \
	slurm-plugin/tp_slurm_options.c slurm-plugin/tp_slurm_options.h
slurm_plugin_task_topoplace_la_CFLAGS = $(TP_PLUGIN_CFLAGS)
slurm_plugin_task_topoplace_la_CPPFLAGS = $(TP_PLUGIN_CPPFLAGS)
slurm_plugin_task_topoplace_la_LDFLAGS = $(TP_PLUGIN_LDFLAGS)
slurm_plugin_task_topoplace_la_LIBADD = placement/libtopoplace.la

# The SPANK plugin needs only Slurm's public spank.h.
slurm_plugin_spank_topoplace_la_SOURCES = slurm-plugin/spank_topoplace.c \
	slurm-plugin/spank_env.h \
	slurm-plugin/tp_slurm_options.c slurm-plugin/tp_slurm_options.h
slurm_plugin_spank_topoplace_la_CFLAGS = $(TP_PLUGIN_CFLAGS)
slurm_plugin_spank_topoplace_la_CPPFLAGS = $(TP_PLUGIN_CPPFLAGS)
slurm_plugin_spank_topoplace_la_LDFLAGS = $(TP_PLUGIN_LDFLAGS)
slurm_plugin_spank_topoplace_la_LIBADD = placement/libtopoplace.la

endif
