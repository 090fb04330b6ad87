/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * native.c: what -march=native means on this machine, resolved by the
 * compiler and remembered per machine and compiler identity, and the
 * check of a cached variant's target("arch=X") against it (native.h).
 */
#include "mc_setup.h"
#include "native.h"
#include "alloc.h"
#include "buf.h"
#include "compiler.h"
#include "file.h"
#include "hash.h"
#include "log.h"
#include "spawn.h"
#include "strv.h"

#include <ctype.h>

#define MARCH_TIMEOUT_S 60 /* the compiler resolving -march=native */

/* The characters of an architecture name. */
static const char arch_chars[] = "abcdefghijklmnopqrstuvwxyz"
                                 "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                 "0123456789-_.+";

/* The test hook's value, or NULL. */
static const char *
hook(void)
{
    const char *h = getenv("MAXCODE_NATIVE_ARCH");

    return h && *h ? h : NULL;
}

/* Copy the N bytes at S into OUT (CAP bytes), cut to fit. */
static void
set_name(char *out, size_t cap, const char *s, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

/* ---- this machine ---- */

void
mc_machine_id(char *out, size_t cap)
{
    struct mc_buf b = MC_BUF_INIT;

    out[0] = '\0';
    if (mc_file_read("/etc/machine-id", &b, NULL) == MC_OK && b.len)
        set_name(out, cap, b.s, strcspn(b.s, "\r\n"));
    mc_buf_release(&b);
    if (!out[0] && gethostname(out, cap))
        snprintf(out, cap, "%s", "machine");
    out[cap - 1] = '\0';
}

/* The hash of /proc/cpuinfo's first flags (x86) or Features (Arm) line,
 * read once per process; the hash of "" when there is none. */
static const char *
cpu_hex(void)
{
    static char hex[MC_KEY_HEX + 1];
    struct mc_digest d;
    const char *flags = "";
    char *line = NULL;
    size_t cap = 0;
    FILE *f;

    if (hex[0])
        return hex;
    f = fopen("/proc/cpuinfo", "r");
    while (f && getline(&line, &cap, f) > 0) {
        if (!strncmp(line, "flags", 5) || !strncmp(line, "Features", 8)) {
            const char *colon = strchr(line, ':');
            if (colon) {
                flags = colon + 1;
                break;
            }
        }
    }
    mc_hash_buffer(flags, strlen(flags), &d);
    mc_digest_hex(&d, hex);
    free(line); /* from getline() */
    if (f)
        fclose(f);
    return hex;
}

/* CACHE_DIR/native/MACHINE-HEX.arch for compiler identity IDENT; with
 * LAUNCHER (MAXCODE_LAUNCHER, not ""), the machines are the launcher's
 * nodes: MACHINE is "launcher-" and 16 hex digits of its hash. */
static enum mc_code
remembered_path(const char *cache_dir, const char *ident,
                const char *launcher, struct mc_buf *p)
{
    char machine[128], hex[MC_KEY_HEX + 1];
    struct mc_digest d;

    if (*launcher) {
        mc_hash_buffer(launcher, strlen(launcher), &d);
        mc_digest_hex(&d, hex);
        snprintf(machine, sizeof(machine), "launcher-%.16s", hex);
    } else {
        mc_machine_id(machine, sizeof(machine));
    }
    mc_hash_buffer(ident, strlen(ident), &d);
    mc_digest_hex(&d, hex);
    mc_buf_addf(p, "%s/native/%s-%s.arch", cache_dir, machine, hex);
    return mc_buf_status(p);
}

/* The architecture remembered at PATH in CACHE_DIR into ARCH; "" when
 * there is none, it does not parse, or the CPU changed since. */
static void
recall(const char *cache_dir, const char *path, char *arch, size_t cap)
{
    struct mc_buf b = MC_BUF_INIT;
    size_t n;

    arch[0] = '\0';
    if (mc_file_read_shared(cache_dir, path + strlen(cache_dir) + 1,
                            MC_FILE_SMALL, &b, NULL) == MC_OK) {
        n = strspn(b.s, arch_chars);
        if (n && n < cap && b.len == n + 1 + MC_KEY_HEX + 1 &&
            b.s[n] == ' ' && b.s[b.len - 1] == '\n' &&
            !memcmp(b.s + n + 1, cpu_hex(), MC_KEY_HEX))
            set_name(arch, cap, b.s, n);
    }
    mc_buf_release(&b);
}

/* Remember ARCH at PATH. */
static void
remember(const char *path, const char *arch)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf line = MC_BUF_INIT;

    mc_buf_addf(&line, "%s %s\n", arch, cpu_hex());
    if (mc_buf_status(&line) || mc_file_mkdirs_for(path, &err) ||
        mc_file_write_atomic(path, line.s, line.len, &err))
        mc_verbose("the native architecture is not remembered: %s",
                   err.code ? err.msg : "out of memory");
    mc_buf_release(&line);
}

/* Resolve -march=native for COMPILER into ARCH and remember it at PATH. */
static void
resolve(const char *compiler, const char *path, char *arch, size_t cap)
{
    mc_native_march(compiler, arch, cap);
    if (!arch[0])
        snprintf(arch, cap, "cpu-%.16s", cpu_hex());
    remember(path, arch);
}

/* -march=X (X not native) in gcc's -v output TEXT, else clang's
 * -target-cpu X, into ARCH. */
static void
parse_march(const char *text, char *arch, size_t cap)
{
    const char *p;
    size_t n;

    for (p = text; (p = strstr(p, "-march=")) != NULL; p += 7) {
        n = strspn(p + 7, arch_chars);
        if (n && n < cap && strncmp(p + 7, "native", 6)) {
            set_name(arch, cap, p + 7, n);
            return;
        }
    }
    if ((p = strstr(text, "-target-cpu")) != NULL) {
        p += 11;
        p += strspn(p, " \t\"");
        n = strspn(p, arch_chars);
        if (n && n < cap)
            set_name(arch, cap, p, n);
    }
}

void
mc_native_march(const char *compiler, char *arch, size_t cap)
{
    struct mc_spawn_opts so = {.timeout_s = MARCH_TIMEOUT_S,
                               .stdin_path = "/dev/null"};
    struct mc_strv argv = MC_STRV_INIT;
    struct mc_spawn_result r;

    arch[0] = '\0';
    mc_spawn_result_init(&r);
    mc_shell_split(compiler ? compiler : "", &argv, NULL);
    if (argv.n) {
        mc_strv_push(&argv, "-march=native");
        mc_strv_push(&argv, "-E");
        mc_strv_push(&argv, "-v");
        mc_strv_push(&argv, "-");
    }
    if (argv.n && !mc_strv_status(&argv) &&
        mc_spawn(argv.v, &so, &r, NULL) == MC_OK && r.err.s)
        parse_march(r.err.s, arch, cap);
    mc_spawn_result_release(&r);
    mc_strv_release(&argv);
}

/* Where T's native architecture is remembered (remembered_path()). */
static enum mc_code
native_path(const struct mc_target *t, struct mc_buf *path,
            struct mc_err *err)
{
    const char *ident;
    enum mc_code rc;

    rc = mc_compiler_identity(t->compiler ? t->compiler : "",
                              mc_conf_get(&t->conf, MC_SET_COMPILER_CHECK),
                              mc_conf_get(&t->conf, MC_SET_CACHE_DIR),
                              &ident, err);
    if (rc)
        return rc;
    if (remembered_path(mc_conf_get(&t->conf, MC_SET_CACHE_DIR), ident,
                        mc_conf_get(&t->conf, MC_SET_LAUNCHER), path))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    return MC_OK;
}

enum mc_code
mc_native_remember(const struct mc_target *t, const char *arch,
                   struct mc_err *err)
{
    struct mc_buf path = MC_BUF_INIT;
    enum mc_code rc;
    size_t n = strspn(arch, arch_chars);

    if (!n || arch[n] || n >= MC_NATIVE_ARCH_MAX)
        return mc_err_set(err, MC_EINVAL, "'%.80s' is no architecture",
                          arch);
    rc = native_path(t, &path, err);
    if (!rc)
        remember(path.s, arch);
    mc_buf_release(&path);
    return rc;
}

void
mc_native_forget(const struct mc_target *t)
{
    struct mc_buf path = MC_BUF_INIT;

    if (!native_path(t, &path, NULL))
        unlink(path.s);
    mc_buf_release(&path);
}

enum mc_code
mc_native_host(const struct mc_target *t, int resolve_now, char *arch,
               size_t cap, int *now, struct mc_err *err)
{
    const char *dir = mc_conf_get(&t->conf, MC_SET_CACHE_DIR);
    const char *launcher = mc_conf_get(&t->conf, MC_SET_LAUNCHER);
    struct mc_buf path = MC_BUF_INIT;
    enum mc_code rc;

    arch[0] = '\0';
    /* The hook is this machine's; the launcher's nodes answer for
     * themselves (with the hook of their environment, if any). */
    if (hook() && !*launcher) {
        snprintf(arch, cap, "%s", hook());
        return MC_OK;
    }
    rc = native_path(t, &path, err);
    if (rc) {
        mc_buf_release(&path);
        return rc;
    }
    recall(dir, path.s, arch, cap);
    /* The launcher's nodes are resolved through it (the command's
     * --launch), never here. */
    if (!arch[0] && resolve_now && !*launcher) {
        resolve(t->compiler ? t->compiler : "", path.s, arch, cap);
        if (now)
            *now = 1;
    }
    mc_buf_release(&path);
    return MC_OK;
}

enum mc_code
mc_native_set_target(struct mc_target *t, int resolve_now, int *now,
                     struct mc_err *err)
{
    char arch[MC_NATIVE_ARCH_MAX];
    enum mc_code rc;

    if (strcmp(mc_target_get(t, MC_OPT_ISA), "native"))
        return MC_OK;
    rc = mc_native_host(t, resolve_now, arch, sizeof(arch), now, err);
    if (rc)
        return rc;
    mc_free(t->native_arch);
    t->native_arch = NULL;
    if (arch[0] && !(t->native_arch = mc_strdup(arch)))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    return MC_OK;
}

/* ---- target("arch=X") in a variant ---- */

/* Where a scan of one text is: inside a target(...) up to END, or
 * looking for the next one (END <= POS). */
struct arch_scan {
    const char *s;
    size_t len, pos, end;
};

static int
is_word(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Move SC into the next target(...): 1, or 0 at the end of the text. */
static int
next_target(struct arch_scan *sc)
{
    const char *p, *close;
    size_t at, i;

    while ((p = memmem(sc->s + sc->pos, sc->len - sc->pos, "target", 6))) {
        at = (size_t)(p - sc->s);
        sc->pos = at + 6;
        if (at > 0 && is_word(sc->s[at - 1]))
            continue;
        for (i = at + 6;
             i < sc->len && (sc->s[i] == ' ' || sc->s[i] == '\t'); i++)
            ;
        if (i >= sc->len || sc->s[i] != '(')
            continue; /* target_clones(...), or a word */
        close = memchr(sc->s + i, ')', sc->len - i);
        sc->pos = i + 1;
        sc->end = close ? (size_t)(close - sc->s) : sc->len;
        return 1;
    }
    sc->pos = sc->len;
    return 0;
}

/* The next arch=X of SC's text into OUT (cut to CAP bytes): 1, or 0
 * when there is no more. */
static int
next_arch(struct arch_scan *sc, char *out, size_t cap)
{
    const char *p;
    size_t at, n;

    for (;;) {
        if (sc->pos >= sc->end && !next_target(sc))
            return 0;
        p = memmem(sc->s + sc->pos, sc->end - sc->pos, "arch=", 5);
        if (!p) {
            sc->pos = sc->end;
            continue;
        }
        at = (size_t)(p - sc->s);
        sc->pos = at + 5;
        if (at > 0 && (is_word(sc->s[at - 1]) || sc->s[at - 1] == '-'))
            continue; /* march=, -march= */
        for (n = 0; at + 5 + n < sc->end && sc->s[at + 5 + n] &&
                    strchr(arch_chars, sc->s[at + 5 + n]);
             n++)
            ;
        if (!n)
            continue;
        set_name(out, cap, sc->s + at + 5, n);
        sc->pos = at + 5 + n;
        return 1;
    }
}

/* Whether TEXT names arch=X in a target(...). */
static int
names_arch(const char *text, size_t len, const char *x)
{
    struct arch_scan sc = {text, len, 0, 0};
    char a[MC_NATIVE_ARCH_MAX];

    while (next_arch(&sc, a, sizeof(a)))
        if (!strcmp(a, x))
            return 1;
    return 0;
}

int
mc_native_foreign_arch(const char *text, size_t len, const char *orig,
                       size_t olen, const char *host, char *out, size_t cap)
{
    struct arch_scan sc = {text, len, 0, 0};
    char a[MC_NATIVE_ARCH_MAX];

    while (next_arch(&sc, a, sizeof(a))) {
        if (host && !strcmp(a, host))
            continue;
        if (orig && names_arch(orig, olen, a))
            continue;
        snprintf(out, cap, "%s", a);
        return 1;
    }
    return 0;
}

enum mc_code
mc_native_check_variant(const struct mc_target *t, const char *variant,
                        size_t len, int resolve_now, int *fits,
                        char found[MC_NATIVE_ARCH_MAX],
                        char host[MC_NATIVE_ARCH_MAX], struct mc_err *err)
{
    const char *orig = t->text.len ? t->text.s : NULL;
    enum mc_code rc;

    *fits = 1;
    found[0] = host[0] = '\0';
    if (!variant || !memmem(variant, len, "arch=", 5) ||
        !mc_native_foreign_arch(variant, len, orig, t->text.len, "", found,
                                MC_NATIVE_ARCH_MAX))
        return MC_OK;
    rc = mc_native_host(t, resolve_now, host, MC_NATIVE_ARCH_MAX, NULL,
                        err);
    if (rc)
        return rc;
    if (mc_native_foreign_arch(variant, len, orig, t->text.len, host, found,
                               MC_NATIVE_ARCH_MAX))
        *fits = 0;
    else
        found[0] = '\0';
    return MC_OK;
}
