/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * PERSISTENT RESERVE IN parameter data (SPC-4 6.16): READ KEYS (service action 00h), READ
 * RESERVATION (01h) and READ FULL STATUS (03h), with the TransportIDs (SPC-4 7.6.4) READ FULL
 * STATUS names each registrant by; and the one question lund asks of them: is this host
 * registered on the LU, does it hold the reservation?
 *
 * Pure: no I/O, no allocation, no logging. Errors: -EBADMSG malformed or truncated (a
 * registrant missing from a truncated list must never look absent), -ENOBUFS a name would not
 * fit the caller's buffer, -EINVAL bad arguments.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* SPC-4 6.16: PRGENERATION (4 bytes) and ADDITIONAL LENGTH (4 bytes) head every response. */
#define PRIN_HEADER_LEN 8
/* The CDB's ALLOCATION LENGTH is 16 bits. */
#define PRIN_ALLOC_MAX 65535
/* SPC-4 6.16.5: 24 bytes of a full status descriptor precede its TransportID. */
#define PRIN_FULL_DESC_LEN 24
/* RFC 3720 3.2.6.1: an iSCSI name is at most 223 bytes. */
#define PRIN_ISCSI_NAME_MAX 223

typedef enum PrinAction {
	PRIN_READ_KEYS = 0x00,
	PRIN_READ_RESERVATION = 0x01,
	PRIN_READ_FULL_STATUS = 0x03,
} PrinAction;

/* SPC-4 7.6.2 table 444, PROTOCOL IDENTIFIER: the ones a TransportID is compared for. */
typedef enum PrinProtocol {
	PRIN_PROTO_FC = 0x0,
	PRIN_PROTO_SRP = 0x4,
	PRIN_PROTO_ISCSI = 0x5,
	PRIN_PROTO_SAS = 0x6,
} PrinProtocol;

/* One initiator port identity of this host, as a TransportID would name it. */
typedef struct PrinIdentity {
	uint8_t protocol;                    /* PrinProtocol */
	uint8_t port[16];                    /* FC: N_Port name (8), SAS: address (8), SRP: 16 */
	char iscsi[PRIN_ISCSI_NAME_MAX + 1]; /* iSCSI: the initiator's iSCSI name */
} PrinIdentity;

/* A TransportID, decoded (SPC-4 7.6.4). */
typedef struct PrinTransportId {
	uint8_t protocol, format;
	uint8_t port[16];                    /* FC, SAS (8 bytes), SRP (16) */
	char iscsi[PRIN_ISCSI_NAME_MAX + 1]; /* iSCSI: the name, without ",i,0x" and the ISID */
} PrinTransportId;

/*
 * prin_response_len() - the bytes the device has to send (8 + ADDITIONAL LENGTH), so that the
 * I/O layer can ask again with more room. Returns 0, -EBADMSG when @len < 8.
 */
int prin_response_len(const uint8_t *buf, size_t len, size_t *ret_len);

/*
 * prin_parse_transport_id() - decode the TransportID of @len bytes at @buf. Protocols other than
 * FC, SRP, SAS and iSCSI decode to their protocol and format only. Returns 0, -EBADMSG (too short
 * for its protocol, an iSCSI name without its terminating NUL, or longer than 223 bytes).
 */
int prin_parse_transport_id(const uint8_t *buf, size_t len, PrinTransportId *ret);

/* prin_transport_id_is() - whether @t names the initiator port @id (iSCSI names: no case). */
bool prin_transport_id_is(const PrinTransportId *t, const PrinIdentity *id);

/*
 * prin_format_transport_id() - "iqn.1993-08.org.debian:01:x", "fc:0x21000024ff5a1b2c",
 * "sas:0x500605b0000272b0", "srp:0x<32 hex>", or "proto-N" into @s of @size bytes. The iSCSI
 * name is printed as sent when every byte is in [A-Za-z0-9.:-], else its bad bytes become "?".
 * Returns 0 or -ENOBUFS.
 */
int prin_format_transport_id(const PrinTransportId *t, char *s, size_t size);

/* What lund knows of an LU's persistent reservations. */
typedef struct PrinStatus {
	uint32_t generation; /* PRGENERATION */
	unsigned n_keys;     /* registered I_T nexuses (READ KEYS entries or descriptors) */
	bool reserved;       /* a persistent reservation exists */
	uint8_t type;        /* its TYPE (SPC-4 table 215) when reserved */
	uint64_t holder_key; /* the holder's key (0 for an all registrants type via READ KEYS) */
	bool holder_known;   /* READ FULL STATUS named the holder (@holder) */
	PrinTransportId holder;
	bool registered_us; /* this host is a registrant */
	bool holder_us;     /* this host holds the reservation (a registrant, for all-reg types) */
	bool full_status;   /* from READ FULL STATUS (else READ KEYS + READ RESERVATION) */
} PrinStatus;

/* Whether reservation @type is an "all registrants" one (7h, 8h): every registrant holds it. */
bool prin_type_all_registrants(uint8_t type);
/* "WE", "EA", "WE-RO", "EA-RO", "WE-AR", "EA-AR", or NULL for a reserved or obsolete type. */
const char *prin_type_name(uint8_t type);

/*
 * prin_parse_full_status() - READ FULL STATUS data into @ret: registrants counted, the holder
 * found, and whether this host (one of @ids, @n_ids; or a registrant whose key is in @keys,
 * @n_keys, the keys the admin configured) is a registrant and the holder. Every descriptor's
 * ADDITIONAL DESCRIPTOR LENGTH is checked against the bytes left before it is stepped over.
 * Returns 0, -EBADMSG (malformed, or ADDITIONAL LENGTH beyond @len: read again with more room).
 */
int prin_parse_full_status(const uint8_t *buf, size_t len, const PrinIdentity *ids, size_t n_ids,
                           const uint64_t *keys, size_t n_keys, PrinStatus *ret);

/*
 * prin_parse_keys_reservation() - READ KEYS data (@kbuf, @klen) and READ RESERVATION data
 * (@rbuf, @rlen) into @ret, for a device without READ FULL STATUS: without TransportIDs, this
 * host is recognised by the configured @keys alone. Returns 0, -EBADMSG.
 */
int prin_parse_keys_reservation(const uint8_t *kbuf, size_t klen, const uint8_t *rbuf, size_t rlen,
                                const uint64_t *keys, size_t n_keys, PrinStatus *ret);

/*
 * prin_describe() - the holder and key count in words, for `lunctl list -o +PR` and the reason
 * an LU was kept: "none", "3 keys, no reservation", "2 keys, WE-RO held by this host",
 * "2 keys, EA held by iqn.x (key 0x1)", "1 key (this host), no reservation". Returns 0 or
 * -ENOBUFS (PRIN_DESCRIBE_MAX is always enough).
 */
#define PRIN_DESCRIBE_MAX 320
int prin_describe(const PrinStatus *st, char *s, size_t size);
