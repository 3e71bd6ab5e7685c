// SPDX-License-Identifier: GPL-2.0-or-later

#include <errno.h>
#include <stdlib.h>

#include "log.h"
#include "macro.h"
#include "upload-options.h"

const char *arg_upload_config;
const char *arg_upload_target;
const char *arg_upload_dmi_dir;
bool arg_upload_force;

int handle_upload_config_option(int c, const char *arg)
{
	switch (c) {
	case ARG_UPLOAD_TARGET:
		arg_upload_target = arg;
		return 0;
	case ARG_UPLOAD_CONFIG:
		arg_upload_config = arg;
		return 0;
	case ARG_UPLOAD_DMI_DIR:
		arg_upload_dmi_dir = arg;
		return 0;
	default:
		return -EINVAL;
	}
}

int handle_upload_option(int c, const char *arg)
{
	if (c == ARG_UPLOAD_FORCE) {
		arg_upload_force = true;
		return 0;
	}
	return handle_upload_config_option(c, arg);
}

static const OptionSpec upload_option_table[] = {UPLOAD_CONFIG_OPTIONS, UPLOAD_FORCE_OPTION, {}};

const VerbOptions upload_options = {upload_option_table, NULL, handle_upload_option};

int load_upload_config(PstoredConfig **ret)
{
	PstoredConfig *c = NULL;
	int r;

	r = pstored_config_load_and_log(arg_upload_config, &c, NULL);
	if (r < 0)
		return r;
	if (arg_upload_target && !pstored_config_find_target(c, arg_upload_target)) {
		pstored_config_free(c);
		return log_error_errno(ENOENT, "No [Target.%s] section in %s: see pstored.conf(5).",
				       arg_upload_target, arg_upload_config ?: "the configuration");
	}
	*ret = c;
	return 0;
}
