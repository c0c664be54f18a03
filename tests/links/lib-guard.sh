#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# links_tree with a replay that gives no tree (it crashed, or its temporary directory could
# not be made) fails the test at once: it must not take the host's root for the tree and go
# on to delete the host's /dev/scsi and /run. rm is a function here, so nothing is deleted
# whatever links_tree does.
set -u
. "$(dirname "$0")/lib.sh"
TMP=$(mktemp -d /tmp/lib-guard.XXXXXX)
trap 'command rm -rf "$TMP"' EXIT
fails=0
for replay in false "echo tree kept: " "echo tree kept: /" "echo tree kept: //"; do
        out=$(
                rm() { echo "rm $*" >>"$TMP/rm.log"; }
                links_tree "$replay" 1
                echo "went on with TREE=$TREE"
        )
        rc=$?
        if [ $rc = 1 ] && [ ! -e "$TMP/rm.log" ] && [ "$out" = "FAIL: no tree from $replay" ]; then
                echo "ok: $replay"
        else
                echo "FAIL: $replay: exit $rc, said '$out', $(cat "$TMP/rm.log" 2>/dev/null)"
                fails=$((fails + 1))
        fi
        command rm -f "$TMP/rm.log"
done
[ $fails = 0 ] && echo PASS || exit 1
