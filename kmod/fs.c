// SPDX-License-Identifier: GPL-2.0-only
/*
 * The standalone filesystem, in the spirit of the 2011 pstore filesystem:
 * one file per ERST record, named <type>-erst-<id> (with .enc.z when the
 * record holds deflate-compressed dmesg, which this module leaves to user
 * space to inflate), mtime the time the record was written, and unlink()
 * erasing the record from ERST. The records are read when the filesystem
 * is mounted. Mount option kmsg_bytes=N sets how much of the log a dump
 * keeps, like the module parameter of the same name.
 *
 * It is registered under the name given by the fsname parameter, so that it
 * can be mounted next to the kernel's own pstore filesystem.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/kernel.h>
#include <linux/magic.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "pstore_erst.h"

/* What a record file holds: the payload of one record. */
struct erst_fs_entry {
	u64 id;
	size_t len;
	u8 data[];
};

static ssize_t erst_fs_file_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	const struct erst_fs_entry *entry = file_inode(file)->i_private;

	return simple_read_from_buffer(buf, count, ppos, entry->data, entry->len);
}

static const struct file_operations erst_fs_file_operations = {
	.open = simple_open,
	.read = erst_fs_file_read,
	.llseek = default_llseek,
};

/* Erase the record first: the file goes only when the record is gone. */
static int erst_fs_unlink(struct inode *dir, struct dentry *dentry)
{
	const struct erst_fs_entry *entry = d_inode(dentry)->i_private;
	int rc;

	rc = erst_fw_clear(entry->id);
	if (rc && rc != -ENOENT) {
		pr_err("erasing record %#llx failed: %d\n", entry->id, rc);
		return rc;
	}
	return simple_unlink(dir, dentry);
}

static const struct inode_operations erst_fs_dir_inode_operations = {
	.lookup = simple_lookup,
	.unlink = erst_fs_unlink,
};

static void erst_fs_evict_inode(struct inode *inode)
{
	clear_inode(inode);
	kfree(inode->i_private);
}

static int erst_fs_show_options(struct seq_file *m, struct dentry *root)
{
	seq_printf(m, ",kmsg_bytes=%u", READ_ONCE(erst_kmsg_bytes));
	return 0;
}

static const struct super_operations erst_fs_super_operations = {
	.statfs = simple_statfs,
	.drop_inode = generic_delete_inode,
	.evict_inode = erst_fs_evict_inode,
	.show_options = erst_fs_show_options,
};

static struct inode *erst_fs_new_inode(struct super_block *sb, umode_t mode)
{
	struct inode *inode = new_inode(sb);

	if (!inode)
		return NULL;
	inode->i_ino = get_next_ino();
	inode->i_mode = mode;
	inode->i_atime = inode->i_mtime = inode->i_ctime = current_time(inode);
	return inode;
}

static const char *const erst_fs_type_names[] = {
	[PSTORE_TYPE_DMESG] = "dmesg",
	[PSTORE_TYPE_MCE] = "mce",
	[PSTORE_TYPE_MAX] = "unknown",
};

static int erst_fs_add_record(struct dentry *root, const struct erst_record *rec)
{
	struct erst_fs_entry *entry;
	struct erst_pstore_view view;
	struct dentry *dentry;
	struct inode *inode;
	char name[64];

	erst_record_view(rec, &view);
	if (view.type >= ARRAY_SIZE(erst_fs_type_names) || !erst_fs_type_names[view.type])
		view.type = PSTORE_TYPE_MAX;
	snprintf(name, sizeof(name), "%s-%s-%llu%s", erst_fs_type_names[view.type],
		 PSTORE_ERST_BACKEND, rec->id, view.compressed ? ".enc.z" : "");

	entry = kmalloc(struct_size(entry, data, view.payload_len), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	entry->id = rec->id;
	entry->len = view.payload_len;
	memcpy(entry->data, view.payload, view.payload_len);

	inode = erst_fs_new_inode(root->d_sb, S_IFREG | 0444);
	if (!inode) {
		kfree(entry);
		return -ENOMEM;
	}
	inode->i_private = entry;
	inode->i_fop = &erst_fs_file_operations;
	inode->i_size = entry->len;
	if (view.time)
		inode->i_mtime = inode->i_ctime = (struct timespec64){ .tv_sec = view.time };

	dentry = d_alloc_name(root, name);
	if (!dentry) {
		iput(inode);
		return -ENOMEM;
	}
	d_add(dentry, inode);
	return 0;
}

static int erst_fs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct erst_record *rec;
	struct inode *inode;
	LIST_HEAD(records);
	int rc;

	sb->s_maxbytes = MAX_LFS_FILESIZE;
	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	/* the pstore magic: tools that check f_type see a pstore */
	sb->s_magic = PSTOREFS_MAGIC;
	sb->s_op = &erst_fs_super_operations;
	sb->s_time_gran = 1;

	inode = erst_fs_new_inode(sb, S_IFDIR | 0750);
	if (!inode)
		return -ENOMEM;
	inode->i_op = &erst_fs_dir_inode_operations;
	inode->i_fop = &simple_dir_operations;
	inc_nlink(inode);
	sb->s_root = d_make_root(inode);
	if (!sb->s_root)
		return -ENOMEM;

	rc = erst_fw_read_all(&records);
	if (rc) {
		pr_err("reading the records from ERST failed: %d\n", rc);
		goto out;
	}
	inode_lock(d_inode(sb->s_root));
	list_for_each_entry(rec, &records, node) {
		rc = erst_fs_add_record(sb->s_root, rec);
		if (rc)
			break;
	}
	inode_unlock(d_inode(sb->s_root));
out:
	erst_records_free(&records);
	return rc;
}

enum { OPT_KMSG_BYTES };

static const struct fs_parameter_spec erst_fs_parameters[] = {
	fsparam_u32("kmsg_bytes", OPT_KMSG_BYTES),
	{}
};

static int erst_fs_parse_param(struct fs_context *fc, struct fs_parameter *param)
{
	struct fs_parse_result result;
	int opt;

	opt = fs_parse(fc, erst_fs_parameters, param, &result);
	if (opt < 0)
		return opt;
	switch (opt) {
	case OPT_KMSG_BYTES:
		if (!result.uint_32)
			return invalfc(fc, "kmsg_bytes must be greater than 0");
		WRITE_ONCE(erst_kmsg_bytes, result.uint_32);
		break;
	}
	return 0;
}

static int erst_fs_get_tree(struct fs_context *fc)
{
	return get_tree_single(fc, erst_fs_fill_super);
}

/* mount -o remount,kmsg_bytes=N: parse_param did the work */
static int erst_fs_reconfigure(struct fs_context *fc)
{
	return 0;
}

static const struct fs_context_operations erst_fs_context_ops = {
	.parse_param = erst_fs_parse_param,
	.get_tree = erst_fs_get_tree,
	.reconfigure = erst_fs_reconfigure,
};

static int erst_fs_init_fs_context(struct fs_context *fc)
{
	fc->ops = &erst_fs_context_ops;
	return 0;
}

static struct file_system_type erst_fs_type = {
	.owner = THIS_MODULE,
	.init_fs_context = erst_fs_init_fs_context,
	.parameters = erst_fs_parameters,
	.kill_sb = kill_litter_super,
};

int erst_fs_init(const char *fsname)
{
	int rc;

	erst_fs_type.name = fsname;
	rc = register_filesystem(&erst_fs_type);
	if (rc == -EBUSY)
		pr_err("a filesystem named '%s' exists already (the kernel's pstore?): load with fsname=NAME\n",
		       fsname);
	else if (rc)
		pr_err("registering filesystem '%s' failed: %d\n", fsname, rc);
	return rc;
}

void erst_fs_exit(void)
{
	unregister_filesystem(&erst_fs_type);
}
