"""Host side of kernel-udev-stock: save the guest's results for kernel/test.sh (tests/vm/lib)."""
from kernel_results import check  # noqa: F401
