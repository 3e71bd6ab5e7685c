// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Symbolization with libdwfl (symbolize.h). Each debug file is opened once, and its function
 * symbols are indexed by name once: a frame names its function, so a lookup is a binary search,
 * not a walk of vmlinux's 130,000 symbols.
 */

#include <dirent.h>
#include <dwarf.h>
#include <elfutils/debuginfod.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf-note.h"
#include "parse-util.h"
#include "symbolize.h"

/* What the kernel aligns a module's text to (PAGE_SIZE; 4 KiB on x86, up to 64 KiB on arm64). */
#define MODULE_TEXT_ALIGN (64U * 1024)

/* How deep below a directory a module's .ko is looked for: kernel/drivers/gpu/drm/i915/ is 5. */
#define MODULE_SEARCH_DEPTH 8

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir);

typedef struct FunctionSymbol {
	const char *name; /* in the ELF file's string table */
	GElf_Addr addr;
	uint64_t size; /* st_size */
	/* to the next symbol of the same section, which the kernel prints as the size ("/0x90");
	 * 0 for the last one */
	uint64_t span;
	GElf_Word section;
} FunctionSymbol;

/* The debug file of vmlinux or of one module. */
typedef struct DebugFile {
	char *module; /* NULL for vmlinux */
	char *path;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	FunctionSymbol *symbols; /* by name */
	size_t n_symbols;
	/* Why no frame of the module is resolved: no file, a wrong one, no line table. */
	char *error;
	bool checked; /* against the sizes of the frames (check_file()) */
} DebugFile;

struct Symbolizer {
	char *release;
	json_t *build_ids;
	char **debug_dirs;
	debuginfod_client *debuginfod;
	const char *fault_function; /* not owned: symbolizer_set_fault_function() */
	SymbolizerProgress progress;
	void *progress_userdata;
	const char *fetching; /* what debuginfod downloads, for progress */
	DebugFile *files;
	size_t n_files;
};

static char *debuginfo_path = NULL;
static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

int symbolizer_new(const char *release, json_t *build_ids, char *const *debug_dirs,
		   Symbolizer **ret)
{
	Symbolizer *s = calloc(1, sizeof(*s));
	size_t n = 0;

	if (!s)
		return -ENOMEM;
	while (debug_dirs && debug_dirs[n])
		n++;
	s->debug_dirs = calloc(n + 1, sizeof(char *));
	if (!s->debug_dirs || (release && !(s->release = strdup(release))))
		goto oom;
	for (size_t i = 0; i < n; i++)
		if (!(s->debug_dirs[i] = strdup(debug_dirs[i])))
			goto oom;
	s->build_ids = json_incref(build_ids);
	*ret = s;
	return 0;
oom:
	symbolizer_free(s);
	return -ENOMEM;
}

Symbolizer *symbolizer_free(Symbolizer *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->n_files; i++) {
		DebugFile *f = &s->files[i];

		free(f->module);
		free(f->path);
		free(f->symbols);
		free(f->error);
		if (f->dwfl)
			dwfl_end(f->dwfl);
	}
	free(s->files);
	for (char **d = s->debug_dirs; d && *d; d++)
		free(*d);
	free(s->debug_dirs);
	free(s->release);
	json_decref(s->build_ids);
	if (s->debuginfod)
		debuginfod_end(s->debuginfod);
	free(s);
	return NULL;
}

void symbolizer_set_progress(Symbolizer *s, SymbolizerProgress fn, void *userdata)
{
	s->progress = fn;
	s->progress_userdata = userdata;
}

void symbolizer_set_fault_function(Symbolizer *s, const char *function)
{
	s->fault_function = function;
}

static int debuginfod_progress(debuginfod_client *c, long done, long total)
{
	Symbolizer *s = debuginfod_get_user_data(c);

	s->progress(s->fetching, done, total, s->progress_userdata);
	return 0; /* go on */
}

_printf_(2, 3) static int set_error(char **error, const char *fmt, ...)
{
	va_list ap;
	int n;

	free(*error);
	va_start(ap, fmt);
	n = vasprintf(error, fmt, ap);
	va_end(ap);
	if (n < 0) {
		*error = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The crash's build id of module (NULL: vmlinux), in hex, or NULL. */
static const char *crash_build_id(Symbolizer *s, const char *module)
{
	json_t *v = module ? json_object_get(json_object_get(s->build_ids, "modules"), module)
			   : json_object_get(s->build_ids, "vmlinux");

	return json_string_value(v);
}

/* "file.ko" names module: the kernel writes '-' in module names as '_'. */
static bool ko_names_module(const char *file, const char *module)
{
	size_t n = strlen(module);

	if (strlen(file) != n + 3 || !streq(file + n, ".ko"))
		return false;
	for (size_t i = 0; i < n; i++)
		if (file[i] != module[i] && !(file[i] == '-' && module[i] == '_'))
			return false;
	return true;
}

/* dir/.../MODULE.ko, depth levels down at most; NULL when there is none. */
static char *find_module_file(const char *dir, const char *module, unsigned depth)
{
	_cleanup_(closedirp) DIR *d = opendir(dir);
	struct dirent *de;
	char *found = NULL;

	if (!d)
		return NULL;
	while (!found && (de = readdir(d))) {
		_cleanup_free_ char *path = NULL;

		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&path, "%s/%s", dir, de->d_name) < 0)
			return NULL;
		if (ko_names_module(de->d_name, module) &&
		    (de->d_type == DT_REG || de->d_type == DT_UNKNOWN))
			found = TAKE_PTR(path);
		else if (depth > 0 && de->d_type == DT_DIR)
			found = find_module_file(path, module, depth - 1);
	}
	return found;
}

static char *find_local_file(Symbolizer *s, const char *module)
{
	_cleanup_free_ char *debug_modules = NULL, *modules = NULL;
	char *path;

	for (char **d = s->debug_dirs; *d; d++) {
		if (module) {
			path = find_module_file(*d, module, MODULE_SEARCH_DEPTH);
			if (path)
				return path;
			continue;
		}
		if (s->release && asprintf(&path, "%s/vmlinux-%s", *d, s->release) >= 0) {
			if (access(path, F_OK) == 0)
				return path;
			free(path);
		}
		if (asprintf(&path, "%s/vmlinux", *d) >= 0) {
			if (access(path, F_OK) == 0)
				return path;
			free(path);
		}
	}
	if (!s->release)
		return NULL;
	if (!module) {
		if (asprintf(&path, "/usr/lib/debug/boot/vmlinux-%s", s->release) < 0)
			return NULL;
		if (access(path, F_OK) == 0)
			return path;
		free(path);
		return NULL;
	}
	if (asprintf(&debug_modules, "/usr/lib/debug/lib/modules/%s", s->release) < 0 ||
	    asprintf(&modules, "/lib/modules/%s", s->release) < 0)
		return NULL;
	path = find_module_file(debug_modules, module, MODULE_SEARCH_DEPTH);
	return path ?: find_module_file(modules, module, MODULE_SEARCH_DEPTH);
}

static int hex_to_bytes(const char *hex, unsigned char *bytes, size_t max)
{
	size_t n = strlen(hex) / 2;

	if (n == 0 || n > max || strlen(hex) % 2 != 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -EINVAL;
		bytes[i] = (unsigned char)v;
	}
	return (int)n;
}

/* The debug file of what by build id from debuginfod: its fd and path, or a negative errno. */
static int find_by_build_id(Symbolizer *s, const char *what, const char *hex, char **ret_path)
{
	unsigned char id[ELF_BUILD_ID_MAX];
	int n = hex_to_bytes(hex, id, sizeof(id));

	if (n < 0)
		return n;
	if (!s->debuginfod) {
		s->debuginfod = debuginfod_begin();
		if (!s->debuginfod)
			return -ENOMEM;
		debuginfod_set_user_data(s->debuginfod, s);
		if (s->progress)
			debuginfod_set_progressfn(s->debuginfod, debuginfod_progress);
	}
	s->fetching = what;
	return debuginfod_find_debuginfo(s->debuginfod, id, n, ret_path);
}

static int compare_by_place(const void *a, const void *b)
{
	const FunctionSymbol *x = a, *y = b;

	if (x->section != y->section)
		return x->section < y->section ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int compare_by_name(const void *a, const void *b)
{
	return strcmp(((const FunctionSymbol *)a)->name, ((const FunctionSymbol *)b)->name);
}

/* The function symbols of f, STT_NOTYPE entry points too, by name, with their spans. */
static int index_symbols(DebugFile *f)
{
	int n = dwfl_module_getsymtab(f->mod);

	if (n <= 0)
		return set_error(&f->error, "%s has no symbol table", f->path);
	f->symbols = calloc((size_t)n, sizeof(FunctionSymbol));
	if (!f->symbols)
		return -ENOMEM;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word section;
		const char *name =
			dwfl_module_getsym_info(f->mod, i, &sym, &addr, &section, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || !*name || section == SHN_UNDEF || section == (GElf_Word)-1 ||
		    (type != STT_FUNC && type != STT_NOTYPE))
			continue;
		f->symbols[f->n_symbols++] = (FunctionSymbol){
			.name = name, .addr = addr, .size = sym.st_size, .section = section};
	}
	qsort(f->symbols, f->n_symbols, sizeof(FunctionSymbol), compare_by_place);
	for (size_t i = 0; i < f->n_symbols; i++)
		for (size_t j = i + 1;
		     j < f->n_symbols && f->symbols[j].section == f->symbols[i].section; j++)
			if (f->symbols[j].addr > f->symbols[i].addr) {
				f->symbols[i].span = f->symbols[j].addr - f->symbols[i].addr;
				break;
			}
	qsort(f->symbols, f->n_symbols, sizeof(FunctionSymbol), compare_by_name);
	return 0;
}

static int open_debug_file(Symbolizer *s, DebugFile *f)
{
	const char *want = crash_build_id(s, f->module);
	const char *what = f->module ?: "vmlinux";
	const unsigned char *bits;
	char hex[ELF_BUILD_ID_HEX_MAX] = "";
	GElf_Addr vaddr;
	Dwarf_Addr bias;
	int fd = -1, n;

	if (want) {
		fd = find_by_build_id(s, what, want, &f->path);
		if (fd < 0)
			free(TAKE_PTR(f->path));
	}
	if (fd < 0) {
		f->path = find_local_file(s, f->module);
		if (!f->path)
			return set_error(&f->error,
					 "no debug file for %s %s%s%s (install its debug symbols, "
					 "set DEBUGINFOD_URLS or give --debug-dir=)",
					 what, s->release ?: "of an unknown release",
					 want ? ", build id " : "", want ?: "");
		fd = open(f->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return set_error(&f->error, "cannot open %s: %s", f->path, strerror(errno));
	}
	f->dwfl = dwfl_begin(&offline_callbacks);
	if (!f->dwfl) {
		close(fd);
		return -ENOMEM;
	}
	f->mod = dwfl_report_offline(f->dwfl, what, f->path, fd);
	if (!f->mod) {
		close(fd);
		return set_error(&f->error, "%s: %s", f->path, dwfl_errmsg(-1));
	}
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (!dwfl_module_getelf(f->mod, &bias))
		return set_error(&f->error, "%s: %s", f->path, dwfl_errmsg(-1));
	n = dwfl_module_build_id(f->mod, &bits, &vaddr);
	for (int i = 0; i < n && i < ELF_BUILD_ID_MAX; i++)
		snprintf(hex + 2 * i, 3, "%02x", bits[i]);
	if (want && n > 0 && !streq(hex, want))
		return set_error(&f->error,
				 "%s is another build (build id %s, the crashed %s's is %s)",
				 f->path, hex, what, want);
	if (!dwfl_module_getdwarf(f->mod, &bias))
		return set_error(&f->error, "%s has no debug information (no line info)", f->path);
	return index_symbols(f);
}

static DebugFile *debug_file(Symbolizer *s, const char *module, int *error)
{
	DebugFile *files, *f;

	for (size_t i = 0; i < s->n_files; i++)
		if (module ? s->files[i].module && streq(s->files[i].module, module)
			   : !s->files[i].module)
			return &s->files[i];
	files = reallocarray(s->files, s->n_files + 1, sizeof(DebugFile));
	if (!files) {
		*error = -ENOMEM;
		return NULL;
	}
	s->files = files;
	f = &s->files[s->n_files++];
	*f = (DebugFile){};
	if (module && !(f->module = strdup(module))) {
		*error = -ENOMEM;
		return NULL;
	}
	*error = open_debug_file(s, f);
	return *error < 0 ? NULL : f;
}

/*
 * Whether size is what the kernel prints as the size of sym: the distance to the next symbol
 * (kallsyms), which is st_size unless padding follows. For the last function of a section there
 * is no next symbol: a module's kallsyms count to the end of its text, page-aligned
 * ("crashtest_init+0x38/0x1000" for a function of 0x9e bytes in .init.text), less than a page
 * (of at most MODULE_TEXT_ALIGN) past the function's end.
 */
static bool size_matches(const FunctionSymbol *sym, uint64_t size)
{
	return sym->size == size || sym->span == size ||
	       (sym->span == 0 && size > sym->size && size - sym->size < MODULE_TEXT_ALIGN);
}

/*
 * The symbol of function whose size is the log's: among symbols of one name (static functions
 * of different files) the one of that size; NULL if none.
 */
static const FunctionSymbol *lookup_function(DebugFile *f, const char *function, bool have_size,
					     uint64_t size, const FunctionSymbol **ret_any)
{
	FunctionSymbol key = {.name = function};
	const FunctionSymbol *hit =
		bsearch(&key, f->symbols, f->n_symbols, sizeof(FunctionSymbol), compare_by_name);
	const FunctionSymbol *end = f->symbols + f->n_symbols;

	*ret_any = hit;
	if (!hit)
		return NULL;
	while (hit > f->symbols && streq(hit[-1].name, function))
		hit--;
	for (; hit < end && streq(hit->name, function); hit++)
		if (!have_size || size_matches(hit, size))
			return hit;
	return NULL;
}

typedef struct Frame {
	const char *function, *module;
	bool have_offset;
	uint64_t offset, size;
} Frame;

static bool frame_from_json(json_t *o, Frame *ret)
{
	json_t *offset = json_object_get(o, "offset"), *size = json_object_get(o, "size");

	*ret = (Frame){
		.function = json_string_value(json_object_get(o, "function")),
		.module = json_string_value(json_object_get(o, "module")),
		.have_offset = json_is_integer(offset) && json_is_integer(size) &&
			       json_integer_value(offset) >= 0 && json_integer_value(size) >= 0,
	};
	if (ret->have_offset) {
		ret->offset = (uint64_t)json_integer_value(offset);
		ret->size = (uint64_t)json_integer_value(size);
	}
	return ret->function != NULL;
}

/* file without the compilation directory it lies in */
static const char *relative_to(const char *file, const char *comp_dir)
{
	size_t n = comp_dir ? strlen(comp_dir) : 0;

	if (n > 0 && strncmp(file, comp_dir, n) == 0 && file[n] == '/')
		return file + n + 1;
	return file;
}

static json_t *source_json(const char *function, const char *file, int line, const char *comp_dir)
{
	json_t *o =
		json_pack("{s:s, s:i}", "file", relative_to(file ?: "??", comp_dir), "line", line);

	if (o && function && json_object_set_new(o, "function", json_string(function)) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static const char *die_string(Dwarf_Die *die, unsigned name)
{
	Dwarf_Attribute attr;

	return dwarf_formstring(dwarf_attr_integrate(die, name, &attr));
}

static bool die_number(Dwarf_Die *die, unsigned name, Dwarf_Word *ret)
{
	Dwarf_Attribute attr;

	return dwarf_formudata(dwarf_attr_integrate(die, name, &attr), ret) == 0;
}

/*
 * The source of addr: its line, in the innermost inlined function, and going out through the
 * inlined calls (DW_TAG_inlined_subroutine scopes, innermost first, among lexical blocks), each
 * one's call site, until the function of the frame (DW_TAG_subprogram).
 */
static int resolve_address(DebugFile *f, Dwarf_Addr addr, json_t **ret)
{
	_cleanup_free_ Dwarf_Die *scopes = NULL;
	json_auto_t *inlined = json_array(), *o = NULL;
	Dwfl_Line *l = dwfl_module_getsrc(f->mod, addr);
	Dwarf_Die *cu;
	Dwarf_Files *files = NULL;
	Dwarf_Addr bias;
	const char *file, *comp_dir;
	int line = 0, n;
	size_t n_files = 0;

	if (!inlined)
		return -ENOMEM;
	if (!l)
		return 0;
	file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	comp_dir = dwfl_line_comp_dir(l);
	cu = dwfl_module_addrdie(f->mod, addr, &bias);
	n = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;
	if (cu)
		(void)dwarf_getsrcfiles(cu, &files, &n_files);
	for (int i = 0; i < n && dwarf_tag(&scopes[i]) != DW_TAG_subprogram; i++) {
		Dwarf_Word call_file, call_line;

		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue; /* a lexical block */

		if (json_array_append_new(inlined,
					  source_json(die_string(&scopes[i], DW_AT_name) ?: "??",
						      file, line, comp_dir)) < 0)
			return -ENOMEM;
		if (!die_number(&scopes[i], DW_AT_call_file, &call_file) ||
		    !die_number(&scopes[i], DW_AT_call_line, &call_line) || !files ||
		    call_file >= n_files)
			break;
		file = dwarf_filesrc(files, call_file, NULL, NULL);
		line = (int)call_line;
	}
	o = source_json(NULL, file, line, comp_dir);
	if (!o || json_object_set(o, "inlined", inlined) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(o);
	return 0;
}

static json_t *unresolved(const char *why)
{
	return json_pack("{s:s}", "unresolved", why);
}

/*
 * Checks every frame of f against its symbols, before any is resolved: one function whose size
 * is not the log's means another build, and then no frame of that file is trusted.
 */
static int check_file(DebugFile *f, json_t *frames)
{
	json_t *o;
	size_t i;

	json_array_foreach(frames, i, o) {
		const FunctionSymbol *any;
		Frame fr;

		if (!frame_from_json(o, &fr) || !fr.have_offset ||
		    !(fr.module ? f->module && streq(fr.module, f->module) : !f->module))
			continue;
		if (!lookup_function(f, fr.function, true, fr.size, &any) && any)
			return set_error(&f->error,
					 "%s does not match the crashed kernel: %s is 0x%" PRIx64
					 " bytes there, 0x%" PRIx64 " in the log",
					 f->path, fr.function, any->span ?: any->size, fr.size);
	}
	return 0;
}

static int resolve_frame(Symbolizer *s, json_t *frames, size_t index, json_t **ret)
{
	const FunctionSymbol *sym, *any;
	_cleanup_free_ char *why = NULL;
	DebugFile *f;
	json_t *o = NULL;
	bool at_fault;
	Frame fr;
	int r;

	if (!frame_from_json(json_array_get(frames, index), &fr))
		return (*ret = unresolved("the log names no function")) ? 0 : -ENOMEM;
	if (!fr.have_offset)
		return (*ret = unresolved("the log gives no offset")) ? 0 : -ENOMEM;
	/* past the end: another function's lines (a return address may be at the very end) */
	if (fr.offset > fr.size)
		return (*ret = unresolved("the offset is past the function's end")) ? 0 : -ENOMEM;
	if (fr.module && !kernel_module_name_is_valid(fr.module))
		return (*ret = unresolved("not a module name")) ? 0 : -ENOMEM;
	f = debug_file(s, fr.module, &r);
	if (!f)
		return r;
	if (!f->error && !f->checked) {
		f->checked = true;
		r = check_file(f, frames);
		if (r < 0)
			return r;
	}
	if (f->error)
		return (*ret = unresolved(f->error)) ? 0 : -ENOMEM;
	sym = lookup_function(f, fr.function, true, fr.size, &any);
	if (!sym) {
		if (asprintf(&why, "%s is not in %s", fr.function, f->path) < 0)
			return -ENOMEM;
		return (*ret = unresolved(why)) ? 0 : -ENOMEM;
	}
	/*
	 * A return address is the instruction after the call: one back is in the call. Every frame
	 * is one, but for a first frame in the faulting function: arm64 and RISC-V start the trace
	 * at the pc, where x86 prints the RIP apart and starts the trace at its caller.
	 */
	at_fault = index == 0 && s->fault_function && streq(fr.function, s->fault_function);
	r = resolve_address(f, sym->addr + fr.offset - (!at_fault && fr.offset > 0), &o);
	if (r < 0)
		return r;
	if (!o) {
		if (asprintf(&why, "%s has no line info for %s+0x%" PRIx64, f->path, fr.function,
			     fr.offset) < 0)
			return -ENOMEM;
		return (*ret = unresolved(why)) ? 0 : -ENOMEM;
	}
	*ret = o;
	return 0;
}

int symbolizer_frames(Symbolizer *s, json_t *frames, json_t **ret)
{
	json_auto_t *out = json_array();
	int r;

	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < json_array_size(frames); i++) {
		json_t *o;

		r = resolve_frame(s, frames, i, &o);
		if (r < 0)
			return r;
		if (json_array_append_new(out, o) < 0)
			return -ENOMEM;
	}
	*ret = TAKE_PTR(out);
	return 0;
}
