# Leaf allocation time per decision (figures only; see bench/RESULTS.md).
# Included from the top Makefile.am by the lead:  include $(srcdir)/bench/alloc.mk
noinst_PROGRAMS += bench/alloc_bench
bench_alloc_bench_SOURCES = bench/alloc_bench.c
bench_alloc_bench_LDADD = placement/libtopoplace.la
