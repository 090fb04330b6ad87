/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tree.h: the files= trees, walked under one rule. A files= entry (a file
 * or a directory inside make's directory) goes into the key and is
 * copied into each run's directory by the privileged parent, so what it
 * may hold is checked in one place, the walk that both use:
 *   - regular files and directories are taken; nothing is opened before
 *     lstat() says what it is, and a file is opened with O_NOFOLLOW and
 *     O_NONBLOCK and checked again with fstat(), so no device, FIFO or
 *     socket is ever opened;
 *   - a symbolic link is taken as a link (never followed) when its
 *     target resolves inside the tree, and is then given as the path
 *     that leads from its directory to that target;
 *   - any other link (outside, dangling, in a loop), a device, a FIFO
 *     or a socket stops the walk with a message that names it;
 *   - directories nest at most MC_TREE_DEPTH_MAX deep.
 * Since links are never followed, a link to "." or to a parent is one
 * entry, not a loop.
 */
#ifndef MC_TREE_H
#define MC_TREE_H

#include "status.h"

#define MC_TREE_DEPTH_MAX 32 /* directories nested under a files= entry */

enum mc_tree_kind {
    MC_TREE_FILE, /* a regular file, open for reading */
    MC_TREE_DIR,  /* a directory, given before what it holds */
    MC_TREE_LINK  /* a symbolic link whose target is inside the tree */
};

struct mc_tree_entry {
    enum mc_tree_kind kind;
    const char *path;      /* ROOT, or ROOT/a/b as walked */
    const char *rel;       /* below ROOT: "" for ROOT itself, "a/b" */
    const struct stat *st; /* fstat() of FILE and DIR, lstat() of LINK */
    int fd;                /* FILE: its descriptor (the walk closes it) */
    const char *target;    /* LINK: the path from its directory to its
                              target, never leaving the tree (".") */
};

/* Called for each entry of a walk, with ARG as given to it. A code other
 * than MC_OK (with ERR filled) stops the walk, which returns it. */
typedef enum mc_code (*mc_tree_fn)(const struct mc_tree_entry *e, void *arg,
                                   struct mc_err *err);

/*
 * Walk ROOT (a file, or a directory and everything under it, each
 * directory's entries in byte order of their names) and call FN for each
 * entry under the rule above. ROOT itself is resolved (it may be a link,
 * checked by its caller to lead inside make's directory) and must be a
 * regular file or a directory. MC_EINVAL with a message naming the
 * entry for a refused one ("'data/l' is a symbolic link to '/etc/x',
 * outside 'data'", "'data/f' is a FIFO"), MC_EIO when one cannot be
 * read, MC_ENOMEM.
 */
enum mc_code mc_tree_walk(const char *root, mc_tree_fn fn, void *arg,
                          struct mc_err *err);

/*
 * What ST (from lstat() or stat()) is, for messages: "a directory",
 * "a symbolic link", "a FIFO", "a socket", "a character device", "a block
 * device", "a regular file". A constant string.
 */
const char *mc_tree_kind_name(const struct stat *st);

#endif /* MC_TREE_H */
