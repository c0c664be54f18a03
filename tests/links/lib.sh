# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Helpers shared by the links tests, sourced after RUN is set (or before, as long as RUN is set
# by the time request() runs).

fail=0 checks=0

check() { # DESCRIPTION CONDITION...
        local what=$1
        shift
        checks=$((checks + 1))
        "$@" || { echo "FAIL: $what"; fail=1; }
}

# A request on lund's control socket ($RUN/control), its reply on stdout.
request() { # JSON
        python3 - "$RUN/control" "$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(60)
s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode() + b"\n")
buf = b""
while not buf.endswith(b"\n"):
    d = s.recv(65536)
    if not d:
        break
    buf += d
sys.stdout.write(buf.decode())
PY
}

# Wait until the lund with pid $LUND_PID answers on $RUN/control; exit 1 with its log's tail
# when it does not within 30 s or exits.
wait_lund_ready() { # LOG
        for _ in $(seq 300); do
                [ -S "$RUN/control" ] && request '{"cmd":"status"}' 2> /dev/null |
                        grep -q "\"pid\": *$LUND_PID" && return 0
                kill -0 "$LUND_PID" 2> /dev/null || break
                sleep 0.1
        done
        echo "FAIL: lund did not start"; tail "$1"; exit 1
}

# links_scratch NAME: a scratch directory $TMP; on exit the pids in PIDS are killed and $TMP
# and the tree ($TREE) removed.
links_scratch() {
        TMP=$(mktemp -d "/tmp/$1.XXXXXX")
        PIDS=()
        trap links_cleanup EXIT
}
links_cleanup() {
        for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
        rm -rf "$TMP" "${TREE:-/nonexistent}"
}

# links_tree REPLAY N: a fake tree of N LUs from uevent-replay in $TREE, without the links and
# run directory it ran with (each test makes its own).
links_tree() {
        TREE=$("$1" --lus "$2" --keep 2>/dev/null | sed -n 's/^tree kept: //p')
        # An empty answer is no tree: "$TREE/sys" would be the host's own /sys, and the
        # test would then write (and delete) under the host's /dev, /run and /etc.
        case $TREE in
        /*[!/]*) ;;
        *) echo "FAIL: no tree from $1"; exit 1 ;;
        esac
        [ -d "$TREE/sys" ] || { echo "FAIL: no tree from $1"; exit 1; }
        rm -rf "$TREE/dev/scsi" "$TREE/run"
}

# links_stop_lund: the lund of $LUND_PID still runs and exits 0 on SIGTERM (two checks).
links_stop_lund() {
        check "lund is still running" kill -0 "$LUND_PID"
        kill -TERM "$LUND_PID"
        wait "$LUND_PID"
        check "lund exits 0 ($?)" [ $? = 0 ]
}

# links_done: the test's summary line; exits 1 when a check failed.
links_done() {
        echo "$([ $fail = 0 ] && echo PASS || echo FAIL): $checks checks"
        exit $fail
}
