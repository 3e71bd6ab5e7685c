/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * glibc's regcomp() copies the operand of a bounded repetition once per count,
 * so nested intervals multiply: "((a{100}){100}){100}" is a million copies and
 * gigabytes of memory; stacked '+' ("a+++...") double each time. Copies of a
 * part that can match the empty string ("a?", "(a|)") cost memory that grows
 * with the square of their number: "((a?){100}){100}" takes 800 MB.
 * regex_check_size() estimates the size of a POSIX extended regular expression
 * with its repetitions expanded, and how many such parts it has, so that such
 * an expression is refused before regcomp() sees it. It also refuses what
 * makes regexec() take exponential time: back-references ("\1", which glibc
 * takes in extended expressions too: "(a*)(b*)(c*)(d*)\4\3\2\1" takes seconds on
 * 3 KB) and adjacent repetition operators.
 */

/* Returns NULL if re can be handed to regcomp(), else why not (static text). */
const char *regex_check_size(const char *re);
