/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The redaction rules of an upload target, apart from the uploader so that
 * "pstorectl export --redacted" applies them without linking libcurl.
 */

#include "config/config.h"
#include "redact.h"

/*
 * The redaction rules of a target (cfg NULL: the built-in ones): addresses,
 * the hostname, the DMI serial numbers under dmi_dir (NULL:
 * /sys/class/dmi/id) and the target's RedactRegex=. Logs its errors.
 */
int upload_target_redactor(const PstoredTarget *cfg, const char *hostname, const char *dmi_dir,
			   Redactor **ret);
