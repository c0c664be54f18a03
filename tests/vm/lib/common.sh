# tests/vm/lib/common.sh: shared by the host-side harness scripts (sourced, POSIX sh).
VM_DIR=$(cd "$(dirname "$0")" && pwd)
case "$VM_DIR" in */lib) VM_DIR=${VM_DIR%/lib} ;; esac
REPO=$(cd "$VM_DIR/../.." && pwd)
VM_CACHE=${LUND_VM_CACHE:-$REPO/.cache/vm}
mkdir -p "$VM_CACHE"

vm_log() { [ -n "${VM_QUIET:-}" ] || echo "vm: $*" >&2; }
vm_die() { echo "vm: error: $*" >&2; exit 1; }

# Serialise cache builders that may run concurrently (meson runs tests in parallel).
# usage: vm_lock NAME; ... ; (the lock is released when the script exits)
vm_lock() {
	exec 9>"$VM_CACHE/.$1.lock"
	flock 9
}
