/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * What the uploader tells of a collector's answer, for the crash's
 * last_error and the progress line (upload.h): the start of the answer's
 * body, where a redirect points, or why there was no answer. Most of it is
 * anyone's text (the collector's, or curl's about it), and the message goes
 * to terminals, logs and crash.json: it is escaped (utf8_escape()). A pure
 * function, for upload.c and the fuzzer (tests/upload/fuzz-upload-answer.c).
 */

#include "http.h"

/* The message for the exchange with url for [Target.target]; NULL when out of memory. */
char *upload_answer_describe(const char *target, const char *url, const UploadHttpResponse *resp);
