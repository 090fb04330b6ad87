/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tree.c: the walk of a files= tree under the one rule of tree.h, which
 * the key (target.c) and the copy into a run's directory (sandbox.c)
 * share. Directories are opened relative to their parent's descriptor,
 * with O_NOFOLLOW, so the walk only ever descends through real
 * directories; links are resolved with realpath() and kept or refused,
 * never followed.
 */
#include "mc_setup.h"
#include "tree.h"
#include "alloc.h"
#include "buf.h"
#include "paths.h"
#include "strv.h"

#include <dirent.h>
#include <fcntl.h>

#define OPEN_FILE (O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
#define OPEN_DIR  (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

struct walk {
    mc_tree_fn fn;
    void *arg;
    const char *root;    /* as given */
    char *root_real;     /* its real path (a directory's) */
    struct mc_buf path;  /* ROOT/rel of the entry at hand */
    size_t root_len;     /* strlen(ROOT) */
};

const char *
mc_tree_kind_name(const struct stat *st)
{
    if (S_ISREG(st->st_mode))
        return "a regular file";
    if (S_ISDIR(st->st_mode))
        return "a directory";
    if (S_ISLNK(st->st_mode))
        return "a symbolic link";
    if (S_ISFIFO(st->st_mode))
        return "a FIFO";
    if (S_ISSOCK(st->st_mode))
        return "a socket";
    if (S_ISCHR(st->st_mode))
        return "a character device";
    if (S_ISBLK(st->st_mode))
        return "a block device";
    return "not a regular file";
}

/* The entry at hand's path below ROOT. */
static const char *
rel_of(const struct walk *w)
{
    return w->path.len > w->root_len ? w->path.s + w->root_len + 1 : "";
}

/* MC_EINVAL: the entry at hand, which is ST, is not taken. */
static enum mc_code
refuse_kind(const struct walk *w, const struct stat *st, struct mc_err *err)
{
    return mc_err_set(err, MC_EINVAL, "'%s' is %s: files= takes regular "
                      "files, directories and links inside the tree",
                      w->path.s, mc_tree_kind_name(st));
}

/* Call the walk's function for the entry at hand. */
static enum mc_code
visit(struct walk *w, enum mc_tree_kind kind, const struct stat *st,
      int fd, const char *target, struct mc_err *err)
{
    struct mc_tree_entry e;

    e.kind = kind;
    e.path = w->path.s;
    e.rel = rel_of(w);
    e.st = st;
    e.fd = fd;
    e.target = target;
    return w->fn(&e, w->arg, err);
}

/* The entry at hand, a symbolic link: kept when it leads inside the
 * tree, as the path from its directory to where it leads. */
static enum mc_code
walk_link(struct walk *w, const struct stat *st, struct mc_err *err)
{
    struct mc_buf dir = MC_BUF_INIT;
    char text[PATH_MAX], *real, *target = NULL;
    const char *rel = rel_of(w), *slash = strrchr(rel, '/');
    ssize_t n = readlink(w->path.s, text, sizeof(text) - 1);
    enum mc_code rc = MC_OK;

    text[n > 0 ? n : 0] = '\0';
    real = realpath(w->path.s, NULL);
    if (!real) {
        if (errno == ENOMEM)
            return mc_err_set(err, MC_ENOMEM, "out of memory");
        if (errno == ELOOP)
            return mc_err_set(err, MC_EINVAL, "'%s' is a symbolic link "
                              "in a loop", w->path.s);
        if (errno == ENOENT || errno == ENOTDIR)
            return mc_err_set(err, MC_EINVAL, "'%s' is a dangling "
                              "symbolic link (to '%s')", w->path.s, text);
        return mc_err_set(err, MC_EIO, "cannot resolve '%s': %s",
                          w->path.s, strerror(errno));
    }
    if (!mc_path_beneath(real, w->root_real)) {
        rc = mc_err_set(err, MC_EINVAL, "'%s' is a symbolic link to '%s', "
                        "outside '%s': files= takes links only inside "
                        "the tree", w->path.s, text, w->root);
        goto out;
    }
    /* Its directory's real path: the walk came down real directories. */
    mc_buf_adds(&dir, w->root_real);
    if (slash)
        mc_buf_addf(&dir, "/%.*s", (int)(slash - rel), rel);
    if (mc_buf_status(&dir)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    target = mc_path_relative(dir.s, real);
    if (!target) {
        rc = mc_err_set(err, MC_EINVAL, "'%s': cannot say where this "
                        "symbolic link leads (too deep a path)", w->path.s);
        goto out;
    }
    rc = visit(w, MC_TREE_LINK, st, -1, target, err);
out:
    free(real); /* from realpath() */
    mc_free(target);
    mc_buf_release(&dir);
    return rc;
}

/* The regular file NAME of directory DFD (the entry at hand), which
 * lstat() found to be ST: opened without following a link and without
 * blocking, and checked to be that file still. */
static enum mc_code
walk_file(struct walk *w, int dfd, const char *name, const struct stat *st,
          struct mc_err *err)
{
    struct stat now;
    enum mc_code rc;
    int fd = openat(dfd, name, OPEN_FILE);

    if (fd < 0)
        return mc_err_set(err, MC_EIO, "cannot open '%s': %s", w->path.s,
                          strerror(errno));
    if (fstat(fd, &now) || !S_ISREG(now.st_mode) ||
        now.st_ino != st->st_ino || now.st_dev != st->st_dev)
        rc = mc_err_set(err, MC_EIO, "'%s' changed while it was read",
                        w->path.s);
    else
        rc = visit(w, MC_TREE_FILE, &now, fd, NULL, err);
    close(fd);
    return rc;
}

static int
cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in directory DFD but "." and "..", sorted, into NAMES. */
static enum mc_code
read_names(struct walk *w, int dfd, struct mc_strv *names,
           struct mc_err *err)
{
    struct dirent *de;
    int fd = dup(dfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

    if (!d) {
        if (fd >= 0)
            close(fd);
        return mc_err_set(err, MC_EIO, "cannot read '%s': %s", w->path.s,
                          strerror(errno));
    }
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
            mc_strv_push(names, de->d_name))
            break;
    closedir(d);
    if (mc_strv_status(names))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    if (names->n)
        qsort(names->v, names->n, sizeof(*names->v), cmp_name);
    return MC_OK;
}

static enum mc_code walk_dir(struct walk *w, int dfd, int depth,
                             struct mc_err *err);

/* NAME in directory DFD, at DEPTH. */
static enum mc_code
walk_entry(struct walk *w, int dfd, const char *name, int depth,
           struct mc_err *err)
{
    struct stat st;
    enum mc_code rc;
    int sub;

    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
        return mc_err_set(err, MC_EIO, "cannot stat '%s': %s", w->path.s,
                          strerror(errno));
    if (S_ISREG(st.st_mode))
        return walk_file(w, dfd, name, &st, err);
    if (S_ISLNK(st.st_mode))
        return walk_link(w, &st, err);
    if (!S_ISDIR(st.st_mode))
        return refuse_kind(w, &st, err);
    if (depth > MC_TREE_DEPTH_MAX)
        return mc_err_set(err, MC_EINVAL, "'%s': directories nested too "
                          "deep", w->path.s);
    sub = openat(dfd, name, OPEN_DIR);
    if (sub < 0 || fstat(sub, &st))
        rc = mc_err_set(err, MC_EIO, "cannot read '%s': %s", w->path.s,
                        strerror(errno));
    else if ((rc = visit(w, MC_TREE_DIR, &st, -1, NULL, err)) == MC_OK)
        rc = walk_dir(w, sub, depth, err);
    if (sub >= 0)
        close(sub);
    return rc;
}

/* Everything in directory DFD (the entry at hand), at DEPTH. */
static enum mc_code
walk_dir(struct walk *w, int dfd, int depth, struct mc_err *err)
{
    struct mc_strv names = MC_STRV_INIT;
    size_t len = w->path.len, i;
    enum mc_code rc = read_names(w, dfd, &names, err);

    for (i = 0; !rc && i < names.n; i++) {
        mc_buf_addf(&w->path, "/%s", names.v[i]);
        rc = mc_buf_status(&w->path)
                 ? mc_err_set(err, MC_ENOMEM, "out of memory")
                 : walk_entry(w, dfd, names.v[i], depth + 1, err);
        w->path.len = len; /* back to the directory's path */
        w->path.s[len] = '\0';
    }
    mc_strv_release(&names);
    return rc;
}

enum mc_code
mc_tree_walk(const char *root, mc_tree_fn fn, void *arg,
             struct mc_err *err)
{
    struct walk w;
    struct stat st, now;
    enum mc_code rc = MC_OK;
    int fd = -1;

    memset(&w, 0, sizeof(w));
    w.fn = fn;
    w.arg = arg;
    w.root = root;
    w.root_len = strlen(root);
    mc_buf_init(&w.path);
    if (mc_buf_adds(&w.path, root))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    /* ROOT's own links are resolved: its caller checked where to. */
    if (stat(root, &st)) {
        rc = mc_err_set(err, MC_EIO, "cannot stat '%s': %s", root,
                        strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        rc = refuse_kind(&w, &st, err);
        goto out;
    }
    fd = open(root, S_ISDIR(st.st_mode) ? O_RDONLY | O_DIRECTORY | O_CLOEXEC
                                        : O_RDONLY | O_NONBLOCK |
                                              O_NOCTTY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &now) || now.st_ino != st.st_ino ||
        now.st_dev != st.st_dev) {
        rc = mc_err_set(err, MC_EIO, "cannot open '%s': %s", root,
                        fd < 0 ? strerror(errno) : "it changed");
        goto out;
    }
    if (S_ISREG(now.st_mode)) {
        rc = visit(&w, MC_TREE_FILE, &now, fd, NULL, err);
        goto out;
    }
    w.root_real = realpath(root, NULL);
    if (!w.root_real) {
        rc = mc_err_set(err, MC_EIO, "cannot resolve '%s': %s", root,
                        strerror(errno));
        goto out;
    }
    rc = visit(&w, MC_TREE_DIR, &now, -1, NULL, err);
    if (!rc)
        rc = walk_dir(&w, fd, 0, err);
out:
    if (fd >= 0)
        close(fd);
    free(w.root_real); /* from realpath() */
    mc_buf_release(&w.path);
    return rc;
}
