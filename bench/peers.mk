# Rank remapping against its peers (issue 5; figures in bench/RESULTS.md).
# Built when configure found Scotch; TreeMatch is added by bench/peers.sh
# when bench/peers-setup.sh has built its archive outside the tree.
if HAVE_SCOTCH
noinst_PROGRAMS += bench/peer_bench
bench_peer_bench_SOURCES = bench/peer_bench.c bench/metis_rb.c bench/metis_rb.h \
	bench/scotch_peer.c bench/scotch_peer.h bench/pareto_graph.c \
	bench/pareto_graph.h
bench_peer_bench_LDADD = placement/libtopoplace.la $(SCOTCH_LIBS) \
	$(METIS_LIBS) $(MATH_LIBS)
endif
EXTRA_DIST += bench/peer_bench.c bench/metis_rb.c bench/metis_rb.h \
	bench/scotch_peer.c bench/scotch_peer.h bench/pareto_graph.c \
	bench/pareto_graph.h
dist_noinst_SCRIPTS += bench/peers-setup.sh bench/peers.sh \
	bench/remap_identity.sh bench/remap_cpu_ratio.sh
