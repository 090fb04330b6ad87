/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * target_int.h: what the target module's files share and nobody else
 * calls: target.c (the options) checks a value with the list expanders
 * of target_resolve.c (files, VPATH, globs), which split lists with
 * target.c's helpers, and target.c frees what the build resolved. Not
 * for other modules: they use target.h.
 */
#ifndef MC_TARGET_INT_H
#define MC_TARGET_INT_H

#include "status.h"
#include "strv.h"

/* Split VALUE at blanks (and at '+' or ',' for lists that are not file
 * names) into OUT. MC_ENOMEM. */
enum mc_code mc_target_split_list(const char *value, const char *seps,
                                  struct mc_strv *out);

/* Whether relative PATH has a ".." component. */
int mc_target_climbs(const char *path);

/* The number of VPATH directories (mc_target_set_vpath()). */
size_t mc_target_vpath_count(void);

/* Expand the globs in VALUE into OUT (sorted, without duplicates), each
 * looked up on VPATH when it matches nothing here. NAME is the option's
 * name, for the messages. Under mc_target_allow_made(), a plain name
 * that is not there goes into OUT and MADE. */
enum mc_code mc_target_expand_globs(const char *name, const char *value,
                                    struct mc_strv *out, struct mc_strv *made,
                                    struct mc_err *err);

/* link=VALUE: the files, found through VPATH, into OUT; each must be a
 * regular file, or under mc_target_allow_made() not there yet (then
 * also in MADE). */
enum mc_code mc_target_check_files(const char *value, struct mc_strv *out,
                                   struct mc_strv *made, struct mc_err *err);

/* files=VALUE: globs of files and directories, each relative to make's
 * directory and inside it, expanded into OUT (sorted, no duplicates).
 * Each match is checked as well as the pattern: ".*" matches "..", and
 * a link may lead anywhere. Under mc_target_allow_made(), a plain name
 * that is not there goes into OUT and MADE. */
enum mc_code mc_target_expand_paths(const char *value, struct mc_strv *out,
                                    struct mc_strv *made,
                                    struct mc_err *err);

struct mc_target;

/* Free T's link_build (mc_target_resolve_build()) and set it NULL. */
void mc_target_link_build_release(struct mc_target *t);

#endif /* MC_TARGET_INT_H */
