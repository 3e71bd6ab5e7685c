// SPDX-License-Identifier: GPL-2.0-or-later

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>

#include "fs-util.h"
#include "log.h"
#include "macro.h"
#include "redact.h"

static int add_dmi_serials(UploadRedactor *r, const char *dmi_dir)
{
	static const char *const files[] = {"product_serial", "board_serial", "chassis_serial",
					    "product_uuid"};
	_cleanup_close_ int dir_fd = -1;
	int k;

	dir_fd = open(dmi_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		return 0; /* no DMI (not x86, or no sysfs): nothing to redact */

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		_cleanup_free_ char *value = NULL;
		size_t len;

		if (read_full_file_at(dir_fd, files[i], 4096, &value, &len) < 0)
			continue;
		while (len > 0 && isspace((unsigned char)value[len - 1]))
			value[--len] = '\0';
		k = upload_redactor_add_word(r, value, "[SERIAL]");
		if (k < 0)
			return k;
	}
	return 0;
}

int upload_target_redactor(const PstoredTarget *cfg, const char *hostname, const char *dmi_dir,
			   UploadRedactor **ret)
{
	_cleanup_(upload_redactor_freep) UploadRedactor *r = NULL;
	int k;

	k = upload_redactor_new(&r);
	if (k >= 0 && hostname)
		k = upload_redactor_add_word(r, hostname, "[HOSTNAME]");
	if (k >= 0)
		k = add_dmi_serials(r, dmi_dir ?: "/sys/class/dmi/id");
	for (size_t i = 0; k >= 0 && cfg && i < cfg->n_redact_regex; i++) {
		_cleanup_free_ char *error = NULL;

		k = upload_redactor_add_regex(r, cfg->redact_regex[i], &error);
		if (k == -EINVAL)
			return log_error_errno(k,
					       "[Target.%s] RedactRegex=%s: %s (use a POSIX "
					       "extended regular expression).",
					       cfg->name, cfg->redact_regex[i], error ?: "invalid");
	}
	if (k < 0)
		return log_oom();
	*ret = TAKE_PTR(r);
	return 0;
}
