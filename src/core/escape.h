/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * udev's string encoding helpers, reproduced to behave exactly as systemd v252 does (Debian 12),
 * plus the one escaping lund adds for export safety. Pure: no I/O, no allocation, no logging.
 *
 * Unlike udev, no function here truncates silently: when the output does not fit, the caller
 * gets -ENOBUFS and the output buffer is left untouched, as every ret_* output here. Where
 * udev itself truncates by design (scsi_id hands udev_replace_whitespace() a maximum input length),
 * that limit is an explicit argument.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* udev's allowlist for device node names (v252 allow_listed_char_for_devnode()): ASCII
 * letters and digits, "#+-.:=@_", plus any byte in @extra (may be NULL). */
bool udev_char_allowed(uint8_t c, const char *extra);

/*
 * udev_encode_string() - v252 encode_devnode_name() (ID_VENDOR_ENC, ID_MODEL_ENC): valid UTF-8
 * multi-byte sequences are copied, allowlisted bytes are copied, everything else (including
 * '\\') becomes "\xNN" (lower-case hex). Input ends at @len or at the first NUL.
 * @out, @size: destination, NUL-terminated on success. Returns the output length, or -ENOBUFS.
 */
int udev_encode_string(const uint8_t *s, size_t len, char *out, size_t size);

/*
 * udev_replace_whitespace() - v252 udev_replace_whitespace(@s, @out, @max): skip leading
 * whitespace, drop trailing whitespace, collapse every inner run of whitespace (isspace() in
 * the C locale) into one '_'. At most @max input bytes are read (input also ends at NUL) and
 * at most @max bytes are written; that bound is udev's own and intentional.
 * @size must be >= @max + 1 or the function returns -ENOBUFS without writing.
 * Returns the output length.
 */
int udev_replace_whitespace(const char *s, size_t max, char *out, size_t size);

/*
 * udev_replace_chars() - v252 udev_replace_chars(@s, @extra), in place: keeps allowlisted bytes
 * (plus @extra), "\x" pairs (already-escaped text) and valid UTF-8; replaces whitespace with ' '
 * when @extra contains ' '; everything else becomes '_'. Returns the number of bytes replaced.
 */
size_t udev_replace_chars(char *s, const char *extra);

/*
 * escape_value() - make device-supplied bytes safe for one KEY=VALUE line and for JSON:
 * control bytes (0x00..0x1f, 0x7f) and bytes that are not part of valid UTF-8 become "\xNN";
 * everything else, including '\\', '=' and valid UTF-8, is copied unchanged, so a value the
 * peers print on one valid line is printed identically. Returns the output length (output is
 * NUL-terminated) or -ENOBUFS. Output is at most 4 * @len + 1 bytes.
 */
int escape_value(const uint8_t *s, size_t len, char *out, size_t size);

/* escape_value_needed() - true if escape_value() would change @s. */
bool escape_value_needed(const uint8_t *s, size_t len);
