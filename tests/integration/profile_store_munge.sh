#!/bin/bash
# profile_store_munge.sh: the profile store with a real, private munged and
# the real unprivileged users tpalice and tpbob.
#
# Proves: the documented layout (root-owned 0755 store, namespaces made by
# root owned by their user 0700, runs 0600) lets a user sign and store
# profiles in her own namespace and root (slurmctld) read them back
# verified, while no other user can read, create or block her namespace
# or create "site", and a store others can write is refused for writing;
# a stopped munged is reported as unreachable (with its socket), not as a
# bad credential; and every attack is
# refused with its reason: another user's credential (forged or copied),
# a profile replayed under another name, tampering with a fixed digest, a
# flipped bit, an expired credential (munge TTL and max age), a credential
# from another munge key, a file of the wrong owner, a symlink out of the
# store, garbage, truncation, a wrong version, writing another's namespace,
# an unreachable munged.  Then 200 concurrent writers leave no torn file.
#
# Env: abs_top_builddir, abs_top_srcdir (make check); TP_PROFILE_CLI to
# override the command (default: "$abs_top_builddir/tools/topoplace profile").

. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/lib/bed.sh"

((EUID == 0)) || tp_skip "needs root to run commands as tpalice and tpbob"
for c in munged mungekey setpriv python3; do
	command -v "$c" >/dev/null || tp_skip "$c not installed"
done
for u in tpalice tpbob; do
	id "$u" >/dev/null 2>&1 || tp_skip "user $u does not exist"
done

read -r -a CLI <<<"${TP_PROFILE_CLI:-${abs_top_builddir:-.}/tools/topoplace profile}"
[[ -x ${CLI[0]} ]] || tp_skip "${CLI[0]} not built"
src=${abs_top_srcdir:-$(dirname "$0")/../..}

D=$(mktemp -d /tmp/tp-profile-munge.XXXXXX)
chmod 755 "$D"
cleanup() {
	local f pid
	for f in "$D"/munged*.pid; do
		[[ -s $f ]] || continue
		pid=$(cat "$f")
		kill "$pid" 2>/dev/null
		# munged removes its socket and pid file as it exits.
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	done
	rm -rf "$D"
}
trap cleanup EXIT

# start_munged NAME: a private munged with its own key at $D/NAME.socket.
start_munged() {
	mungekey -c -k "$D/$1.key" -b 1024 || return 1
	munged --socket="$D/$1.socket" --key-file="$D/$1.key" \
		--log-file="$D/$1.log" --pid-file="$D/$1.pid" \
		--seed-file="$D/$1.seed" || return 1
	for _ in $(seq 50); do
		[[ -S $D/$1.socket ]] && return 0
		sleep 0.1
	done
	return 1
}
tp_check "private munged starts" start_munged munged || tp_done
tp_check "second munged with another key starts" start_munged munged2 || tp_done

S=$D/store
W=$D/work
mkdir -m 755 "$S"
mkdir -m 1777 "$W"
cp "$src/tests/data/matrices/LULESH-8.txt" "$src/tests/data/matrices/LULESH-8.txt.coll" "$W/"
chmod 644 "$W"/LULESH-8.txt*
M=(--store "$S" --munge-socket "$D/munged.socket")

as() { tp_as_user "$@"; }
prof() { "${CLI[@]}" "$@"; }
# copy_as USER SRC DST: root places a copy owned by USER (attack set-up).
copy_as() { install -o "$1" -m 644 "$2" "$3"; }

# refused NAME PATTERN CMD...: CMD must fail and say PATTERN.
refused() {
	local name=$1 pattern=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if ((rc != 0)) && grep -q -- "$pattern" <<<"$out"; then
		tp_pass "$name"
	else
		tp_fail "$name" "command: $*" "exit status: $rc" \
			"expected a refusal matching: $pattern" "$out"
	fi
}

# Stored run file of NS/NAME (the newest).
newest() { ls "$S/$1" | grep '\.tpp$' | sort | tail -1; }

# --- the store's layout: who may create, read and write what ----------------
tp_check "tpalice imports a real matrix" \
	as tpalice "${CLI[@]}" import --from matrix -o "$W/alice.tpp" "$W/LULESH-8.txt"
refused "before root prepares it, tpalice cannot make her namespace" \
	"mkdir: Permission denied (the namespace is made by root" \
	as tpalice "${CLI[@]}" put "$W/alice.tpp" tpalice/early "${M[@]}"
refused "tpbob cannot create tpalice's namespace in the store" "Permission denied" \
	as tpbob mkdir "$S/tpalice"
refused "tpbob cannot create the site namespace" "Permission denied" \
	as tpbob mkdir "$S/site"
tp_check "root prepares the namespaces of tpalice and tpbob" \
	prof prepare --store "$S" tpalice tpbob
tp_check_eq "tpalice's namespace is hers, 0700" "tpalice 700" "$(stat -c '%U %a' "$S/tpalice")"
tp_check_eq "tpbob's namespace is his, 0700" "tpbob 700" "$(stat -c '%U %a' "$S/tpbob")"
tp_check "prepare is idempotent" prof prepare --store "$S" tpalice

# A 1777 store, as before: tpbob squats tpalice's namespace and "site".
O=$D/open-store
mkdir -m 1777 "$O"
as tpbob mkdir -m 755 "$O/tpalice" "$O/site"
refused "prepare refuses a store others can write" "mode 1777: other users could create" \
	prof prepare --store "$O" tpalice
refused "writing into a store others can write is refused, with the fix" \
	"mode 1777: other users could create or block any user's namespace" \
	as tpalice "${CLI[@]}" put "$W/alice.tpp" tpalice/x --store "$O" \
	--munge-socket "$D/munged.socket"
chmod 755 "$O" # the admin closes it; tpbob's squat is still there
refused "prepare refuses a namespace tpbob made for tpalice, naming him" \
	"$O/tpalice: namespace of uid $(id -u tpalice) is owned by uid $(id -u tpbob) (tpbob): refused" \
	prof prepare --store "$O" tpalice

# --- signing and reading back -------------------------------------------
tp_check "tpalice signs and stores it in her namespace" \
	as tpalice "${CLI[@]}" put "$W/alice.tpp" tpalice/lulesh "${M[@]}"
out=$(prof show "${M[@]}" tpalice/lulesh 2>&1)
tp_check_eq "root reads it back verified" "verified by munge for this store location" \
	"$(sed -n 's/^credential: *//p' <<<"$out")"
tp_check_eq "the stored matrix is exact (LULESH-8 total bytes)" \
	"$(head -1 "$W/LULESH-8.txt" | sed 's/.*total_bytes=\([0-9]*\).*/\1/')" \
	"$(sed -n 's/^matrix: *[0-9]* pairs, \([0-9]*\) bytes.*/\1/p' <<<"$out")"
refused "tpbob cannot read tpalice's profile through the tool" "Permission denied" \
	as tpbob "${CLI[@]}" show "${M[@]}" tpalice/lulesh
refused "tpbob cannot read tpalice's profile file" "Permission denied" \
	as tpbob cat "$S/tpalice/lulesh/$(newest tpalice/lulesh)"
refused "tpbob cannot list tpalice's namespace" "Permission denied" \
	as tpbob ls "$S/tpalice"
st=$(stat -c '%U %a' "$S/tpalice/lulesh/$(newest tpalice/lulesh)")
tp_check_eq "stored file is tpalice's, 0600" "tpalice 600" "$st"
tp_check_eq "its name directory is tpalice's, 0700" "tpalice 700" \
	"$(stat -c '%U %a' "$S/tpalice/lulesh")"

# --- ownership -----------------------------------------------------------
refused "tpbob cannot store into tpalice's namespace" "belongs to uid $(id -u tpalice)" \
	as tpbob "${CLI[@]}" put "$W/alice.tpp" tpalice/lulesh "${M[@]}"
tp_check "tpbob stores his own profile" \
	as tpbob "${CLI[@]}" put "$W/alice.tpp" tpbob/lulesh "${M[@]}"
bobfile=$(newest tpbob/lulesh)
copy_as tpalice "$S/tpbob/lulesh/$bobfile" "$S/tpalice/lulesh/$bobfile"
refused "tpbob's credential copied into tpalice's namespace is refused" \
	"made by uid $(id -u tpbob) (tpbob), but namespace 'tpalice' belongs to uid $(id -u tpalice)" \
	prof verify "${M[@]}" "tpalice/lulesh/$bobfile"
rm -f "$S/tpalice/lulesh/$bobfile"

# A credential tpbob makes for tpalice's place (payload says tpalice/lulesh)
# still carries tpbob's uid: forged.
python3 - "$W/alice.tpp" "$W/forged-payload" <<'EOF'
import hashlib, struct, sys
b = open(sys.argv[1], 'rb').read()
body = struct.unpack_from('<Q', b, 16)[0]
d = hashlib.sha256(b[:32 + body]).hexdigest()
open(sys.argv[2], 'w').write('topoplace-profile-v1 %s tpalice lulesh' % d)
EOF
cred=$(as tpbob munge --socket="$D/munged.socket" --input="$W/forged-payload" 2>&1)
python3 - "$W/alice.tpp" "$W/forged.tpp" "$cred" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read()
body = struct.unpack_from('<Q', b, 16)[0]
end = 32 + body + 32
c = sys.argv[3].encode()
open(sys.argv[2], 'wb').write(b[:end] + struct.pack('<II', len(c), 0) + c)
EOF
chmod 644 "$W/forged.tpp"
as tpalice cp "$W/forged.tpp" "$S/tpalice/lulesh/0000000000000001-00000001-00000001.tpp"
refused "a credential tpbob forged for tpalice/lulesh is refused" \
	"made by uid $(id -u tpbob) (tpbob)" \
	prof verify "${M[@]}" tpalice/lulesh/0000000000000001-00000001-00000001.tpp
rm -f "$S/tpalice/lulesh/0000000000000001-00000001-00000001.tpp"
refused "verify --as refuses it too" "made by uid $(id -u tpbob)" \
	prof verify "${M[@]}" --as tpalice/lulesh "$W/forged.tpp"

# --- replay --------------------------------------------------------------
alicefile=$(newest tpalice/lulesh)
as tpalice mkdir -m 755 -p "$S/tpalice/hpcg"
copy_as tpalice "$S/tpalice/lulesh/$alicefile" "$S/tpalice/hpcg/$alicefile"
refused "tpalice's profile replayed under another name is refused" \
	"made for tpalice/lulesh but the profile is in tpalice/hpcg: replayed" \
	prof verify "${M[@]}" "tpalice/hpcg/$alicefile"
tp_check "root publishes a site profile" prof put "$W/alice.tpp" site/lulesh "${M[@]}"
sitefile=$(newest site/lulesh)
copy_as tpalice "$S/site/lulesh/$sitefile" "$S/tpalice/hpcg/$sitefile"
refused "a site profile replayed into tpalice's namespace is refused" \
	"made by uid 0 (root), but namespace 'tpalice'" \
	prof verify "${M[@]}" "tpalice/hpcg/$sitefile"
refused "tpalice cannot publish site profiles" "belongs to uid 0" \
	as tpalice "${CLI[@]}" put "$W/alice.tpp" site/lulesh "${M[@]}"

# --- tampering and bad files ---------------------------------------------
as tpalice mkdir -m 755 -p "$S/tpalice/bad"
put_bad() { # put_bad FILE NAME: place FILE as tpalice's run NAME
	chmod 644 "$1"
	as tpalice cp "$1" "$S/tpalice/bad/$2"
}
python3 - "$S/tpalice/lulesh/$alicefile" "$W/tampered.tpp" <<'EOF'
import hashlib, struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
body = struct.unpack_from('<Q', b, 16)[0]
first_pair = 32 + 16 + 40 + len(b'LULESH') + 16 + 8
b[first_pair + 8] ^= 0x40            # change entry 0's bytes
b[32 + body:32 + body + 32] = hashlib.sha256(b[:32 + body]).digest()
open(sys.argv[2], 'wb').write(b)
EOF
put_bad "$W/tampered.tpp" 0000000000000002-00000001-00000001.tpp
refused "tampered profile with a recomputed digest is refused" \
	"credential signs another profile.*tampered" \
	prof verify "${M[@]}" tpalice/bad/0000000000000002-00000001-00000001.tpp
python3 -c "
import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[200] ^= 1
open(sys.argv[2], 'wb').write(b)" "$S/tpalice/lulesh/$alicefile" "$W/flipped.tpp"
put_bad "$W/flipped.tpp" 0000000000000003-00000001-00000001.tpp
refused "a flipped bit is a checksum mismatch" "checksum mismatch" \
	prof verify "${M[@]}" tpalice/bad/0000000000000003-00000001-00000001.tpp
head -c 1000 "$S/tpalice/lulesh/$alicefile" >"$W/truncated.tpp"
put_bad "$W/truncated.tpp" 0000000000000004-00000001-00000001.tpp
refused "a truncated profile is refused" "truncated" \
	prof verify "${M[@]}" tpalice/bad/0000000000000004-00000001-00000001.tpp
python3 -c "
import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[8] = 2
open(sys.argv[2], 'wb').write(b)" "$S/tpalice/lulesh/$alicefile" "$W/v2.tpp"
put_bad "$W/v2.tpp" 0000000000000005-00000001-00000001.tpp
refused "a wrong format version is refused" "format version 2\.[0-9]* not supported" \
	prof verify "${M[@]}" tpalice/bad/0000000000000005-00000001-00000001.tpp
head -c 5000 /dev/urandom >"$W/garbage.tpp"
put_bad "$W/garbage.tpp" 0000000000000006-00000001-00000001.tpp
refused "garbage is refused" "not a topoplace profile" \
	prof verify "${M[@]}" tpalice/bad/0000000000000006-00000001-00000001.tpp
cp "$W/alice.tpp" "$W/unsigned.tpp"
put_bad "$W/unsigned.tpp" 0000000000000007-00000001-00000001.tpp
refused "an unsigned profile is refused" "not signed" \
	prof verify "${M[@]}" tpalice/bad/0000000000000007-00000001-00000001.tpp
cp "$S/tpalice/lulesh/$alicefile" "$W/owned.tpp"
put_bad "$W/owned.tpp" 0000000000000008-00000001-00000001.tpp
chown tpbob "$S/tpalice/bad/0000000000000008-00000001-00000001.tpp"
refused "a file not owned by the namespace's owner is refused" \
	"not owned by the namespace's owner" \
	prof verify "${M[@]}" tpalice/bad/0000000000000008-00000001-00000001.tpp
mkdir -m 755 "$W/outside"
cp "$S/tpalice/lulesh/$alicefile" "$W/outside/$alicefile"
as tpalice ln -s "$W/outside/$alicefile" "$S/tpalice/bad/0000000000000009-00000001-00000001.tpp"
refused "a symlink out of the store is refused" "symbolic link" \
	prof verify "${M[@]}" tpalice/bad/0000000000000009-00000001-00000001.tpp
as tpalice ln -s "$W/outside" "$S/tpalice/linked"
refused "a symlinked profile directory is refused" "symbolic link" \
	prof show "${M[@]}" tpalice/linked

# --- expiry and keys -----------------------------------------------------
tp_check "tpalice stores a profile with a 1 s munge TTL" \
	as tpalice "${CLI[@]}" put "$W/alice.tpp" tpalice/short "${M[@]}" --ttl 1
sleep 3
refused "an expired munge credential is refused (strict TTL)" \
	"credential expired (munge TTL 1 s" \
	prof verify "${M[@]}" --max-age 0 tpalice/short
refused "a credential older than --max-age is refused" "max age 2 s" \
	prof verify "${M[@]}" --max-age 2 tpalice/short
tp_check "within the default max age it is accepted" \
	prof verify "${M[@]}" tpalice/short
tp_check "tpalice signs with a munged of another key" \
	as tpalice "${CLI[@]}" put "$W/alice.tpp" tpalice/otherkey \
	--store "$S" --munge-socket "$D/munged2.socket"
refused "a credential of another munge key is refused" \
	"credential refused: munge_decode via $D/munged.socket: " \
	prof verify "${M[@]}" tpalice/otherkey
refused "a munged socket that does not exist is reported as unreachable" \
	"NOT CHECKED: .*credential not checked: munged unreachable at socket $D/nowhere.socket" \
	prof verify --store "$S" --munge-socket "$D/nowhere.socket" tpalice/lulesh

# munged stopped for real: its socket file is gone or refuses connections.
tp_check "a third munged starts" start_munged munged3
tp_check "tpalice stores a profile signed by it" \
	as tpalice "${CLI[@]}" put "$W/alice.tpp" tpalice/stopped \
	--store "$S" --munge-socket "$D/munged3.socket"
kill "$(cat "$D/munged3.pid")"
for _ in $(seq 50); do [[ -e $D/munged3.socket ]] || break; sleep 0.1; done
out=$(prof verify --store "$S" --munge-socket "$D/munged3.socket" tpalice/stopped 2>&1)
rc=$?
tp_check_eq "with munged stopped, verify fails" 1 "$rc"
if grep -q "NOT CHECKED: .*munged unreachable at socket $D/munged3.socket" <<<"$out" &&
	! grep -q "REFUSED\|credential refused" <<<"$out"; then
	tp_pass "with munged stopped, verify says munged is unreachable at its socket, not that the profile is bad"
else
	tp_fail "with munged stopped, verify says munged is unreachable" "$out"
fi
out=$(prof verify --store "$S" --munge-socket "$D/munged3.socket" \
	--as tpalice/stopped "$S/tpalice/stopped/$(newest tpalice/stopped)" 2>&1)
if grep -q "credential not checked: munged unreachable at socket $D/munged3.socket" <<<"$out"; then
	tp_pass "verify --as says the same"
else
	tp_fail "verify --as says munged is unreachable" "$out"
fi

# --- 200 concurrent writers ------------------------------------------------
pids=()
for i in $(seq 200); do
	as tpalice "${CLI[@]}" put "$W/alice.tpp" tpalice/storm "${M[@]}" --keep 5 \
		>"$W/storm.$i.out" 2>&1 &
	pids+=($!)
done
fails=0
for p in "${pids[@]}"; do wait "$p" || fails=$((fails + 1)); done
tp_check_eq "200 concurrent writers all succeed" 0 "$fails"
((fails)) && cat "$W"/storm.*.out | sort | uniq -c | head -5
tp_check_eq "exactly the last 5 runs are kept" 5 \
	"$(prof list --store "$S" tpalice/storm | wc -l)"
tp_check "every kept run verifies" prof verify "${M[@]}" tpalice/storm
tp_check_eq "no temporary file is left (only runs and their summaries)" "" \
	"$(ls -A "$S/tpalice/storm" | grep -v '\.tpp$' | grep -v '\.sum$')"
tp_check_eq "each kept run has its summary, and no other is left" \
	"$(ls "$S/tpalice/storm" | grep '\.tpp$' | sed 's/\.tpp$//')" \
	"$(ls "$S/tpalice/storm" | grep '\.sum$' | sed 's/\.sum$//')"
out=$(prof show "${M[@]}" --merged tpalice/storm 2>&1)
tp_check_eq "the merged view averages the 5 runs" "mean of 5 runs" \
	"$(sed -n 's/^merged: *//p' <<<"$out")"

tp_done
