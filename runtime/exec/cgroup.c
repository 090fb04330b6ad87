/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cgroup.c: the memory cgroups of runs (see cgroup.h): finding this
 * process's own memory cgroup through /proc/self/cgroup and
 * /proc/self/mountinfo, making a sandbox's cgroup and one leaf per run,
 * reading the OOM kills back, and removing what a killed maxcode left.
 */
#include "mc_setup.h"
#include "cgroup.h"
#include "alloc.h"
#include "buf.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>

#define SMALL_FILE    4096   /* bytes read of a cgroup file */
#define RMDIR_TRIES   50     /* a leaf whose last process is exiting */
#define RMDIR_WAIT_US 20000  /* ... is tried again after this */

/* The controller (v1) or tree (v2) this process's memory cgroup is in:
 * from /proc/self/cgroup, its path in the hierarchy into PATH. */
static int
own_path(int v2, struct mc_buf *path)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int found = 0;

    if (!f)
        return 0;
    while (!found && (n = getline(&line, &cap, f)) > 0) {
        char *ctl = strchr(line, ':'), *p;

        if (line[n - 1] == '\n')
            line[n - 1] = '\0';
        p = ctl ? strchr(ctl + 1, ':') : NULL;
        if (!p)
            continue;
        *p++ = '\0';
        ctl++;
        if (v2) {
            found = !strcmp(line, "0") && !*ctl;
        } else {
            const char *c;

            for (c = ctl; *c && !found; c += strcspn(c, ","),
                 c += *c == ',')
                found = !strncmp(c, "memory", 6) &&
                        (c[6] == ',' || !c[6]);
        }
        if (found)
            mc_buf_adds(path, p);
    }
    free(line);
    fclose(f);
    return found && !mc_buf_status(path);
}

/* Undo mountinfo's octal escapes (\040 for a space) in S, in place. */
static void
unescape(char *s)
{
    char *o = s;

    for (; *s; s++) {
        if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
            s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
            *o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
                          (s[3] - '0'));
            s += 3;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
}

/* Split LINE in place at spaces (and the newline) into at most MAX
 * fields, into FIELD; how many. */
static size_t
split(char *line, char **field, size_t max)
{
    size_t n = 0;

    while (n < max) {
        line += strspn(line, " \n");
        if (!*line)
            break;
        field[n++] = line;
        line += strcspn(line, " \n");
        if (*line)
            *line++ = '\0';
    }
    return n;
}

/*
 * The directory of the cgroup PATH (in the hierarchy) as mounted: a
 * mount of the v1 memory controller, or of the v2 tree, whose root is
 * PATH or above it. Into DIR; 0 when there is none. A mountinfo line:
 *   ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE
 *   SOURCE SUPER-OPTIONS
 */
static int
mounted_at(int v2, const char *path, struct mc_buf *dir)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    char *line = NULL;
    size_t cap = 0;
    int found = 0;

    if (!f)
        return 0;
    while (!found && getline(&line, &cap, f) > 0) {
        char *field[6], *tail[3], *dash = strstr(line, " - ");
        size_t rootlen;

        if (!dash)
            continue;
        *dash = '\0';
        if (split(dash + 3, tail, 3) < 3 ||
            strcmp(tail[0], v2 ? "cgroup2" : "cgroup"))
            continue;
        if (!v2) {
            const char *c;
            int mem = 0;

            for (c = tail[2]; *c && !mem; c += strcspn(c, ","),
                 c += *c == ',')
                mem = !strncmp(c, "memory", 6) && (c[6] == ',' || !c[6]);
            if (!mem)
                continue;
        }
        if (split(line, field, 6) < 5)
            continue;
        unescape(field[3]);
        unescape(field[4]);
        rootlen = strcmp(field[3], "/") ? strlen(field[3]) : 0;
        if (strncmp(path, field[3], rootlen) ||
            (path[rootlen] && path[rootlen] != '/'))
            continue;
        mc_buf_reset(dir);
        mc_buf_adds(dir, field[4]);
        if (path[rootlen] && strcmp(path + rootlen, "/"))
            mc_buf_adds(dir, path + rootlen);
        found = !mc_buf_status(dir);
    }
    free(line);
    fclose(f);
    return found;
}

/* Up to CAP - 1 bytes of the small file PATH into BUF, NUL-ended; the
 * count, or -1. */
static ssize_t
read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    ssize_t n;

    if (fd < 0)
        return -1;
    n = read(fd, buf, cap - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return n;
}

/* Write TEXT into the file NAME of the cgroup directory DIR; 0, or -1
 * with errno (ENOENT: the file is not there). */
static int
write_file(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX];
    size_t len = strlen(text);
    int fd, ok;

    if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
        sizeof(path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    ok = write(fd, text, len) == (ssize_t)len;
    if (!ok) {
        int e = errno;

        close(fd);
        errno = e;
        return -1;
    }
    return close(fd);
}

/* Whether the space-separated list in the file NAME of DIR holds WORD. */
static int
file_lists(const char *dir, const char *name, const char *word)
{
    char path[PATH_MAX], buf[SMALL_FILE];
    const char *p;
    size_t n = strlen(word);

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (read_small(path, buf, sizeof(buf)) < 0)
        return 0;
    for (p = buf; (p = strstr(p, word)) != NULL; p += n)
        if ((p == buf || p[-1] == ' ') &&
            (p[n] == ' ' || p[n] == '\n' || !p[n]))
            return 1;
    return 0;
}

/*
 * This process's own memory cgroup directory, where children may be
 * made, into DIR, and *V2; 0 when there is none (WHY, of WHYLEN bytes,
 * says why). The v1 memory hierarchy is preferred: where both exist (a
 * hybrid layout), the v2 tree has no memory controller.
 */
static int
find_own(struct mc_buf *dir, int *v2, char *why, size_t whylen)
{
    struct mc_buf path = MC_BUF_INIT;
    int ok = 0;

    for (*v2 = 0; *v2 < 2 && !ok; ++*v2) {
        mc_buf_reset(&path);
        ok = own_path(*v2, &path) && mounted_at(*v2, path.s, dir);
        if (ok && *v2 && !file_lists(dir->s, "cgroup.controllers",
                                     "memory"))
            ok = 0; /* a v2 tree without the memory controller here */
    }
    --*v2;
    if (!ok)
        snprintf(why, whylen, "no memory controller mounted here");
    /* v2: children get memory.max only when the controller is enabled
     * for them (a tree delegated to us, or one we may change). */
    if (ok && *v2 && !file_lists(dir->s, "cgroup.subtree_control",
                                 "memory") &&
        write_file(dir->s, "cgroup.subtree_control", "+memory")) {
        snprintf(why, whylen, "the cgroup v2 tree at %s does not delegate "
                 "the memory controller (%s)", dir->s, strerror(errno));
        ok = 0;
    }
    mc_buf_release(&path);
    return ok;
}

/* Kill what is left in the leaf DIR (its cgroup.procs lists it) and
 * remove it, waiting a little for processes that are exiting. */
static void
remove_leaf(const char *dir)
{
    char path[PATH_MAX], buf[SMALL_FILE];
    int i;

    for (i = 0; i < RMDIR_TRIES; i++) {
        const char *p;

        if (!rmdir(dir) || errno == ENOENT)
            return;
        if (errno != EBUSY)
            return;
        snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
        if (read_small(path, buf, sizeof(buf)) > 0)
            for (p = buf; *p; p += strcspn(p, "\n"), p += *p == '\n')
                if (atol(p) > 0)
                    kill((pid_t)atol(p), SIGKILL);
        usleep(RMDIR_WAIT_US);
    }
}

/* Remove the sandbox cgroup DIR: its leaves, then itself. */
static void
remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;

    while (d && (de = readdir(d)) != NULL) {
        char leaf[PATH_MAX];

        /* Leaves are directories; a cgroup's files cannot be removed. */
        if (de->d_type != DT_DIR || de->d_name[0] == '.')
            continue;
        if ((size_t)snprintf(leaf, sizeof(leaf), "%s/%s", dir,
                             de->d_name) < sizeof(leaf))
            remove_leaf(leaf);
    }
    if (d)
        closedir(d);
    remove_leaf(dir);
}

void
mc_cgroup_init(struct mc_cgroup *cg, const char *name,
               unsigned long long limit)
{
    struct mc_buf dir = MC_BUF_INIT;
    struct mc_cgroup_run probe = {NULL, -1};
    struct mc_err err = MC_ERR_INIT;

    memset(cg, 0, sizeof(*cg));
    if (getenv("MAXCODE_NO_CGROUP")) {
        snprintf(cg->why, sizeof(cg->why), "MAXCODE_NO_CGROUP is set");
        return;
    }
    if (!find_own(&dir, &cg->v2, cg->why, sizeof(cg->why)))
        goto out;
    mc_buf_addf(&dir, "/%s", name);
    if (mc_buf_status(&dir)) {
        snprintf(cg->why, sizeof(cg->why), "out of memory");
        goto out;
    }
    if (mkdir(dir.s, 0755)) {
        snprintf(cg->why, sizeof(cg->why), "cannot make a cgroup in the "
                 "memory controller: %s", strerror(errno));
        goto out;
    }
    if (cg->v2 && write_file(dir.s, "cgroup.subtree_control", "+memory")) {
        snprintf(cg->why, sizeof(cg->why), "cannot enable the memory "
                 "controller in %s: %s", dir.s, strerror(errno));
        remove_leaf(dir.s);
        goto out;
    }
    cg->dir = mc_buf_detach(&dir, NULL);
    /* Only claim the cgroup where a limit can be set in it. */
    if (mc_cgroup_run_begin(cg, limit, &probe, &err)) {
        snprintf(cg->why, sizeof(cg->why), "%s", err.msg);
        remove_tree(cg->dir);
        mc_free(cg->dir);
        cg->dir = NULL;
        goto out;
    }
    mc_cgroup_run_end(cg, &probe);
    cg->serial = 0;
out:
    mc_buf_release(&dir);
}

void
mc_cgroup_release(struct mc_cgroup *cg)
{
    if (cg->dir)
        remove_tree(cg->dir);
    mc_free(cg->dir);
    memset(cg, 0, sizeof(*cg));
}

enum mc_code
mc_cgroup_run_begin(struct mc_cgroup *cg, unsigned long long limit,
                    struct mc_cgroup_run *run, struct mc_err *err)
{
    struct mc_buf leaf = MC_BUF_INIT;
    char text[32];
    const char *what = NULL;

    run->path = NULL;
    run->procs_fd = -1;
    mc_buf_addf(&leaf, "%s/run-%06u", cg->dir, ++cg->serial);
    if (mc_buf_status(&leaf))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    if (mkdir(leaf.s, 0755)) {
        enum mc_code rc = mc_err_set(err, MC_EIO, "cannot make the run's "
                                     "cgroup '%s': %s", leaf.s,
                                     strerror(errno));
        mc_buf_release(&leaf);
        return rc;
    }
    snprintf(text, sizeof(text), "%llu", limit);
    if (cg->v2) {
        if (write_file(leaf.s, "memory.max", text))
            what = "memory.max";
        /* Absent where swap is not accounted: then there is none. */
        else if (write_file(leaf.s, "memory.swap.max", "0") &&
                 errno != ENOENT)
            what = "memory.swap.max";
        else if (write_file(leaf.s, "memory.oom.group", "1") &&
                 errno != ENOENT)
            what = "memory.oom.group";
    } else {
        /* The limit first: memsw may not be set below it. */
        if (write_file(leaf.s, "memory.limit_in_bytes", text))
            what = "memory.limit_in_bytes";
        else if (write_file(leaf.s, "memory.memsw.limit_in_bytes", text) &&
                 errno != ENOENT)
            what = "memory.memsw.limit_in_bytes";
        else
            /* The OOM killer on, whatever the parent says. */
            (void)write_file(leaf.s, "memory.oom_control", "0");
    }
    if (!what) {
        mc_buf_adds(&leaf, "/cgroup.procs");
        run->procs_fd = mc_buf_status(&leaf)
                            ? -1
                            : open(leaf.s, O_WRONLY | O_CLOEXEC);
        leaf.s[leaf.len - strlen("/cgroup.procs")] = '\0';
        leaf.len -= strlen("/cgroup.procs");
        if (run->procs_fd < 0)
            what = "cgroup.procs";
    }
    if (what) {
        enum mc_code rc = mc_err_set(err, MC_EIO, "cannot set up the run's "
                                     "cgroup: %s/%s: %s", leaf.s, what,
                                     strerror(errno));
        remove_leaf(leaf.s);
        mc_buf_release(&leaf);
        return rc;
    }
    run->path = mc_buf_detach(&leaf, NULL);
    return MC_OK;
}

int
mc_cgroup_enter(int procs_fd)
{
    return write(procs_fd, "0", 1) == 1 ? 0 : -1;
}

/* The number after "KEY " in the lines of TEXT, or -1. */
static long
field(const char *text, const char *key)
{
    const char *p;
    size_t n = strlen(key);

    for (p = text; *p; p += strcspn(p, "\n"), p += *p == '\n')
        if (!strncmp(p, key, n) && p[n] == ' ')
            return atol(p + n + 1);
    return -1;
}

int
mc_cgroup_run_end(struct mc_cgroup *cg, struct mc_cgroup_run *run)
{
    char path[PATH_MAX], buf[SMALL_FILE];
    long kills = 0;

    if (run->procs_fd >= 0)
        close(run->procs_fd);
    if (run->path) {
        snprintf(path, sizeof(path), "%s/%s", run->path,
                 cg->v2 ? "memory.events" : "memory.oom_control");
        if (read_small(path, buf, sizeof(buf)) > 0)
            kills = field(buf, "oom_kill");
        /* v1 counts kills since Linux 4.13; memory.failcnt counts
         * reclaim at the limit too, not only kills, so is no sign. */
        remove_leaf(run->path);
    }
    mc_free(run->path);
    run->path = NULL;
    run->procs_fd = -1;
    return kills > 0 ? (int)kills : 0;
}

void
mc_cgroup_sweep(int (*stale)(const char *name, void *ctx), void *ctx)
{
    struct mc_buf own = MC_BUF_INIT;
    char why[200];
    DIR *d;
    struct dirent *de;
    int v2;

    if (getenv("MAXCODE_NO_CGROUP") ||
        !find_own(&own, &v2, why, sizeof(why)))
        goto out;
    d = opendir(own.s);
    while (d && (de = readdir(d)) != NULL) {
        char dir[PATH_MAX];

        if (de->d_type != DT_DIR ||
            strncmp(de->d_name, MC_CGROUP_PREFIX, strlen(MC_CGROUP_PREFIX))
            || !stale(de->d_name, ctx))
            continue;
        if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", own.s,
                             de->d_name) < sizeof(dir))
            remove_tree(dir);
    }
    if (d)
        closedir(d);
out:
    mc_buf_release(&own);
}
