/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

/*
 * Opens the pstore directory. With mount_if_needed (the default
 * /sys/fs/pstore), mounts pstore there unless the filesystem mounted there
 * already is pstore (checked by its magic, not by name). Returns 1 and the
 * fd, 0 when there is no pstore to read (logged at info level), or a
 * logged negative errno, the message in *error_message.
 */
int pstore_dir_open(const char *dir, bool mount_if_needed, int *ret_fd, char **error_message);
