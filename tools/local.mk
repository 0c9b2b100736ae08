# topoplace-fattree: the fat-tree fixture generator (ibsim net files and the
# matching Slurm topology.conf). tools/fattree.c is self-contained: it needs
# neither the core library nor any external package.
bin_PROGRAMS += tools/topoplace-fattree
tools_topoplace_fattree_SOURCES = tools/topoplace-fattree.c \
	tools/fattree.c tools/fattree.h
dist_man1_MANS += doc/topoplace-fattree.1
