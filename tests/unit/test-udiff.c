/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-udiff.c: unified diffs as diff -u writes them: hunk headers,
 * context, merging and splitting of hunks, empty texts, missing final
 * newlines, and that applying the diff to A gives B back (with a small
 * applier here, and with patch(1) where it is installed), on small texts
 * and on 10,000-line ones, including one past the cost cap.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "udiff.h"
#include "tap.h"

/* The diff of A against B, named a and b, with CONTEXT lines. */
static char *
diff(const char *a, const char *b, int context)
{
    struct mc_buf out = MC_BUF_INIT;

    if (mc_udiff("a", a, strlen(a), "b", b, strlen(b), context, &out))
        return NULL;
    return mc_buf_detach(&out, NULL);
}

/* The end of the line at P (just past its newline, or the NUL). */
static const char *
eol(const char *p)
{
    const char *nl = strchr(p, '\n');

    return nl ? nl + 1 : p + strlen(p);
}

/* Apply the unified diff D to A into OUT, checking every context and
 * removed line against A: 0 on success, -1 on a mismatch. */
static int
apply(const char *a, const char *d, struct mc_buf *out)
{
    const char *p = a, *q;
    long line = 1, start, count;

    d = eol(eol(d)); /* the --- and +++ lines */
    while (*d) {
        int got = sscanf(d, "@@ -%ld,%ld", &start, &count);

        if (got < 1)
            return -1;
        if (got == 1)
            count = 1;
        for (start += !count; line < start; line++, p = q)
            mc_buf_add(out, p, (size_t)((q = eol(p)) - p));
        for (d = eol(d); *d && *d != '@'; d = q) {
            /* The line's bytes: without its newline when a
             * "\ No newline" line follows. */
            size_t n = (size_t)((q = eol(d)) - d) - 1;

            if (*q == '\\') {
                n--;
                q = eol(q);
            }
            if (*d == '+') {
                mc_buf_add(out, d + 1, n);
                continue;
            }
            if ((size_t)(eol(p) - p) != n || memcmp(p, d + 1, n)
                || (*d != ' ' && *d != '-'))
                return -1;
            if (*d == ' ')
                mc_buf_add(out, p, n);
            p += n;
            line++;
        }
    }
    mc_buf_adds(out, p);
    return 0;
}

/* Whether the diff of A against B, applied to A, gives B. */
static int
round_trip(const char *a, const char *b, int context)
{
    char *d = diff(a, b, context);
    struct mc_buf got = MC_BUF_INIT;
    int same = d && apply(a, d, &got) == 0 && !strcmp(got.s, b);

    if (!same)
        printf("# diff:\n%s# got:\n%s", d ? d : "(null)\n", got.s);
    mc_free(d);
    mc_buf_release(&got);
    return same;
}

static void
test_udiff__equal_is_empty(void)
{
    char *d = diff("x\ny\n", "x\ny\n", 3);

    is_str(d, "", "equal texts give no output");
    mc_free(d);
    d = diff("", "", 3);
    is_str(d, "", "two empty texts give no output");
    mc_free(d);
}

static void
test_udiff__insert_delete_change(void)
{
    char *d = diff("a\nb\nc\n", "a\nb\nX\nc\n", 3);

    is_str(d, "--- a\n+++ b\n@@ -1,3 +1,4 @@\n a\n b\n+X\n c\n",
           "an insertion");
    mc_free(d);
    d = diff("a\nb\nc\n", "a\nc\n", 3);
    is_str(d, "--- a\n+++ b\n@@ -1,3 +1,2 @@\n a\n-b\n c\n", "a deletion");
    mc_free(d);
    d = diff("a\nb\nc\n", "a\nB\nc\n", 1);
    is_str(d, "--- a\n+++ b\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
           "a change: removed lines before added ones");
    mc_free(d);
    d = diff("a\nb\nc\n", "a\nB\nc\n", 0);
    is_str(d, "--- a\n+++ b\n@@ -2 +2 @@\n-b\n+B\n",
           "a count of 1 is left out of the range");
    mc_free(d);
    d = diff("a\nb\n", "X\na\nb\n", 0);
    is_str(d, "--- a\n+++ b\n@@ -0,0 +1 @@\n+X\n",
           "an empty range names the line before");
    mc_free(d);
}

/* Twenty numbered lines, with line I (1-based) replaced when I > 0. */
static char *
numbered(int change1, int change2)
{
    struct mc_buf b = MC_BUF_INIT;
    int i;

    for (i = 1; i <= 20; i++)
        if (i == change1 || i == change2)
            mc_buf_addf(&b, "changed %d\n", i);
        else
            mc_buf_addf(&b, "line %d\n", i);
    return mc_buf_detach(&b, NULL);
}

static void
test_udiff__hunks_merge_and_split(void)
{
    char *a = numbered(0, 0), *b = numbered(5, 11), *c = numbered(5, 13);
    char *d = diff(a, b, 3);

    is_long(tap_count(d, "@@ -"), 1,
            "changes 6 lines apart share one hunk with context 3");
    contains(d, "@@ -2,13 +2,13 @@\n", "the merged hunk spans both");
    mc_free(d);
    d = diff(a, c, 3);
    is_long(tap_count(d, "@@ -"), 2,
            "changes 8 lines apart make two hunks with context 3");
    contains(d, "@@ -2,7 +2,7 @@\n", "the first hunk");
    contains(d, "@@ -10,7 +10,7 @@\n", "the second hunk");
    mc_free(d);
    ok(round_trip(a, b, 3) && round_trip(a, c, 3) && round_trip(a, c, 0)
           && round_trip(b, c, 1),
       "each applies back");
    mc_free(a);
    mc_free(b);
    mc_free(c);
}

static void
test_udiff__empty_texts(void)
{
    char *d = diff("", "a\nb\n", 3);

    is_str(d, "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+a\n+b\n", "from empty");
    mc_free(d);
    d = diff("a\nb\n", "", 3);
    is_str(d, "--- a\n+++ b\n@@ -1,2 +0,0 @@\n-a\n-b\n", "to empty");
    mc_free(d);
    ok(round_trip("", "a\n", 3) && round_trip("a\n", "", 3),
       "both apply back");
}

static void
test_udiff__no_newline_at_end(void)
{
    char *d = diff("a\nb", "a\nb\n", 3);

    is_str(d,
           "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n"
           "\\ No newline at end of file\n+b\n",
           "a newline added to the last line");
    mc_free(d);
    d = diff("a\nb\n", "a\nc", 3);
    is_str(d,
           "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
           "\\ No newline at end of file\n",
           "a last line without one");
    mc_free(d);
    d = diff("x\na", "y\na", 3);
    is_str(d,
           "--- a\n+++ b\n@@ -1,2 +1,2 @@\n-x\n+y\n a\n"
           "\\ No newline at end of file\n",
           "as context too");
    mc_free(d);
    ok(round_trip("a\nb", "a\nb\n", 3) && round_trip("a\nb\n", "a\nc", 3)
           && round_trip("x\na", "y\na", 3),
       "all apply back");
}

/* N lines; every STEP-th (from 0) is changed when STEP > 0. */
static char *
big(long n, long step, const char *tag)
{
    struct mc_buf b = MC_BUF_INIT;
    long i;

    for (i = 0; i < n; i++)
        if (step && i % step == 0)
            mc_buf_addf(&b, "%s %ld\n", tag, i);
        else
            mc_buf_addf(&b, "    x[%ld] = y[%ld] * 2;\n", i, i);
    return mc_buf_detach(&b, NULL);
}

static void
test_udiff__large_inputs(void)
{
    char *a = big(10000, 0, ""), *b = big(10000, 2500, "#pragma");
    char *c = big(10000, 2, "changed");
    size_t added, removed;

    is_long(mc_udiff_count(a, strlen(a), b, strlen(b), &added, &removed),
            MC_OK, "counting 10,000 lines succeeds");
    ok(added == 4 && removed == 4, "4 lines changed in 10,000 are found");
    ok(round_trip(a, b, 3), "and the diff applies back");
    is_long(mc_udiff_count(a, strlen(a), c, strlen(c), &added, &removed),
            MC_OK, "a diff past the cost cap succeeds");
    ok(added >= 5000 && added == removed, "it is coarse but balanced");
    ok(round_trip(a, c, 3), "and still applies back");
    mc_free(a);
    mc_free(b);
    mc_free(c);
}

/* Write LEN bytes of S to PATH: 0 on success. */
static int
put(const char *path, const char *s)
{
    FILE *f = fopen(path, "wb");
    int rc = f && fputs(s, f) >= 0 ? 0 : -1;

    if (f && fclose(f))
        rc = -1;
    return rc;
}

static void
test_udiff__patch_applies(void)
{
    const char *a = "int f(void)\n{\n    return 1;\n}\n\nint g;", *b =
        "#include <x.h>\nint f(void)\n{\n#pragma omp simd\n    return 1;\n}"
        "\n\nint g;\nint h;\n";
    char dir[] = "/tmp/mc-udiff-XXXXXX", cmd[512], path[128];
    char *d = diff(a, b, 3);
    FILE *f;
    struct mc_buf got = MC_BUF_INIT;
    char chunk[256];
    size_t n;

    if (system("patch --version >/dev/null 2>&1") != 0 || !mkdtemp(dir)) {
        ok(1, "# SKIP patch(1) is not installed");
        mc_free(d);
        return;
    }
    snprintf(path, sizeof path, "%s/a.c", dir);
    put(path, a);
    snprintf(path, sizeof path, "%s/d.patch", dir);
    put(path, d);
    snprintf(cmd, sizeof cmd,
             "cd %s && patch -s a.c < d.patch && rm -f d.patch", dir);
    ok(system(cmd) == 0, "patch accepts the diff");
    snprintf(path, sizeof path, "%s/a.c", dir);
    f = fopen(path, "rb");
    while (f && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        mc_buf_add(&got, chunk, n);
    if (f)
        fclose(f);
    is_str(got.s, b, "patch turns A into B");
    remove(path);
    rmdir(dir);
    mc_buf_release(&got);
    mc_free(d);
}

int
main(void)
{
    TAP_RUN(test_udiff__equal_is_empty);
    TAP_RUN(test_udiff__insert_delete_change);
    TAP_RUN(test_udiff__hunks_merge_and_split);
    TAP_RUN(test_udiff__empty_texts);
    TAP_RUN(test_udiff__no_newline_at_end);
    TAP_RUN(test_udiff__large_inputs);
    TAP_RUN(test_udiff__patch_applies);
    return tap_done();
}
