/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Big-endian readers for SCSI data. memcpy-based so misaligned device buffers are never cast. */

#include <endian.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t unaligned_read_be16(const void *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return be16toh(v);
}

static inline uint32_t unaligned_read_be32(const void *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

static inline uint64_t unaligned_read_be64(const void *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

static inline void unaligned_write_be16(void *p, uint16_t v)
{
	v = htobe16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void unaligned_write_be32(void *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void unaligned_write_be64(void *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, sizeof(v));
}
