// SPDX-License-Identifier: GPL-2.0-or-later
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "macro.h"
#include "zlib-util.h"

/* Compresses with the given windowBits: 15 zlib-wrapped, -15 raw (the kernel's). */
static size_t compress_with(const void *in, size_t len, int window_bits, unsigned char *out,
			    size_t cap)
{
	ssize_t n = zlib_deflate_buffer(in, len, window_bits, out, cap);

	cr_assert_gt(n, 0, "zlib_deflate_buffer: %zd", n);
	return (size_t)n;
}

static char text[64 * 1024];

static void fill_text(void)
{
	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = "Kernel panic - not syncing: Fatal exception\n"[i % 44];
}

Test(zlib_util, zlib_and_raw_streams, .init = fill_text)
{
	static unsigned char z[sizeof(text) + 1024];
	const int windows[] = {15, -15};

	for (size_t i = 0; i < ARRAY_SIZE(windows); i++) {
		size_t n = compress_with(text, sizeof(text), windows[i], z, sizeof(z));
		_cleanup_free_ void *out = NULL;
		size_t out_len = 0;

		cr_assert_eq(zlib_inflate_buffer(z, n, sizeof(text), &out, &out_len), 0);
		cr_assert_eq(out_len, sizeof(text));
		cr_assert_eq(memcmp(out, text, sizeof(text)), 0);
		cr_assert_eq(((char *)out)[out_len], '\0');
	}
}

Test(zlib_util, deflate_into_too_small_is_enobufs, .init = fill_text)
{
	unsigned char z[16];

	cr_assert_eq(zlib_deflate_buffer(text, sizeof(text), -15, z, sizeof(z)), -ENOBUFS);
	cr_assert_eq(zlib_deflate_buffer(text, sizeof(text), 99, z, sizeof(z)), -EINVAL);
}

Test(zlib_util, empty_input_stream, .init = fill_text)
{
	unsigned char z[64];
	size_t n = compress_with("", 0, -15, z, sizeof(z));
	_cleanup_free_ void *out = NULL;
	size_t out_len = 1;

	cr_assert_eq(zlib_inflate_buffer(z, n, 100, &out, &out_len), 0);
	cr_assert_eq(out_len, 0);
	cr_assert_str_eq(out, "");
}

Test(zlib_util, over_max_out_is_efbig, .init = fill_text)
{
	static unsigned char z[sizeof(text) + 1024];
	size_t n = compress_with(text, sizeof(text), -15, z, sizeof(z));
	void *out = (void *)1;
	size_t out_len = 7;

	cr_assert_eq(zlib_inflate_buffer(z, n, sizeof(text) - 1, &out, &out_len), -EFBIG);
	cr_assert_eq(out, (void *)1);
	cr_assert_eq(out_len, 7);

	/* Exactly max_out bytes fit. */
	_cleanup_free_ void *ok = NULL;
	cr_assert_eq(zlib_inflate_buffer(z, n, sizeof(text), &ok, &out_len), 0);
	cr_assert_eq(out_len, sizeof(text));
}

Test(zlib_util, head_keeps_what_fits, .init = fill_text)
{
	static unsigned char z[sizeof(text) + 1024];
	const int windows[] = {15, -15};

	for (size_t w = 0; w < ARRAY_SIZE(windows); w++) {
		size_t n = compress_with(text, sizeof(text), windows[w], z, sizeof(z));
		_cleanup_free_ void *cut = NULL, *whole = NULL;
		size_t len = 0;

		cr_assert_eq(zlib_inflate_buffer_head(z, n, 1000, &cut, &len), 1);
		cr_assert_eq(len, 1000);
		cr_assert_eq(memcmp(cut, text, len), 0);
		cr_assert_eq(((char *)cut)[len], '\0');
		cr_assert_eq(zlib_inflate_buffer_head(z, n, sizeof(text), &whole, &len), 0);
		cr_assert_eq(len, sizeof(text));
	}
}

Test(zlib_util, truncated_is_ebadmsg, .init = fill_text)
{
	static unsigned char z[sizeof(text) + 1024];
	const int windows[] = {15, -15};

	for (size_t w = 0; w < ARRAY_SIZE(windows); w++) {
		size_t n = compress_with(text, sizeof(text), windows[w], z, sizeof(z));
		for (size_t cut = 0; cut < n; cut++) {
			void *out = NULL;
			size_t out_len = 0;
			int r = zlib_inflate_buffer(z, cut, sizeof(text), &out, &out_len);
			cr_assert_eq(r, -EBADMSG, "cut at %zu of %zu: %d", cut, n, r);
			cr_assert_null(out);
		}
	}
}

Test(zlib_util, garbage_is_ebadmsg)
{
	const unsigned char junk[] = {0xff, 0xff, 0xff, 0xff, 0x13, 0x37, 0x00, 0x01};
	void *out = NULL;
	size_t out_len = 0;

	cr_assert_eq(zlib_inflate_buffer(junk, sizeof(junk), 4096, &out, &out_len), -EBADMSG);
	cr_assert_null(out);
	cr_assert_eq(zlib_inflate_buffer(NULL, 0, 4096, &out, &out_len), -EBADMSG);
	cr_assert_eq(zlib_inflate_buffer(NULL, 1, 4096, &out, &out_len), -EINVAL);
}
