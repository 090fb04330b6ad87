/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * hit.c: whether a cached variant fits this machine (hit.h).
 */
#include "mc_setup.h"
#include "hit.h"
#include "log.h"
#include "native.h"

int
mc_hit_fits(const struct mc_target *t, const char *source,
            const struct mc_entry *e, const char *mode, int resolve)
{
    struct mc_err err = MC_ERR_INIT;
    char found[MC_NATIVE_ARCH_MAX], host[MC_NATIVE_ARCH_MAX];
    int fits = 1, keep = !strcmp(mode, "cache") || !strcmp(mode, "verify");

    if (mc_native_check_variant(t, e->variant.s, e->variant.len, resolve,
                                &fits, found, host, &err)) {
        mc_info("%s: %s", source, err.msg);
        return 0;
    }
    if (!fits && (host[0] || resolve))
        mc_info("%s: the cached variant is for arch=%s, this machine is "
                "%s; %s", source, found, host[0] ? host : "unknown",
                keep ? "using the original" : "searching again");
    else if (!fits)
        mc_info("%s: the cached variant is for arch=%s, and this "
                "machine's architecture is not resolved yet; %s", source,
                found, keep ? "using the original"
                            : "the search recipe checks it");
    return fits;
}

void
mc_hit_note_line(const struct mc_entry *e, struct mc_buf *out)
{
    size_t i, n = e->note.len < MC_HIT_NOTE_MAX ? e->note.len
                                                : MC_HIT_NOTE_MAX;

    /* One line of printable text, whoever wrote the entry. */
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)e->note.s[i];
        mc_buf_addc(out, c < ' ' || c == 0x7f ? ' ' : (char)c);
    }
}

void
mc_hit_say_line(const char *source, const char *line)
{
    mc_info("%s: %s", source, line);
}

void
mc_hit_say_note(const char *source, const struct mc_entry *e)
{
    struct mc_buf line = MC_BUF_INIT;

    if (!e->note.len)
        return;
    mc_hit_note_line(e, &line);
    if (!mc_buf_status(&line))
        mc_hit_say_line(source, line.s);
    mc_buf_release(&line);
}
