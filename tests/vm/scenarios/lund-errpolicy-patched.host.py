"""Host side of lund-errpolicy-patched: save the guest's iscsi.* results for kernel/test.sh (tests/vm/lib)."""
from kernel_results import check_iscsi as check  # noqa: F401
