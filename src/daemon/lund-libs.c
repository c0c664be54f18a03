/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * libsgutils2, dlopen()ed by lund when it first sends a SCSI command, as lunctl does
 * (shared/dlstub.h): most LUs are named from the pages the kernel caches, with no command at
 * all, and the library's mapping was 0.15 MiB of lund's resident set (32 KiB of it private
 * relocations) for nothing. Each function sgio.c calls (io/sgio-libs.h) is a stub here; the
 * lund executable links this file, so the linker's --as-needed leaves libsgutils2 out of its
 * NEEDED entries (tests/install/check-needed keeps it so). Only the executable: the tests that
 * link the daemon's library link libsgutils2 itself.
 */

#include "dlstub.h"
#include "log.h"
#include "sgio-libs.h"

/*
 * A library that cannot be loaded (a broken installation: the package depends on it) is
 * logged once; the commands then fail, where the dynamic loader would have kept lund from
 * starting at all. The stubs return zero without the library: no object to send a command
 * with (construct_scsi_pt_obj() NULL: sgio.c's -ENOMEM), no text for a sense code (sgio.c
 * clears the buffer first); the rest take that object and are never reached. The LUs that
 * need a command go unnamed.
 */
static void lund_dl_failed(const char *soname, const char *error)
{
	log_error("Cannot load %s, no SCSI command will be sent: %s", soname, error);
}

#define DLSTUB_F_sgutils(...) DLSTUB_F(sgutils, __VA_ARGS__)
#define DLSTUB_V_sgutils(...) DLSTUB_V(sgutils, __VA_ARGS__)

DLSTUB_LIBRARY(sgutils, LUND_SGUTILS_SONAME, SGUTILS_FUNCTIONS, lund_dl_failed)
