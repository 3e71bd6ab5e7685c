// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Symbolization with libdwfl (symbolize.h). Each debug file is opened once, and its function
 * symbols are indexed by name once: a frame names its function, so a lookup is a binary search,
 * not a walk of vmlinux's 130,000 symbols. The index is kept between runs, keyed by the file's
 * build id (symbol-index.c), in $XDG_CACHE_HOME/pstored/symbolize/ (~/.cache when unset, as
 * libdebuginfod's own cache): a warm run then sorts nothing. libdwfl maps the file and reads of
 * its DWARF only the address ranges (.debug_aranges) and the compilation units of the frames.
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
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dlopen-util.h"
#include "elf-note.h"
#include "fs-util.h"
#include "parse-util.h"
#include "symbol-index.h"
#include "symbolize.h"
#include "unaligned.h"

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
	uint64_t file_size;
	void *file_map; /* the whole file, which libdwfl reads */
	unsigned char build_id[ELF_BUILD_ID_MAX];
	int build_id_len;			 /* 0: none, and so no index on disk */
	char build_id_hex[ELF_BUILD_ID_HEX_MAX]; /* the name of its index on disk */
	/* its function symbols by name, in the format of the file on disk */
	SymbolIndex index;
	uint8_t *index_buf;
	bool index_cached; /* read from the disk, not built from the file */
	/* Why no frame of the module is resolved: no file, a wrong one, no line table. */
	char *error;
	bool checked; /* against the sizes of the frames (check_file()) */
} DebugFile;

struct Symbolizer {
	char *release;
	char *cache_dir; /* of the indexes, NULL when there is no home */
	json_t *build_ids;
	char **debug_dirs;
	debuginfod_client *debuginfod;
	const char *fault_function; /* not owned: symbolizer_set_fault_function() */
	SymbolizerProgress progress;
	void *progress_userdata;
	const char *fetching; /* what debuginfod downloads, for progress */
	DebugFile *files;
	size_t n_files;
	/* The sources of the addresses resolved, by "FILE:ADDRESS" (file: index in files): a
	 * trace often holds one return address several times, and the report's and the panic's
	 * traces of one crash the same frames. */
	json_t *resolved;
};

/*
 * libdebuginfod, loaded when a debug file is first looked for by build id, as libdwfl itself
 * loads it: linked, it and libcurl's twenty libraries would load in every run, and it could not
 * be an optional package.
 */
DLSYM_DEFINE(debuginfod_begin);
DLSYM_DEFINE(debuginfod_end);
DLSYM_DEFINE(debuginfod_find_debuginfo);
DLSYM_DEFINE(debuginfod_get_user_data);
DLSYM_DEFINE(debuginfod_set_user_data);
DLSYM_DEFINE(debuginfod_set_progressfn);

static int dlopen_debuginfod(void)
{
	static const DlSymbol symbols[] = {
		DLSYM_ARG(debuginfod_begin),	      DLSYM_ARG(debuginfod_end),
		DLSYM_ARG(debuginfod_find_debuginfo), DLSYM_ARG(debuginfod_get_user_data),
		DLSYM_ARG(debuginfod_set_user_data),  DLSYM_ARG(debuginfod_set_progressfn),
	};
	static void *dl;

	return dlopen_symbols(&dl, "libdebuginfod.so.1", symbols, ARRAY_SIZE(symbols));
}

static char *debuginfo_path = NULL;
static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/*
 * Where the symbol indexes are kept: $XDG_CACHE_HOME/pstored/symbolize, or
 * $HOME/.cache/pstored/symbolize, for root too, as libdebuginfod keeps the debug files they are
 * made of. NULL in *ret when there is neither: the index is then built in every run.
 */
static int cache_directory(char **ret)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && xdg[0] == '/')
		return asprintf(ret, "%s/pstored/symbolize", xdg) < 0 ? -ENOMEM : 0;
	if (home && home[0] == '/')
		return asprintf(ret, "%s/.cache/pstored/symbolize", home) < 0 ? -ENOMEM : 0;
	*ret = NULL;
	return 0;
}

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
	s->resolved = json_object();
	if (!s->resolved || cache_directory(&s->cache_dir) < 0)
		goto oom;
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
		free(f->index_buf);
		free(f->error);
		if (f->dwfl)
			dwfl_end(f->dwfl);
		if (f->file_map)
			munmap(f->file_map, f->file_size);
	}
	free(s->files);
	for (char **d = s->debug_dirs; d && *d; d++)
		free(*d);
	free(s->debug_dirs);
	free(s->release);
	free(s->cache_dir);
	json_decref(s->build_ids);
	json_decref(s->resolved);
	if (s->debuginfod)
		sym_debuginfod_end(s->debuginfod);
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
	Symbolizer *s = sym_debuginfod_get_user_data(c);

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
		const char *urls = getenv("DEBUGINFOD_URLS");

		/* without servers it finds nothing, not even in its cache: not even loaded */
		if (!urls || !*urls)
			return -ENOENT;
		if (dlopen_debuginfod() < 0)
			return -EOPNOTSUPP;
		s->debuginfod = sym_debuginfod_begin();
		if (!s->debuginfod)
			return -ENOMEM;
		sym_debuginfod_set_user_data(s->debuginfod, s);
		if (s->progress)
			sym_debuginfod_set_progressfn(s->debuginfod, debuginfod_progress);
	}
	s->fetching = what;
	return sym_debuginfod_find_debuginfo(s->debuginfod, id, n, ret_path);
}

/* Where the section name lies in f's file: false when there is none. */
static bool find_section(DebugFile *f, const char *name, uint64_t *ret_offset, uint64_t *ret_size)
{
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(f->mod, &bias);
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *s;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS ||
		    shdr.sh_offset > f->file_size || shdr.sh_size > f->file_size - shdr.sh_offset ||
		    !(s = elf_strptr(elf, shstrndx, shdr.sh_name)) || !streq(s, name))
			continue;
		*ret_offset = shdr.sh_offset;
		*ret_size = shdr.sh_size;
		return true;
	}
	return false;
}

/* Asks the kernel to read [offset, offset + size) of f's file now, in large reads. */
static void read_ahead(DebugFile *f, uint64_t offset, uint64_t size)
{
	uint64_t start = offset - offset % (uint64_t)sysconf(_SC_PAGESIZE);

	(void)madvise((uint8_t *)f->file_map + start, offset + size - start, MADV_WILLNEED);
}

static void read_sections_ahead(DebugFile *f, const char *const *names)
{
	uint64_t offset, size;

	for (; *names; names++)
		if (find_section(f, *names, &offset, &size))
			read_ahead(f, offset, size);
}

/*
 * Reads ahead the header of every compilation unit that .debug_aranges names. libdw reads them
 * one after the other on its way to the unit of an address (dwarf_getaranges(), then
 * __libdw_findcu()): a page each, 2,500 in vmlinux, and read one by one each costs the disk's
 * latency. Asked for at once they are read in parallel. An address range set starts
 * with its unit_length (4 bytes, or 0xffffffff and 8 bytes in 64-bit DWARF), a 2-byte version
 * and the offset of its unit in .debug_info (4 or 8 bytes); what is out of bounds ends the walk.
 */
static void read_unit_headers_ahead(DebugFile *f)
{
	uint64_t aranges, aranges_size, info, info_size, off = 0;
	const uint8_t *p;
	Dwarf_Addr bias;
	GElf_Ehdr ehdr;

	if (!gelf_getehdr(dwfl_module_getelf(f->mod, &bias), &ehdr) ||
	    ehdr.e_ident[EI_DATA] != ELFDATA2LSB ||
	    !find_section(f, ".debug_aranges", &aranges, &aranges_size) ||
	    !find_section(f, ".debug_info", &info, &info_size))
		return;
	read_ahead(f, aranges, aranges_size);
	p = (const uint8_t *)f->file_map + aranges;
	while (aranges_size - off >= 4) {
		uint64_t length = unaligned_read_le32(p + off), unit;
		size_t header = 4, offset_size = 4;

		if (length == UINT32_MAX) {
			if (aranges_size - off < 12)
				break;
			length = unaligned_read_le64(p + off + 4);
			header = 12;
			offset_size = 8;
		}
		if (length < 2 + offset_size || length > aranges_size - off - header)
			break;
		unit = offset_size == 8 ? unaligned_read_le64(p + off + header + 2)
					: unaligned_read_le32(p + off + header + 2);
		if (unit < info_size)
			read_ahead(f, info + unit, 1);
		off += header + length;
	}
}

/* Symbol i of f when it is a function symbol (STT_NOTYPE entry points too), defined. */
static bool function_symbol(DebugFile *f, uint32_t i, FunctionSymbol *ret)
{
	GElf_Sym sym;
	GElf_Addr addr;
	GElf_Word section;
	const char *name =
		dwfl_module_getsym_info(f->mod, (int)i, &sym, &addr, &section, NULL, NULL);
	int type = GELF_ST_TYPE(sym.st_info);

	if (!name || !*name || section == SHN_UNDEF || section == (GElf_Word)-1 ||
	    (type != STT_FUNC && type != STT_NOTYPE))
		return false;
	*ret = (FunctionSymbol){
		.name = name, .addr = addr, .size = sym.st_size, .section = section};
	return true;
}

static const char *function_symbol_name(uint32_t i, void *userdata)
{
	FunctionSymbol sym;

	return function_symbol(userdata, i, &sym) ? sym.name : NULL;
}

typedef struct IndexedSymbol {
	FunctionSymbol sym;
	uint32_t index, next;
} IndexedSymbol;

static int compare_by_place(const void *a, const void *b)
{
	const FunctionSymbol *x = &((const IndexedSymbol *)a)->sym,
			     *y = &((const IndexedSymbol *)b)->sym;

	if (x->section != y->section)
		return x->section < y->section ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int compare_by_name(const void *a, const void *b)
{
	const FunctionSymbol *x = &((const IndexedSymbol *)a)->sym,
			     *y = &((const IndexedSymbol *)b)->sym;

	return strcmp(x->name, y->name) ?: (x->addr < y->addr ? -1 : x->addr > y->addr);
}

static SymbolIndexKey index_key(DebugFile *f)
{
	return (SymbolIndexKey){
		.build_id = f->build_id,
		.build_id_len = (size_t)f->build_id_len,
		.file_size = f->file_size,
		.n_symbols = (uint32_t)dwfl_module_getsymtab(f->mod),
	};
}

/* The index of f's function symbols by name, built from its symbol table into f->index_buf. */
static int build_index(DebugFile *f)
{
	SymbolIndexKey key = index_key(f);
	_cleanup_free_ IndexedSymbol *symbols = NULL;
	_cleanup_free_ SymbolIndexEntry *entries = NULL;
	size_t n = 0;

	if ((int)key.n_symbols <= 0)
		return set_error(&f->error, "%s has no symbol table", f->path);
	if (key.n_symbols >= SYMBOL_INDEX_SYMBOLS_MAX)
		return set_error(&f->error, "%s has more than %u symbols", f->path,
				 SYMBOL_INDEX_SYMBOLS_MAX);
	read_sections_ahead(f, (const char *const[]){".symtab", ".strtab", NULL});
	symbols = calloc(key.n_symbols, sizeof(IndexedSymbol));
	entries = calloc(key.n_symbols, sizeof(SymbolIndexEntry));
	if (!symbols || !entries)
		return -ENOMEM;
	for (uint32_t i = 1; i < key.n_symbols; i++)
		if (function_symbol(f, i, &symbols[n].sym))
			symbols[n++].index = i;
	qsort(symbols, n, sizeof(IndexedSymbol), compare_by_place);
	for (size_t i = 0; i < n; i++) {
		symbols[i].next = SYMBOL_INDEX_NONE;
		for (size_t j = i + 1; j < n && symbols[j].sym.section == symbols[i].sym.section;
		     j++)
			if (symbols[j].sym.addr > symbols[i].sym.addr) {
				symbols[i].next = symbols[j].index;
				break;
			}
	}
	qsort(symbols, n, sizeof(IndexedSymbol), compare_by_name);
	for (size_t i = 0; i < n; i++)
		entries[i] =
			(SymbolIndexEntry){.symbol = symbols[i].index, .next = symbols[i].next};
	free(f->index_buf);
	f->index_cached = false;
	f->index_buf = malloc(symbol_index_size(n));
	if (!f->index_buf)
		return -ENOMEM;
	symbol_index_write(&key, entries, n, f->index_buf);
	return symbol_index_parse(f->index_buf, symbol_index_size(n), &key, &f->index);
}

/* f's index from the cache, when one is there and describes f. */
static void load_cached_index(Symbolizer *s, DebugFile *f)
{
	SymbolIndexKey key = index_key(f);
	_cleanup_close_ int dir_fd = -EBADF;
	_cleanup_free_ char *buf = NULL;
	size_t len;

	if (!s->cache_dir || f->build_id_len == 0 || (int)key.n_symbols <= 0)
		return;
	dir_fd = open(s->cache_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* no more than an index of every symbol: a bigger file is not one */
	if (dir_fd < 0 ||
	    read_full_file_at(dir_fd, f->build_id_hex, symbol_index_size(key.n_symbols), &buf,
			      &len) < 0 ||
	    symbol_index_parse((uint8_t *)buf, len, &key, &f->index) < 0)
		return;
	f->index_buf = (uint8_t *)TAKE_PTR(buf);
	f->index_cached = true;
}

/* Keeps f's built index for the next run; a cache that cannot be written is only slower. */
static void save_index(Symbolizer *s, DebugFile *f)
{
	_cleanup_close_ int base_fd = -EBADF, pstored_fd = -EBADF, dir_fd = -EBADF;
	_cleanup_free_ char *base = NULL;

	if (!s->cache_dir || f->build_id_len == 0 || !f->index_buf)
		return;
	/* cache_dir is BASE/pstored/symbolize: BASE may be missing, as XDG allows */
	base = strndup(s->cache_dir, strlen(s->cache_dir) - strlen("/pstored/symbolize"));
	if (!base || (mkdir(base, 0700) < 0 && errno != EEXIST))
		return;
	base_fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (base_fd < 0)
		return;
	pstored_fd = open_mkdir_at(base_fd, "pstored", false, 0700);
	if (pstored_fd < 0)
		return;
	dir_fd = open_mkdir_at(pstored_fd, "symbolize", false, 0700);
	if (dir_fd < 0)
		return;
	/* A cache: after a power cut a torn file is refused by symbol_index_parse(). */
	(void)write_file_atomic_at_nosync(dir_fd, f->build_id_hex, 0600, f->index_buf,
					  symbol_index_size(f->index.n_entries));
}

/* f's index: the cached one, or one built now and then cached. */
static int index_symbols(Symbolizer *s, DebugFile *f)
{
	int r;

	load_cached_index(s, f);
	if (f->index_cached)
		return 0;
	r = build_index(f);
	if (r < 0 || f->error)
		return r;
	save_index(s, f);
	return 0;
}

/* A cached index that is not the file's: replaced by one built from the file. */
static int rebuild_index(Symbolizer *s, DebugFile *f)
{
	int r;

	r = build_index(f);
	if (r < 0 || f->error)
		return r < 0 ? r : -EBADMSG;
	save_index(s, f);
	return 0;
}

static int open_debug_file(Symbolizer *s, DebugFile *f)
{
	const char *want = crash_build_id(s, f->module);
	const char *what = f->module ?: "vmlinux";
	const unsigned char *bits;
	GElf_Addr vaddr;
	Dwarf_Addr bias;
	struct stat st;
	int fd = -1, n, r;

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
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return set_error(&f->error, "cannot read %s: %s", f->path, strerror(-r));
	}
	f->file_size = (uint64_t)st.st_size;
	/* copy-on-write: libdwfl relocates a module's DWARF where it lies */
	f->file_map = st.st_size > 0 ? mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
					    MAP_PRIVATE, fd, 0)
				     : MAP_FAILED;
	r = -errno;
	close(fd);
	if (f->file_map == MAP_FAILED) {
		f->file_map = NULL;
		return set_error(&f->error, "cannot map %s: %s", f->path, strerror(-r));
	}
	/*
	 * Of vmlinux's 600 MB only the header of each compilation unit is read (libdw walks them
	 * to find one), and the units of the frames: readahead around each header would read a
	 * fifth of the file, and fault-around map it, for nothing.
	 */
	(void)madvise(f->file_map, f->file_size, MADV_RANDOM);
	f->dwfl = dwfl_begin(&offline_callbacks);
	if (!f->dwfl)
		return -ENOMEM;
	f->mod = dwfl_report_offline_memory(f->dwfl, what, f->path, f->file_map, f->file_size);
	if (!f->mod)
		return set_error(&f->error, "%s: %s", f->path, dwfl_errmsg(-1));
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (!dwfl_module_getelf(f->mod, &bias))
		return set_error(&f->error, "%s: %s", f->path, dwfl_errmsg(-1));
	n = dwfl_module_build_id(f->mod, &bits, &vaddr);
	if (n > 0 && n <= ELF_BUILD_ID_MAX) {
		memcpy(f->build_id, bits, (size_t)n);
		f->build_id_len = n;
		for (int i = 0; i < n; i++)
			snprintf(f->build_id_hex + 2 * i, 3, "%02x", bits[i]);
	}
	if (want && f->build_id_len > 0 && !streq(f->build_id_hex, want))
		return set_error(&f->error,
				 "%s is another build (build id %s, the crashed %s's is %s)",
				 f->path, f->build_id_hex, what, want);
	read_unit_headers_ahead(f);
	if (!dwfl_module_getdwarf(f->mod, &bias))
		return set_error(&f->error, "%s has no debug information (no line info)", f->path);
	return index_symbols(s, f);
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
 * Entry i of f's index as a symbol with its span, read from the file; false when the index does
 * not describe the file there.
 */
static bool index_symbol(DebugFile *f, size_t i, FunctionSymbol *ret)
{
	SymbolIndexEntry e = symbol_index_entry(&f->index, i);
	FunctionSymbol next;

	if (!function_symbol(f, e.symbol, ret))
		return false;
	if (e.next == SYMBOL_INDEX_NONE)
		return true;
	if (!function_symbol(f, e.next, &next) || next.section != ret->section ||
	    next.addr <= ret->addr)
		return false;
	ret->span = next.addr - ret->addr;
	return true;
}

static int find_in_index(DebugFile *f, const char *function, bool have_size, uint64_t size,
			 FunctionSymbol *ret, FunctionSymbol *ret_any)
{
	size_t first, end;
	int r = symbol_index_find(&f->index, function, function_symbol_name, f, &first, &end);

	if (r <= 0)
		return r;
	for (size_t i = first; i < end; i++) {
		FunctionSymbol sym;

		if (!index_symbol(f, i, &sym))
			return -EBADMSG;
		if (i == first)
			*ret_any = sym;
		if (!have_size || size_matches(&sym, size)) {
			*ret = sym;
			return 1;
		}
	}
	return 0;
}

/*
 * The symbol of function whose size is the log's: among symbols of one name (static functions
 * of different files) the one of that size. Returns 1 and *ret, or 0, with *ret_any a symbol of
 * that name when there is one (ret_any->name NULL if not). The kernel prints as the size the
 * distance to the next symbol (kallsyms), which is st_size unless padding follows. A cached
 * index that misses or does not describe the file is not believed: the lookup is done again on
 * one built from the file.
 */
static int lookup_function(Symbolizer *s, DebugFile *f, const char *function, bool have_size,
			   uint64_t size, FunctionSymbol *ret, FunctionSymbol *ret_any)
{
	int r;

	*ret_any = (FunctionSymbol){};
	r = find_in_index(f, function, have_size, size, ret, ret_any);
	if (r > 0 || (r == 0 && !f->index_cached))
		return r;
	if (r < 0 && r != -EBADMSG)
		return r;
	r = rebuild_index(s, f);
	if (r < 0)
		return r == -EBADMSG ? 0 : r;
	r = find_in_index(f, function, have_size, size, ret, ret_any);
	return r == -EBADMSG ? 0 : r;
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
	if (n > 0) {
		/*
		 * Past the innermost inlined call, dwarf_getscopes() goes on with the scopes of its
		 * abstract definition, not with the calls it is nested in: the chain of DIEs that
		 * holds the innermost scope has them all (as eu-addr2line -i takes them).
		 */
		Dwarf_Die innermost = scopes[0];

		free(TAKE_PTR(scopes));
		n = dwarf_getscopes_die(&innermost, &scopes);
	}
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
static int check_file(Symbolizer *s, DebugFile *f, json_t *frames)
{
	json_t *o;
	size_t i;

	json_array_foreach(frames, i, o) {
		FunctionSymbol sym, any;
		Frame fr;
		int r;

		if (!frame_from_json(o, &fr) || !fr.have_offset ||
		    !(fr.module ? f->module && streq(fr.module, f->module) : !f->module))
			continue;
		r = lookup_function(s, f, fr.function, true, fr.size, &sym, &any);
		if (r < 0)
			return r;
		if (r == 0 && any.name)
			return set_error(&f->error,
					 "%s does not match the crashed kernel: %s is 0x%" PRIx64
					 " bytes there, 0x%" PRIx64 " in the log",
					 f->path, fr.function, any.span ?: any.size, fr.size);
	}
	return 0;
}

static int resolve_frame(Symbolizer *s, json_t *frames, size_t index, json_t **ret)
{
	FunctionSymbol sym, any;
	_cleanup_free_ char *why = NULL;
	char key[64];
	uint64_t addr;
	DebugFile *f;
	json_t *o = NULL;
	bool at_fault;
	Frame fr;
	int r = 0;

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
		r = check_file(s, f, frames);
		if (r < 0)
			return r;
	}
	if (f->error)
		return (*ret = unresolved(f->error)) ? 0 : -ENOMEM;
	r = lookup_function(s, f, fr.function, true, fr.size, &sym, &any);
	if (r < 0)
		return r;
	if (r == 0) {
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
	addr = sym.addr + fr.offset - (!at_fault && fr.offset > 0);
	snprintf(key, sizeof(key), "%zu:%" PRIx64, (size_t)(f - s->files), addr);
	o = json_object_get(s->resolved, key);
	if (o)
		return (*ret = json_deep_copy(o)) ? 0 : -ENOMEM;
	r = resolve_address(f, addr, &o);
	if (r < 0)
		return r;
	if (o && json_object_set(s->resolved, key, o) < 0) {
		json_decref(o);
		return -ENOMEM;
	}
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
