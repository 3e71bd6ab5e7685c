// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pstore backend: the kernel's pstore core (fs/pstore) keeps the
 * filesystem, the kmsg dumper and compression; this backend stores its
 * records in ERST. pstore_register() is looked up at load time rather than
 * linked, so that the module also loads on kernels built without a pstore
 * core (and then runs standalone).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/pstore.h>
#include <linux/slab.h>

#include "pstore_erst.h"

static int (*erst_pstore_register)(struct pstore_info *psi);
static void (*erst_pstore_unregister)(struct pstore_info *psi);

/* The records of one pass of the pstore core over the backend. */
static LIST_HEAD(erst_backend_pending);

static int erst_backend_open(struct pstore_info *psi)
{
	int rc;

	rc = erst_fw_read_all(&erst_backend_pending);
	if (rc)
		erst_records_free(&erst_backend_pending);
	return rc;
}

static int erst_backend_close(struct pstore_info *psi)
{
	erst_records_free(&erst_backend_pending);
	return 0;
}

static ssize_t erst_backend_read(struct pstore_record *record)
{
	struct erst_pstore_view view;
	struct erst_record *rec;

	rec = list_first_entry_or_null(&erst_backend_pending, struct erst_record, node);
	if (!rec)
		return 0;

	erst_record_view(rec, &view);
	record->buf = kmemdup(view.payload, view.payload_len, GFP_KERNEL);
	if (!record->buf)
		return -ENOMEM;
	record->id = rec->id;
	record->type = view.type;
	record->compressed = view.compressed;
	record->time.tv_sec = view.time;
	record->time.tv_nsec = 0;
	list_del(&rec->node);
	kfree(rec);
	return view.payload_len;
}

/* The dump (pstore's oops count) whose write last found ERST full. */
static int erst_backend_nospc_dump = -1;

static int erst_backend_write(struct pstore_record *record)
{
	int rc;

	rc = erst_pstore_write(record->type, record->compressed, record->buf, record->size,
			       &record->id);
	/* the pstore core writes each part of a dump even after one failed: count the dump once */
	if (rc == -ENOSPC && record->count != erst_backend_nospc_dump) {
		erst_backend_nospc_dump = record->count;
		WRITE_ONCE(erst_nospc_dumps, erst_nospc_dumps + 1);
	}
	return rc;
}

static int erst_backend_erase(struct pstore_record *record)
{
	return erst_fw_clear(record->id);
}

static struct pstore_info erst_psinfo = {
	.owner = THIS_MODULE,
	.name = PSTORE_ERST_BACKEND,
	.flags = PSTORE_FLAGS_DMESG,
	.open = erst_backend_open,
	.close = erst_backend_close,
	.read = erst_backend_read,
	.write = erst_backend_write,
	.erase = erst_backend_erase,
};

/* Whether the running kernel has a pstore core to register with. */
bool erst_backend_available(void)
{
	if (!__symbol_get("pstore_register"))
		return false;
	__symbol_put("pstore_register");
	return true;
}

int erst_backend_init(void)
{
	int rc;

	erst_pstore_register = __symbol_get("pstore_register");
	erst_pstore_unregister = __symbol_get("pstore_unregister");
	if (!erst_pstore_register || !erst_pstore_unregister) {
		pr_err("the kernel has no pstore core (CONFIG_PSTORE): load with mode=standalone\n");
		rc = -ENOENT;
		goto out_put;
	}

	erst_psinfo.bufsize = erst_pstore_payload_max();
	erst_psinfo.buf = kmalloc(erst_psinfo.bufsize, GFP_KERNEL);
	if (!erst_psinfo.buf) {
		rc = -ENOMEM;
		goto out_put;
	}
	spin_lock_init(&erst_psinfo.buf_lock);
	/*
	 * The pstore core dumps again at the emergency restart that ends a
	 * panic (panic=N) and cannot tell it from a first emergency: keep to
	 * panics and oopses, as the kernel's own ERST backend does.
	 */
	erst_psinfo.max_reason = erst_record_shutdown ? KMSG_DUMP_SHUTDOWN : KMSG_DUMP_OOPS;

	rc = erst_pstore_register(&erst_psinfo);
	if (rc == -EPERM) {
		pr_err("pstore refused backend '%s': the kernel command line names another one in pstore.backend=\n",
		       erst_psinfo.name);
		goto out_free;
	}
	if (rc) {
		pr_err("pstore refused backend '%s' (%d): another backend is registered (see /sys/module/pstore/parameters/backend); load with mode=standalone to use a filesystem of this module's own\n",
		       erst_psinfo.name, rc);
		goto out_free;
	}
	pr_info("registered as pstore backend '%s' (%zu bytes per record)\n", erst_psinfo.name,
		erst_psinfo.bufsize);
	return 0;

out_free:
	kfree(erst_psinfo.buf);
	erst_psinfo.buf = NULL;
out_put:
	if (erst_pstore_register)
		__symbol_put("pstore_register");
	if (erst_pstore_unregister)
		__symbol_put("pstore_unregister");
	erst_pstore_register = NULL;
	erst_pstore_unregister = NULL;
	return rc;
}

void erst_backend_exit(void)
{
	erst_pstore_unregister(&erst_psinfo);
	kfree(erst_psinfo.buf);
	erst_psinfo.buf = NULL;
	__symbol_put("pstore_register");
	__symbol_put("pstore_unregister");
}
