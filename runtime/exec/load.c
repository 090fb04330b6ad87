/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * load.c: sampling the machine's load around a timing round, the rule
 * that says it changed, and the bounded repeat of a round taken while
 * it did. See load.h, and doc/internals/eval.md for why.
 */
#include "mc_setup.h"
#include "load.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <time.h>

#define RUNNING_READS 5        /* procs_running is read this many times */
#define RUNNING_GAP_NS 1000000 /* ... this far apart (1 ms) */
#define LINE_MAX_ 256

/* The first number after PREFIX on a line of the file PATH that starts
 * with PREFIX; -1 when there is none. */
static double
file_number(const char *path, const char *prefix)
{
    char line[LINE_MAX_];
    size_t n = strlen(prefix);
    double v = -1;
    FILE *f = fopen(path, "re");

    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f)) {
        char *end;
        double x;

        if (strncmp(line, prefix, n))
            continue;
        x = strtod(line + n, &end);
        if (end != line + n && x >= 0 && isfinite(x))
            v = x;
        break;
    }
    fclose(f);
    return v;
}

void
mc_load_read(struct mc_load *out, void *ctx)
{
    const struct timespec gap = {0, RUNNING_GAP_NS};
    double sum = 0;
    int i;

    (void)ctx;
    for (i = 0; i < RUNNING_READS; i++) {
        double r = file_number("/proc/stat", "procs_running ");

        if (r < 0) {
            sum = -1;
            break;
        }
        /* The sampler itself is running while it reads. */
        sum += r > 1 ? r - 1 : 0;
        if (i + 1 < RUNNING_READS)
            nanosleep(&gap, NULL);
    }
    out->running = sum < 0 ? -1 : sum / RUNNING_READS;
    out->psi_some = file_number("/proc/pressure/cpu", "some avg10=");
    out->loadavg = file_number("/proc/loadavg", "");
    out->cpus = (double)sysconf(_SC_NPROCESSORS_ONLN);
}

/* The share of a CPU one more runnable task can get under load L. */
static double
share(const struct mc_load *l)
{
    double cpus = l->cpus < 1 ? 1 : l->cpus;

    return fmin(1.0, cpus / (l->running + 1));
}

int
mc_load_changed(const struct mc_load *before, const struct mc_load *after)
{
    if (before->running >= 0 && after->running >= 0) {
        double a = share(before), b = share(after);

        if (fabs(a - b) >= MC_LOAD_SHARE * fmax(a, b))
            return 1;
    }
    return before->psi_some >= 0 && after->psi_some >= 0 &&
           fabs(after->psi_some - before->psi_some) >= MC_LOAD_PSI;
}

enum mc_code
mc_load_guard(mc_load_fn *sample, void *sample_ctx,
              enum mc_code (*round)(void *arg, int *keep), void *arg,
              struct mc_load_round *rec)
{
    enum mc_code rc;

    if (!sample)
        sample = mc_load_read;
    memset(rec, 0, sizeof(*rec));
    for (;;) {
        int keep = 0;

        sample(&rec->before, sample_ctx);
        rc = round(arg, &keep);
        if (rc)
            return rc;
        sample(&rec->after, sample_ctx);
        rec->changed = mc_load_changed(&rec->before, &rec->after);
        if (!rec->changed || keep || rec->repeats >= MC_LOAD_REPEATS)
            return MC_OK;
        rec->repeats++;
    }
}

/* Member NAME of O: V, or null when V is unknown (< 0). */
static void
add_known(cJSON *o, const char *name, double v)
{
    if (v >= 0)
        cJSON_AddNumberToObject(o, name, v);
    else
        cJSON_AddNullToObject(o, name);
}

/* Sample L as the member NAME of O. */
static void
add_sample(cJSON *o, const char *name, const struct mc_load *l)
{
    cJSON *s = cJSON_AddObjectToObject(o, name);

    if (!s)
        return;
    add_known(s, "running", l->running);
    add_known(s, "psi_some", l->psi_some);
    add_known(s, "loadavg", l->loadavg);
    add_known(s, "cpus", l->cpus);
}

cJSON *
mc_load_round_json(const struct mc_load_round *rec)
{
    cJSON *o = cJSON_CreateObject();

    if (!o)
        return NULL;
    add_sample(o, "before", &rec->before);
    add_sample(o, "after", &rec->after);
    cJSON_AddNumberToObject(o, "repeats", rec->repeats);
    cJSON_AddBoolToObject(o, "changed", rec->changed);
    return o;
}
