/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * paths.c: relative paths and the plugin lookup.
 */
#include "mc_setup.h"
#include "paths.h"
#include "alloc.h"
#include "buf.h"

#define PLUGIN_NAME "maxcode.so"
#define MAX_PARTS   64

/* Split absolute PATH into at most MAX_PARTS components in PARTS, pointing
 * into the copy *STORE (freed by the caller). Returns the count or -1. */
static int
split(const char *path, char **store, char *parts[])
{
    char *p, *s;
    int n = 0;

    *store = NULL;
    if (!path || path[0] != '/')
        return -1;
    s = mc_strdup(path);
    if (!s)
        return -1;
    *store = s;
    for (p = s; *p;) {
        char *end;

        while (*p == '/')
            p++;
        if (!*p)
            break;
        end = p + strcspn(p, "/");
        if (*end)
            *end++ = '\0';
        if (strcmp(p, ".")) {
            if (n == MAX_PARTS)
                return -1;
            parts[n++] = p;
        }
        p = end;
    }
    return n;
}

/* The directory mc_path_cwd_pin() read; empty when none is pinned. */
static char pinned_cwd[PATH_MAX];

char *
mc_path_cwd(char *buf, size_t len)
{
    size_t n = strlen(pinned_cwd);

    if (!n)
        return getcwd(buf, len);
    if (n >= len) {
        errno = ERANGE;
        return NULL;
    }
    memcpy(buf, pinned_cwd, n + 1);
    return buf;
}

void
mc_path_cwd_pin(void)
{
    if (!getcwd(pinned_cwd, sizeof(pinned_cwd)))
        pinned_cwd[0] = '\0';
}

int
mc_path_cwd_pinned(void)
{
    return pinned_cwd[0] != '\0';
}

const char *
mc_path_in_dir(const char *path, const char *dir)
{
    size_t n = dir ? strlen(dir) : 0;
    const char *p;

    while (n > 1 && dir[n - 1] == '/')
        n--;
    if (path[0] != '/' || !n || dir[0] != '/' || strncmp(path, dir, n))
        return path;
    p = path + n;
    if (n > 1 && *p != '/')
        return path; /* "/src/px" is not inside "/src/p" */
    for (;;) {
        p += strspn(p, "/");
        if (p[0] != '.' || p[1] != '/')
            break;
        p += 2;
    }
    return *p ? p : path;
}

int
mc_path_beneath(const char *real, const char *dir)
{
    size_t n = strlen(dir);

    while (n > 1 && dir[n - 1] == '/')
        n--;
    return !strncmp(real, dir, n) &&
           (real[n] == '/' || !real[n] || (n == 1 && dir[0] == '/'));
}

char *
mc_path_relative(const char *from, const char *to)
{
    char *fs = NULL, *ts = NULL, *fp[MAX_PARTS], *tp[MAX_PARTS];
    struct mc_buf b = MC_BUF_INIT;
    int nf, nt, common = 0, i;
    char *res = NULL;

    nf = split(from, &fs, fp);
    nt = split(to, &ts, tp);
    if (nf < 0 || nt < 0)
        goto out;
    while (common < nf && common < nt && !strcmp(fp[common], tp[common]))
        common++;
    for (i = common; i < nf; i++)
        mc_buf_adds(&b, b.len ? "/.." : "..");
    for (i = common; i < nt; i++) {
        if (b.len)
            mc_buf_addc(&b, '/');
        mc_buf_adds(&b, tp[i]);
    }
    if (!b.len)
        mc_buf_addc(&b, '.');
    res = mc_buf_detach(&b, NULL);
out:
    mc_buf_release(&b);
    mc_free(fs);
    mc_free(ts);
    return res;
}

enum mc_code
mc_path_exe_dir(char **out, struct mc_err *err)
{
    char *exe = realpath("/proc/self/exe", NULL);
    char *slash;

    *out = NULL;
    if (!exe)
        return mc_err_set(err, MC_EIO, "cannot resolve '/proc/self/exe': %s",
                          strerror(errno));
    slash = strrchr(exe, '/');
    if (slash == exe)
        slash++;
    *slash = '\0';
    *out = mc_strdup(exe);
    free(exe); /* from realpath() */
    return *out ? MC_OK : mc_err_set(err, MC_ENOMEM, "out of memory");
}

/* If DIR/NAME exists as a regular file, set *OUT to its canonical path. */
static enum mc_code
try_candidate(struct mc_buf *tried, const char *dir, const char *rel,
              char **out, struct mc_err *err)
{
    struct mc_buf p = MC_BUF_INIT;
    enum mc_code rc = MC_OK;
    struct stat st;
    char *real;

    mc_buf_adds(&p, dir);
    if (rel)
        mc_buf_addf(&p, "/%s", rel);
    mc_buf_adds(&p, "/" PLUGIN_NAME);
    mc_buf_addf(tried, "%s'%s'", tried->len ? ", " : "", p.s);
    if (mc_buf_status(&p) || mc_buf_status(tried)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    if (stat(p.s, &st) || !S_ISREG(st.st_mode))
        goto out;
    real = realpath(p.s, NULL);
    if (!real)
        goto out;
    *out = mc_strdup(real);
    free(real); /* from realpath() */
    if (!*out)
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
out:
    mc_buf_release(&p);
    return rc;
}

enum mc_code
mc_path_plugin(const char *exe_dir, const char *bindir,
               const char *pkglibdir, char **out, struct mc_err *err)
{
    struct mc_buf tried = MC_BUF_INIT;
    enum mc_code rc;
    char *rel = NULL;

    *out = NULL;
    rc = try_candidate(&tried, exe_dir, "plugin/.libs", out, err);
    if (rc || *out)
        goto out;
    rel = mc_path_relative(bindir, pkglibdir);
    if (rel) {
        rc = try_candidate(&tried, exe_dir, rel, out, err);
        if (rc || *out)
            goto out;
    }
    rc = try_candidate(&tried, pkglibdir, NULL, out, err);
    if (rc || *out)
        goto out;
    rc = mc_err_set(err, MC_ENOENT, "cannot find " PLUGIN_NAME
                    " (looked at %s)", tried.s);
out:
    mc_free(rel);
    mc_buf_release(&tried);
    return rc;
}
