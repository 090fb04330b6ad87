/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-args.c: a libFuzzer target for the arguments of $(maxcode ...),
 * read by mc_target_parse_marked() as the plugin calls it. The input is
 * split at commas as make splits a function's arguments, and each
 * argument is trimmed of blanks as mc_fn_maxcode() trims it; the first
 * is SOURCE. The scratch directory (made once, and the current directory
 * from then on) holds a.c, main.c and in/x.in, so that an input such as
 *   a.c, link=main.c, inputs=in/x.in, budget=4, tolerance=rel:1e-6
 * reaches every option's check. Nothing may crash, leak or read out of
 * bounds; a failure must carry its code and a message; a target parsed
 * must give back, through mc_target_args(), options that parse again to
 * the same options.
 *
 * Built with `make fuzz` (tests/fuzz/build.sh); run from anywhere: the
 * target changes directory, so pass the corpus by an absolute path.
 */
#include "mc_setup.h"
#include "conf.h"
#include "strv.h"
#include "target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Write TEXT to the file PATH; -1 on failure. */
static int
put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* Make the scratch directory with its sources and inputs, and enter it. */
static int
setup(void)
{
    static int done;
    char tmpl[] = "/tmp/mc-fuzz-args-XXXXXX";

    if (done)
        return 0;
    if (!mkdtemp(tmpl) || chdir(tmpl) || mkdir("in", 0777) ||
        put("a.c", "int f(int x) { return x + 1; }\n") ||
        put("main.c", "int f(int);\nint main(void) { return f(-1); }\n") ||
        put("in/x.in", "1\n"))
        return -1;
    done = 1;
    return 0;
}

/* Split TEXT (LEN bytes, no NUL) at commas into OUT, trimmed. */
static int
split(const char *text, size_t len, struct mc_strv *out)
{
    const char *p = text, *end = text + len;

    for (;;) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        const char *e = c ? c : end;

        while (p < e && strchr(" \t\n", *p))
            p++;
        while (e > p && strchr(" \t\n", e[-1]))
            e--;
        if (mc_strv_pushn(out, p, (size_t)(e - p)))
            return -1;
        if (!c)
            return 0;
        p = c + 1;
    }
}

/* Parse ARGS (SOURCE first) into T with a fresh configuration. */
static enum mc_code
parse(struct mc_target *t, const struct mc_strv *args, struct mc_err *err)
{
    struct mc_conf base;
    enum mc_code rc = mc_conf_init(&base, err);

    memset(t, 0, sizeof(*t));
    if (rc)
        return rc;
    return mc_target_parse_marked(t, args->v[0], args->v + 1, args->n - 1,
                                  &base, err);
}

/* Whether the options of T parse again to the same ones. */
static int
round_trip(const struct mc_target *t, const char *source)
{
    struct mc_strv args = MC_STRV_INIT, again = MC_STRV_INIT;
    struct mc_err err = MC_ERR_INIT;
    struct mc_target t2;
    int same = 0;
    size_t i;

    if (mc_strv_push(&args, source) || mc_target_args(t, &args))
        goto out;
    if (parse(&t2, &args, &err) == MC_OK) {
        same = mc_target_args(&t2, &again) == MC_OK &&
               again.n == args.n - 1;
        for (i = 0; same && i < again.n; i++)
            same = !strcmp(again.v[i], args.v[i + 1]);
    } else {
        fprintf(stderr, "parsed again: %s\n", err.msg);
    }
    mc_target_release(&t2);
out:
    mc_strv_release(&args);
    mc_strv_release(&again);
    return same;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mc_strv args = MC_STRV_INIT;
    struct mc_err err = MC_ERR_INIT;
    struct mc_target t;
    enum mc_code rc;

    if (setup())
        abort();
    if (memchr(data, '\0', size))
        return 0; /* make's arguments are C strings */
    if (split((const char *)data, size, &args))
        abort();
    rc = parse(&t, &args, &err);
    if (rc != MC_OK && (err.code != rc || !err.msg[0]))
        abort();
    if (rc == MC_OK && (!t.source || !round_trip(&t, args.v[0])))
        abort();
    mc_target_release(&t);
    mc_strv_release(&args);
    return 0;
}
