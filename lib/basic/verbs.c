// SPDX-License-Identifier: LGPL-2.1-or-later

#include <errno.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "verbs.h"

int parse_common_option(int c, const char *arg)
{
	switch (c) {
	case ARG_COMMON_VERSION:
		puts(PACKAGE_STRING);
		return 0;
	case ARG_COMMON_LOG_LEVEL:
		return log_set_max_level_from_option(arg) < 0 ? -EINVAL : 1;
	default:
		return -ENOENT;
	}
}

const Verb *verb_find(const Verb verbs[], size_t n_verbs, const char *name)
{
	for (size_t i = 0; i < n_verbs; i++)
		if (name ? streq(verbs[i].name, name) : verbs[i].flags & VERB_DEFAULT)
			return &verbs[i];
	return NULL;
}

int verb_check_args(const Verb *v, int argc)
{
	if (argc == 0)
		return 0;
	if (argc < v->min_args)
		return -EINVAL;
	if (v->max_args != VERB_ANY && argc > v->max_args)
		return -E2BIG;
	return 0;
}

int dispatch_verb(const Verb *v, int argc, char *argv[])
{
	char *name_only[] = {(char *)v->name, NULL};

	if (argc == 0)
		return v->dispatch(1, name_only);
	return v->dispatch(argc, argv);
}

void verbs_print_help(const Verb verbs[], size_t n_verbs, FILE *f)
{
	for (size_t i = 0; i < n_verbs; i++)
		fprintf(f, "  %-22s %s\n", verbs[i].name, verbs[i].help);
}
