#!/bin/bash
# profiler_store.sh: libtopoplace_profiler.so writing into the munge-signed
# profile store as the real unprivileged user tpalice (private munged), and
# its matrix cross-checked against Open MPI's own pml monitoring counters
# on the same real run.
#
# Proves: a run under tpalice stores one verified profile in tpalice's
# namespace (credential made by tpalice, readable and verified by root);
# a run that aborts adds no run and leaves no temporary file in the store;
# for the ring (every send kind) and the 3-D stencil the profiler's matrix
# equals the `E` (user point-to-point) counters of
# `--mca pml_monitoring_enable 2`, imported with `topoplace profile import
# --from ompi`.

here=$(cd "$(dirname "$0")" && pwd)
: "${abs_top_srcdir:=$(cd "$here/../.." && pwd)}"
# shellcheck source=../lib/bed.sh
. "$abs_top_srcdir/tests/lib/bed.sh"

((EUID == 0)) || tp_skip "needs root to run the job as tpalice"
for c in munged mungekey setpriv; do
	command -v "$c" >/dev/null || tp_skip "$c not installed"
done
id tpalice >/dev/null 2>&1 || tp_skip "user tpalice does not exist"
# shellcheck source=profiler_lib.sh
. "$abs_top_srcdir/tests/integration/profiler_lib.sh"

D=$PT/munge
mkdir -m 755 "$D"
cleanup() {
	local pid
	if [[ -s $D/munged.pid ]]; then
		pid=$(cat "$D/munged.pid")
		kill "$pid" 2>/dev/null
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	fi
	rm -rf "$PT"
}
trap cleanup EXIT
start_munged() {
	mungekey -c -k "$D/munged.key" -b 1024 || return 1
	munged --socket="$D/munged.socket" --key-file="$D/munged.key" \
		--log-file="$D/munged.log" --pid-file="$D/munged.pid" \
		--seed-file="$D/munged.seed" || return 1
	for _ in $(seq 50); do
		[[ -S $D/munged.socket ]] && return 0
		sleep 0.1
	done
	return 1
}
tp_check "private munged starts" start_munged || tp_done

# The documented layout (topoplace.conf(5)): a root-owned 0755 store, each
# user's namespace made by root (as task/topoplace does at a --comm-record
# step), so the profiler, running as the user, only writes inside it.
ST=$PT/store
mkdir -m 755 "$ST"
# Open MPI's session directory must be tpalice's own.
mkdir -m 700 "$PT/alice" && chown tpalice: "$PT/alice"
M=(--store "$ST" --munge-socket "$D/munged.socket")
alice_run() { # ARGS...: a profiled job of tpalice's, profile to the store
	tp_as_user tpalice env TOPOPLACE_PROFILE_STORE="$ST" \
		TOPOPLACE_MUNGE_SOCKET="${SOCK:-$D/munged.socket}" TOPOPLACE_PROFILE_NAME=ring4 \
		OMPI_MCA_plm_rsh_agent=false OMPI_MCA_btl=self,vader \
		OMPI_MCA_mpi_yield_when_idle=1 TMPDIR="$PT/alice" \
		"$MPIRUN" --oversubscribe -np 4 -x LD_PRELOAD="$PROF_LIB" \
		-x TOPOPLACE_PROFILE_STORE -x TOPOPLACE_MUNGE_SOCKET \
		-x TOPOPLACE_PROFILE_NAME "$@"
}

# --- the store, as tpalice ---------------------------------------------------
# Before root prepares her namespace the job still runs, and rank 0 says in
# the job's output why no profile was written.
out=$(alice_run "$PT/mpi_patterns" ring 5 40 2>&1 >/dev/null)
tp_check "a job without a namespace still succeeds" test $? -eq 0
tp_check "rank 0 says the namespace is missing and who makes it" \
	grep -q "topoplace-profiler: $ST/tpalice: mkdir: Permission denied (the namespace is made by root.*profile not written" <<<"$out"
tp_check "root prepares tpalice's namespace" \
	"${PROF_CLI[@]}" prepare --store "$ST" tpalice
tp_check "tpalice's profiled ring runs" alice_run "$PT/mpi_patterns" ring 20 400
runs=$("${PROF_CLI[@]}" list "${M[@]}" tpalice/ring4 2>&1)
tp_check_eq "one run stored under tpalice/ring4" 1 "$(grep -c '^tpalice/ring4/' <<<"$runs")"
show=$("${PROF_CLI[@]}" show "${M[@]}" tpalice/ring4 2>&1)
tp_check_eq "root reads it back verified by munge" \
	"verified by munge for this store location" \
	"$(sed -n 's/^credential: *//p' <<<"$show")"
tp_check_eq "its owner is tpalice" "$(id -u tpalice)" \
	"$(sed -n 's/^owner uid: *//p' <<<"$show")"
tp_check_eq "its matrix is the ring's" \
	"matrix:       4 pairs, 32000 bytes, 80 messages" "$(grep '^matrix:' <<<"$show")"
# What it ran (issue #18): rank 0's executable, hashed whole (it is small),
# and the layout of 4 ranks on this one node.
exe_sum=$(sha256sum "$PT/mpi_patterns" | cut -d' ' -f1)
tp_check_eq "it records the executable and its sha256 (= sha256sum)" \
	"executable:   $(readlink -f "$PT/mpi_patterns") ($(stat -c %s "$PT/mpi_patterns") bytes, sha256:$exe_sum)" \
	"$(grep '^executable:' <<<"$show")"
tp_check_eq "and the layout: 1 node of 4 ranks" "layout:       1x4" \
	"$(grep '^layout:' <<<"$show")"
json=$("${PROF_CLI[@]}" show --json "${M[@]}" tpalice/ring4 2>&1)
tp_check_eq "show --json carries the same hash" "$exe_sum" \
	"$(python3 -c 'import json,sys; print(json.load(sys.stdin)["executable"]["sha256"])' <<<"$json")"
f=$(find "$ST/tpalice/ring4" -name '*.tpp')
tp_check_eq "its summary has the exe and layout lines" \
	"exe full $(stat -c %s "$PT/mpi_patterns") $exe_sum $(readlink -f "$PT/mpi_patterns")|layout 1x4" \
	"$(grep -E '^(exe|layout) ' "${f%.tpp}.sum" | paste -sd'|')"
tp_check_eq "the stored file belongs to tpalice, 0600" "tpalice 600" "$(stat -c '%U %a' "$f")"
tp_check_eq "and so does its summary (what slurmctld reads)" "tpalice 600" \
	"$(stat -c '%U %a' "${f%.tpp}.sum")"
# The run and its summary: what the store must hold from here on.
f=$(printf '%s\n' "$f" "${f%.tpp}.sum" | sort)

alice_run "$PT/mpi_patterns" abort 10 100 >/dev/null 2>&1
tp_check "an aborted job of tpalice's fails" test $? -ne 0
tp_check_eq "the aborted job added no run" 1 \
	"$("${PROF_CLI[@]}" list "${M[@]}" tpalice/ring4 2>&1 | grep -c '^tpalice/ring4/')"
tp_check_eq "and left no other file in the store" "$f" \
	"$(find "$ST" -type f | sort)"

# A bad TOPOPLACE_PROFILE_KEEP: named, the default kept, the run stored.
out=$(tp_as_user tpalice env TOPOPLACE_PROFILE_KEEP=lots TMPDIR="$PT/alice" \
	OMPI_MCA_plm_rsh_agent=false OMPI_MCA_btl=self,vader \
	TOPOPLACE_PROFILE_STORE="$ST" TOPOPLACE_MUNGE_SOCKET="$D/munged.socket" \
	TOPOPLACE_PROFILE_NAME=keep "$MPIRUN" --oversubscribe -np 2 \
	-x LD_PRELOAD="$PROF_LIB" -x TOPOPLACE_PROFILE_STORE -x TOPOPLACE_MUNGE_SOCKET \
	-x TOPOPLACE_PROFILE_NAME -x TOPOPLACE_PROFILE_KEEP \
	"$PT/mpi_patterns" ring 5 40 2>&1 >/dev/null)
tp_check "a bad TOPOPLACE_PROFILE_KEEP is named" \
	grep -q "topoplace-profiler: TOPOPLACE_PROFILE_KEEP 'lots': not a count 1..100000; keeping 8" <<<"$out"
tp_check_eq "and the run is stored anyway" 1 \
	"$("${PROF_CLI[@]}" list "${M[@]}" tpalice/keep 2>&1 | grep -c '^tpalice/keep/')"
rm -rf "$ST/tpalice/keep"

# An unreachable munged: the job still succeeds, rank 0 says why there is
# no profile (naming the socket), and the store gets nothing new.
out=$(SOCK=$PT/alice/no.socket alice_run "$PT/mpi_patterns" ring 10 40 2>&1 >/dev/null)
tp_check "a bad munge socket does not fail the job" test $? -eq 0
if grep -q "topoplace-profiler: .*munged unreachable at socket $PT/alice/no.socket.*profile not written" <<<"$out"; then
	tp_pass "rank 0 says munged is unreachable, naming the socket"
else
	tp_fail "rank 0 says munged is unreachable, naming the socket" "$out"
fi
tp_check_eq "and nothing was added" "$f" "$(find "$ST" -type f | sort)"

# --- against Open MPI's pml monitoring ---------------------------------------
mon() { # NAME NP ARGS...
	local name=$1 np=$2
	shift 2
	mkdir -p "$PT/$name"
	PROF_MPIRUN_ARGS=(--mca pml_monitoring_enable 2
		--mca pml_monitoring_enable_output 3
		--mca pml_monitoring_filename "$PT/$name/mon")
	prof_run "$np" "$PT/$name" "$@" >/dev/null 2>"$PT/$name.err"
	PROF_MPIRUN_ARGS=()
	ls "$PT/$name"/mon.*.prof >/dev/null 2>&1 ||
		{ tp_fail "$name: monitoring output written" "$(cat "$PT/$name.err")"; return 1; }
	"${PROF_CLI[@]}" import --from ompi -o "$PT/$name.ompi.tpp" "$PT/$name"/mon.*.prof >/dev/null ||
		{ tp_fail "$name: monitoring output imports"; return 1; }
	tp_check_eq "$name: profiler matrix == pml monitoring's (E lines)" \
		"$(prof_matrix "$PT/$name.ompi.tpp")" \
		"$(prof_matrix "$(prof_file "$PT/$name")")"
	tp_check "$name: and it is not empty" test -n "$(prof_matrix "$PT/$name.ompi.tpp")"
}
mon mon-ring 4 "$PT/mpi_patterns" ring 30 1000
mon mon-stencil 8 "$PT/mpi_patterns" stencil 3 6 5 4
# Not persistent requests: Open MPI 4.1's pml monitoring does not count
# MPI_Start (seen here: only the plain Isend of that program showed up).

tp_done
