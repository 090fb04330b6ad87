/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * mark.h: maxcode's marks inside a source file (DESIGN §1.3). A
 * '#pragma maxcode optimize' line marks the file for optimization, with
 * the options that follow it; '#pragma maxcode begin' and '#pragma
 * maxcode end' fence the regions that a proposer may change. This module
 * finds the marks, and checks that a candidate left everything outside
 * the fences alone.
 *
 * Grammar. The text is read as logical lines: a physical line that ends
 * in a backslash (before "\n" or "\r\n") goes on into the next one, and
 * the backslash-newline is dropped, as in C's translation phase 2. So a
 * pragma line ends at its first unescaped newline, and a line that
 * continues a #define or a // comment is never taken for a pragma. A
 * logical line is a mark if it reads:
 *
 *   mark      = *BLANK "#" *BLANK "pragma" 1*BLANK "maxcode"
 *               1*BLANK directive *BLANK [comment]
 *   directive = "optimize" *(1*BLANK option)
 *             / "begin"
 *             / "end"
 *   option    = 1*WORDCHAR            ; "KEY=VALUE" once quotes are gone
 *   comment   = "//" ...              ; or a block comment, where an
 *                                     ; option could start
 *   BLANK     = " " / "\t" / "\v" / "\f" / "\r"
 *   WORDCHAR  = any byte but BLANK and NUL; a '"' opens a stretch that
 *               runs to the next '"' and may hold blanks; inside it \" and
 *               \\ stand for '"' and '\'; the quotes themselves go.
 *
 * An option must contain '=' with a non-empty KEY before the first '=':
 * 'args="-n 5"' gives "args=-n 5". Every optimize line counts, and the
 * options accumulate in file order. Fences alternate: each begin is
 * closed by an end before the next begin. Any other '#pragma maxcode
 * WORD' is an error, as is a begin or end line with more than a comment
 * after the word. Lines with "#pragma" inside block comments or string
 * literals are not told apart from real ones.
 */
#ifndef MC_MARK_H
#define MC_MARK_H

#include <stddef.h>
#include "status.h"
#include "strv.h"

struct mc_mark {
    int marked;             /* a '#pragma maxcode optimize' line exists */
    struct mc_strv options; /* "KEY=VALUE" strings, in order */
    size_t n_fences;        /* begin/end pairs */
};

#define MC_MARK_INIT {0, MC_STRV_INIT, 0}

/* Set M up unmarked, with no options and no fences; allocates nothing. */
void mc_mark_init(struct mc_mark *m);

/*
 * Find the marks in the LEN bytes at TEXT (which need not be
 * NUL-terminated and may hold NULs) and store them in M. M is set up
 * afresh without being read, so release it first if it holds an earlier
 * result. On success the caller owns M's contents and frees them with
 * mc_mark_release(). On failure M is left empty (as after mc_mark_init())
 * and ERR says why: MC_ESYNTAX with "LINE: ..." naming the 1-based
 * physical line where the offending logical line starts, for an end
 * without begin, a begin inside a begin, a begin not closed at the end
 * of TEXT, an unknown '#pragma maxcode WORD', a malformed option (no '='
 * or an empty key, or an unterminated quote); or MC_ENOMEM.
 */
enum mc_code mc_mark_scan(const char *text, size_t len, struct mc_mark *m,
                          struct mc_err *err);

/*
 * mc_mark_scan() on the contents of the file at PATH, with M handled the
 * same way. Syntax errors read "PATH:LINE: ...". A file that does not
 * exist is MC_ENOENT, "cannot open 'PATH': No such file or directory";
 * one that cannot be opened or read otherwise is MC_EIO.
 */
enum mc_code mc_mark_scan_file(const char *path, struct mc_mark *m,
                               struct mc_err *err);

/* Free M's contents and leave it as after mc_mark_init(). */
void mc_mark_release(struct mc_mark *m);

/*
 * Check that CAND (CLEN bytes) keeps every byte outside the fences of
 * ORIG (OLEN bytes): the text before the first begin line, between an end
 * line and the next begin line, and after the last end line, the begin
 * and end lines themselves included, must be byte-identical in CAND, and
 * CAND must have the same number of fences. What lies inside a fence may
 * change freely, its number of lines too. If ORIG has no fences, any
 * CAND passes.
 *
 * Returns MC_OK if CAND passes. A violation is MC_EINVAL, with "text
 * outside '#pragma maxcode begin/end' changed at line N", N being the
 * 1-based line of ORIG where the first difference is (for a removed
 * begin or end line, that line). If ORIG itself does not scan, its
 * mc_mark_scan() error is returned (MC_ESYNTAX, "LINE: ..."). MC_ENOMEM
 * if out of memory. Neither text needs to be NUL-terminated.
 */
enum mc_code mc_mark_check_fences(const char *orig, size_t olen,
                                  const char *cand, size_t clen,
                                  struct mc_err *err);

/*
 * Check that CAND keeps every byte of ORIG outside the CUDA kernel NAME
 * (kernel=NAME), or outside every kernel when NAME is NULL (a .cu file
 * without kernel= or fences): the text before a kernel's first line and
 * after the '}' of its body (ctext.h says how a kernel is found) must be
 * byte-identical; signatures and bodies may change. MC_EINVAL when ORIG
 * has no kernel NAME ("the source defines no kernel 'NAME' ..."), when
 * CAND lost it ("kernel 'NAME' is gone") or has another number of
 * kernels ("the kernels changed: ..."), or changed text outside ("text
 * outside kernel 'NAME' changed at line N", "text outside the kernels
 * changed at line N", N a line of ORIG); MC_ENOMEM. With NAME NULL and
 * no kernel in ORIG, any CAND passes.
 */
enum mc_code mc_mark_check_kernel(const char *orig, size_t olen,
                                  const char *cand, size_t clen,
                                  const char *name, struct mc_err *err);

#endif /* MC_MARK_H */
