// SPDX-License-Identifier: LGPL-2.1-or-later

#include <errno.h>
#include <stdlib.h>
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

/* The left column of --help: "  -S --since=TIME" padded to this width, then the text. */
#define HELP_COLUMN 25

static bool option_has_short(const OptionSpec *o)
{
	return o->val > 0 && o->val < 0x100;
}

int options_to_getopt(const OptionSpec *const tables[], const char *prefix,
		      struct option **ret_longopts, char **ret_shortopts)
{
	_cleanup_free_ struct option *longopts = NULL;
	_cleanup_free_ char *shortopts = NULL;
	size_t n = 0, k = 0, l = strlen(prefix);

	for (size_t t = 0; tables[t]; t++)
		for (const OptionSpec *o = tables[t]; o->val; o++)
			n++;
	longopts = calloc(n + 1, sizeof(*longopts));
	/* A letter and up to two colons per option. */
	shortopts = malloc(l + 3 * n + 1);
	if (!longopts || !shortopts)
		return -ENOMEM;
	memcpy(shortopts, prefix, l);

	for (size_t t = 0; tables[t]; t++)
		for (const OptionSpec *o = tables[t]; o->val; o++) {
			if (o->name)
				longopts[k++] = (struct option){o->name, o->has_arg, NULL, o->val};
			if (!option_has_short(o))
				continue;
			shortopts[l++] = (char)o->val;
			if (o->has_arg != no_argument)
				shortopts[l++] = ':';
			if (o->has_arg == optional_argument)
				shortopts[l++] = ':';
		}
	shortopts[l] = '\0';

	*ret_longopts = TAKE_PTR(longopts);
	*ret_shortopts = TAKE_PTR(shortopts);
	return 0;
}

void options_print_help(const OptionSpec *table, FILE *f)
{
	for (const OptionSpec *o = table; o->val; o++) {
		int n;

		if (!o->name)
			n = fprintf(f, "  -%c%s%s", o->val, o->arg ? " " : "", o->arg ?: "");
		else if (option_has_short(o))
			n = fprintf(f, "  -%c --%s", o->val, o->name);
		else
			n = fprintf(f, "     --%s", o->name);
		if (o->name && o->has_arg == required_argument)
			n += fprintf(f, "=%s", o->arg);
		else if (o->name && o->has_arg == optional_argument)
			n += fprintf(f, "[=%s]", o->arg);
		/* A long option gets its text on the next line. */
		if (n >= HELP_COLUMN)
			n = fprintf(f, "\n") - 1;
		fprintf(f, "%*s", HELP_COLUMN - n, "");
		for (const char *p = o->help; *p; p++) {
			fputc(*p, f);
			if (*p == '\n')
				fprintf(f, "%*s", HELP_COLUMN, "");
		}
		fputc('\n', f);
	}
}

static const OptionSpec *option_find(const OptionSpec *const tables[], int val)
{
	for (size_t t = 0; tables[t]; t++)
		for (const OptionSpec *o = tables[t]; o->val; o++)
			if (o->val == val)
				return o;
	return NULL;
}

int log_option_error(const OptionSpec *const tables[], char *argv[], const char *verb)
{
	/*
	 * getopt_long() leaves the option's id in optopt (0 for an unknown long option) and a
	 * long option in argv[optind - 1]; a short one may be in the middle of "-abc", which
	 * optind has not passed yet.
	 */
	const OptionSpec *o = optopt ? option_find(tables, optopt) : NULL;
	const char *arg = argv[optind - 1], *prog = program_invocation_short_name;
	const char *space = verb ? " " : "";
	char text[3] = {'-', (char)optopt, '\0'};
	bool given_long = strneq(arg, "--", 2) &&
			  (!optopt || (o && o->name && strneq(arg + 2, o->name, strcspn(arg + 2, "="))));

	verb = verb ?: "";
	if (!given_long)
		arg = text;
	if (!o)
		return log_error_errno(EINVAL, "Unknown option '%s': see '%s%s%s --help'.", arg,
				       prog, space, verb);
	if (o->has_arg == no_argument)
		return log_error_errno(EINVAL, "Option '%.*s' takes no value: see '%s%s%s --help'.",
				       (int)strcspn(arg, "="), arg, prog, space, verb);
	return log_error_errno(EINVAL, "Option '%s' needs a value (%s): see '%s%s%s --help'.",
			       arg, o->arg, prog, space, verb);
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
	for (size_t i = 0; i < n_verbs; i++) {
		int n = fprintf(f, "  %s%s%s", verbs[i].name, verbs[i].args ? " " : "",
				verbs[i].args ?: "");

		fprintf(f, "%*s%s\n", MAX(HELP_COLUMN - n, 1), "", verbs[i].help);
	}
}
