/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tap.h: a header-only TAP producer for the C unit tests. Each assertion
 * prints "ok N - NAME" or "not ok N - NAME" with a diagnostic; tap_done()
 * prints the plan and returns the exit status. Test cases are functions
 * named test_<module>__<case>, run with TAP_RUN(fn), which prefixes each
 * assertion's name with the case name.
 */
#ifndef MC_TAP_H
#define MC_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;
static const char *tap_case = "";

static int MC_UNUSED
tap_ok(int cond, const char *file, int line, const char *name)
{
    tap_n++;
    printf("%sok %d - %s: %s\n", cond ? "" : "not ", tap_n, tap_case, name);
    if (!cond) {
        tap_failed++;
        printf("#   failed at %s:%d\n", file, line);
    }
    fflush(stdout);
    return cond;
}

static int MC_UNUSED
tap_is_str(const char *got, const char *want, const char *file, int line,
           const char *name)
{
    int cond = got && want ? !strcmp(got, want) : got == want;

    if (!tap_ok(cond, file, line, name))
        printf("#   got:  '%s'\n#   want: '%s'\n", got ? got : "(null)",
               want ? want : "(null)");
    return cond;
}

static int MC_UNUSED
tap_is_long(long got, long want, const char *file, int line,
            const char *name)
{
    if (!tap_ok(got == want, file, line, name))
        printf("#   got:  %ld\n#   want: %ld\n", got, want);
    return got == want;
}

static int MC_UNUSED
tap_done(void)
{
    printf("1..%d\n", tap_n);
    return tap_failed ? 1 : 0;
}

#define ok(cond, name)          tap_ok(!!(cond), __FILE__, __LINE__, name)
#define is_str(got, want, name) tap_is_str(got, want, __FILE__, __LINE__, name)
#define is_long(got, want, name)                                             \
    tap_is_long((long)(got), (long)(want), __FILE__, __LINE__, name)
#define contains(hay, needle, name)                                          \
    ok((hay) && strstr((hay), (needle)), name)

#define TAP_RUN(fn)                                                          \
    do {                                                                     \
        tap_case = #fn;                                                      \
        fn();                                                                \
    } while (0)

/* How many times NEEDLE occurs in HAY (NULL: none). */
static int MC_UNUSED
tap_count(const char *hay, const char *needle)
{
    int n = 0;

    while (hay && (hay = strstr(hay, needle)) != NULL) {
        n++;
        hay += strlen(needle);
    }
    return n;
}

#endif /* MC_TAP_H */
