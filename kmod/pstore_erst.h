/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pstore_erst: an ACPI ERST driver with a pstore backend and a standalone
 * pstore filesystem, for kernels whose own ERST support is disabled
 * (erst_disable) or absent.
 */
#ifndef PSTORE_ERST_H
#define PSTORE_ERST_H

#include <linux/list.h>
#include <linux/pstore.h>
#include <linux/types.h>

#define PSTORE_ERST_BACKEND "erst"

/* erst.c: the firmware interface */
int erst_fw_init(void);
void erst_fw_exit(void);
size_t erst_fw_record_size(void);
ssize_t erst_fw_record_count(void);
int erst_fw_write(int (*fill)(void *buf, size_t size, void *arg), void *arg);
int erst_fw_clear(u64 record_id);

/* One record as read from ERST: the whole CPER record, byte for byte, its header at least. */
struct erst_record {
	struct list_head node;
	u64 id;
	size_t len;
	u8 data[];
};

int erst_fw_read_all(struct list_head *records);
void erst_records_free(struct list_head *records);

/* record.c: pstore records <-> CPER records */
struct erst_pstore_view {
	enum pstore_type_id type; /* PSTORE_TYPE_MAX: unknown, a whole CPER record */
	bool compressed;
	time64_t time;
	const u8 *payload;
	size_t payload_len; /* never 0: the pstore core takes a read() of 0 for the end */
};

void erst_record_view(const struct erst_record *rec, struct erst_pstore_view *view);
size_t erst_pstore_payload_max(void);
int erst_pstore_write(enum pstore_type_id type, bool compressed, const void *payload, size_t len,
		      u64 *ret_id);

/* backend.c: the pstore backend (kernel pstore core) */
bool erst_backend_available(void);
int erst_backend_init(void);
void erst_backend_exit(void);

/* fs.c + dump.c: standalone mode */
int erst_fs_init(const char *fsname);
void erst_fs_exit(void);
int erst_dump_init(void);
void erst_dump_exit(void);

/* main.c: parameters shared by the parts */
extern unsigned int erst_kmsg_bytes;
extern bool erst_record_shutdown;
extern unsigned int erst_timeout_us;
extern unsigned int erst_nospc_dumps;
int erst_max_reason(void);

#endif
