# callgrind_cost.awk: what the preloaded profiler costs one process, in
# user-space instructions (Ir), from one callgrind output file written with
# --dump-line=no --compress-strings=no --compress-pos=no (names in full on
# every line: no name-compression table to keep).  For
# bench/record_overhead_bench.sh.
#
#   awk -v lib=libtopoplace_profiler -f callgrind_cost.awk callgrind.out.PID
#
# Prints one line: "total T profiler P finalize F end_mpi E progress W tls
# L calls C init I" where
#   T  every instruction of the process (callgrind's summary);
#   P  the profiler's own work: the instructions of every function in the
#      object whose path contains @lib, plus every call those functions
#      make into other objects, except the call a wrapper forwards to (MPI_X
#      to PMPI_X, also from slow_X, a wrapper's own way out through a
#      function that records the call; mpi_x_ to mpi_x_/ompi_x_f, write to
#      write/__libc_write): that is the application's call, which runs
#      with or without the profiler.  A non-forwarded call that re-enters a wrapper (libmunge's
#      write, in store mode) is counted twice: P errs high, never low;
#   F  the end of the run (tp_prof_on_finalize: gather, build, write), calls
#      included; part of P;
#   E  the MPI calls of that end of the run (PMPI_Reduce, _Gather, _Gatherv,
#      _Bcast, _Comm_split_type...): part of F, and the part that waits for
#      the other ranks (Open MPI busy-polls while it waits, so E grows with
#      the wait, not with the work);
#   W  the calls to opal_progress, Open MPI's progress engine, wherever they
#      are made: message work and busy-polling, the instructions that vary
#      with load and with the other ranks' speed;
#   L  the calls to __tls_get_addr the profiler makes (its thread-local
#      recursion guard in a shared object); part of P;
#   C  the calls into the library from outside it: its wrappers' entries
#      (the application's MPI calls it wraps, and the POSIX I/O calls of
#      the process);
#   I  the start of the run: the profiler's work in its MPI_Init wrappers
#      (C and Fortran), calls included but the forwarded PMPI_Init (rank
#      0's word on whether to record, one MPI_Bcast, which waits for rank
#      0 as E does); part of P.  So (P - F - I) / C is its work per wrapped
#      call.
# Not in P: loading the library (ld.so's work), which only the difference of
# T with and without the preload shows.
function norm(name) {
	name = tolower(name)
	sub(/^_+/, "", name)
	sub(/^libc_/, "", name)
	sub(/^_*gi_+(libc_)?/, "", name)
	sub(/^pmpi_/, "mpi_", name)
	sub(/^slow_/, "mpi_", name)
	if (name ~ /^ompi_.*_f$/)
		name = "mpi_" substr(name, 6, length(name) - 7) "_"
	return name
}
/^summary:/ { total = $2 }
/^ob=/ { ob = substr($0, 4); cob = ob; next }
/^fn=/ {
	fn = substr($0, 4)
	inlib = index(ob, lib) > 0
	ininit = inlib && fn ~ /^(MPI_Init|MPI_Init_thread|mpi_init_|mpi_init_thread_|ompi_init_f|ompi_init_thread_f)$/
	next
}
/^cob=/ { cob = substr($0, 5); next }
/^cfn=/ { cfn = substr($0, 5); next }
/^calls=/ { incall = 1; ncalls = substr($1, 7) + 0; next }
/^[0-9+*-]/ {
	cost = $NF
	if (!incall) {
		if (inlib)
			prof += cost
		if (ininit)
			init += cost
		next
	}
	incall = 0
	if (!inlib && index(cob, lib))
		entries += ncalls
	if (cfn == "tp_prof_on_finalize")
		fin += cost
	if (fn == "tp_prof_on_finalize" && cfn ~ /^PMPI_/)
		endmpi += cost
	if (cfn == "opal_progress" && fn != "opal_progress")
		progress += cost
	if (inlib && cfn ~ /^__tls_get_addr/)
		tls += cost
	if (inlib && index(cob, lib) == 0 && norm(cfn) != norm(fn))
		prof += cost
	if (ininit && norm(cfn) != norm(fn))
		init += cost
	cob = ob
	next
}
END {
	if (!total)
		exit 1
	printf "total %d profiler %d finalize %d end_mpi %d progress %d tls %d " \
	    "calls %d init %d\n", total, prof, fin, endmpi, progress, tls,
	    entries, init
}
