/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * search_progress.c: the search's progress for people: a line per
 * settled node (its verdict, the best so far, f_r and u_t, the time
 * spent and left, the first line of its critique) and durations as
 * people read them. See search.h.
 */
#include "mc_setup.h"
#include "search_int.h"
#include "log.h"
#include "spawn.h"

/* Bytes of a critique a progress line shows (the manifest has it all). */
#define NOTE_MAX 300
#define NOTE_MAX_ERROR 1000 /* a compile error's: its first error line
                             * whole, which the critique puts first */

void
mc_search_duration(double seconds, char *out, size_t cap)
{
    long t = seconds > 0 ? (long)(seconds + 0.5) : 0;

    if (t < 60)
        snprintf(out, cap, "%lds", t);
    else if (t < 3600)
        snprintf(out, cap, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(out, cap, "%ldh%02ldm", t / 3600, t % 3600 / 60);
}

/* The progress line's clock after node I: the time this run has spent
 * and, while candidates remain, the time they should take at the pace
 * of the candidates settled since the first ones ("[12s, ~30s left]"):
 * the first's time holds one-time costs, so there is no estimate until
 * a candidate after it has settled. */
static void
progress_clock(const struct mc_search *s, size_t i, char *out, size_t cap)
{
    double now = mc_spawn_clock(), spent = now - s->started;
    size_t done = i + 1 > s->resumed ? i + 1 - s->resumed : 1;
    char a[24], b[24];

    mc_search_duration(spent, a, sizeof(a));
    if (i + 1 >= s->budget || !s->first_settled || done <= s->first_batch) {
        snprintf(out, cap, "[%s]", a);
        return;
    }
    mc_search_duration((now - s->first_settled) /
                           (double)(done - s->first_batch) *
                           (double)(s->budget - i - 1),
                       b, sizeof(b));
    snprintf(out, cap, "[%s, ~%s left]", a, b);
}

/* The bytes of NOTE's first line that a progress line shows: up to
 * MAX, cut before a character, never inside one. */
static int
note_len(const char *note, size_t max)
{
    size_t n = strcspn(note, "\n");

    if (n > max) {
        n = max;
        while (n && ((unsigned char)note[n] & 0xc0) == 0x80)
            n--;
    }
    return (int)n;
}

void
mc_search_progress(const struct mc_search *s, size_t i)
{
    const struct mc_search_node *nd = &s->nodes[i];
    /* Without a critique, the first line of the detail. */
    const char *note = nd->critique && *nd->critique ? nd->critique
                       : nd->detail                  ? nd->detail
                                                     : "";
    /* Its first line, at most NOTE_MAX bytes (a compile error's, whose
     * critique starts with the error, NOTE_MAX_ERROR): the rest is in the
     * manifest, and a progress line must stay short. */
    int len = note_len(note, nd->compile_error ? NOTE_MAX_ERROR
                                               : NOTE_MAX);
    char bins[64], value[32] = "", clock[64];

    if (nd->value >= 0)
        snprintf(value, sizeof(value), " value %.2f", nd->value);
    snprintf(bins, sizeof(bins), "f_r %d u_t %g%s", nd->fr, nd->ut, value);
    progress_clock(s, i, clock, sizeof(clock));
    if (nd->correct)
        /* Faster as measured, yet not confirmed beyond the noise: not
         * the best, which a lower figure beside it would seem to say. */
        mc_info("%s [%zu/%zu] correct %.2fx%s (best %.2fx; %s) %s%s%.*s",
                s->t->source, i + 1, s->budget, nd->speedup,
                !nd->confirmed && nd->speedup > mc_search_best_reward(s)
                    ? ", not confirmed"
                    : "",
                mc_search_best_reward(s), bins, clock, len ? ": " : "", len,
                note);
    else
        mc_info("%s [%zu/%zu] %s (best %.2fx; %s) %s%s%.*s", s->t->source,
                i + 1, s->budget, mc_verdict_name(nd->verdict),
                mc_search_best_reward(s), bins, clock, len ? ": " : "", len,
                note);
}
