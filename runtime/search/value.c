/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * value.c: the registry of value models, the fallback to reward ranking,
 * the value prompt and the identity that keys a gvf search. See value.h.
 */
#include "mc_setup.h"
#include "value.h"
#include "alloc.h"
#include "eval.h"
#include "file.h"
#include "gvfmodel.h"
#include "log.h"
#include "node.h"
#include "target.h"

#include <math.h>
#include <sys/stat.h>

/* The registry, in order of preference: one row per value model, each
 * defined in its own file (value_NAME.c) and declared beside its row. */
extern const struct mc_valuer mc_valuer_served;  /* value_served.c */
extern const struct mc_valuer mc_valuer_builtin; /* value_builtin.c */

static const struct mc_valuer *const valuers[] = {
    &mc_valuer_served,
    &mc_valuer_builtin,
};

const struct mc_valuer *
mc_valuer_at(size_t i)
{
    return i < MC_ARRAY_SIZE(valuers) ? valuers[i] : NULL;
}

enum mc_code
mc_value_model_path(const char *cache_dir, struct mc_buf *out)
{
    mc_buf_addf(out, "%s/" MC_VALUE_MODEL_FILE, cache_dir);
    return mc_buf_status(out);
}

/* The hash of the built-in model at PATH in CACHE_DIR, remembered while
 * its size and time stay (the plugin keys many targets in one make). ""
 * when there is no model there, or no good one. */
static const char *
model_hash(const char *cache_dir, const char *path)
{
    static char known_path[PATH_MAX], hash[MC_KEY_HEX + 1];
    static struct stat known;
    struct mc_gvf_model *m;
    struct stat st;

    if (lstat(path, &st))
        return "";
    if (!strcmp(known_path, path) && st.st_size == known.st_size &&
        st.st_mtime == known.st_mtime && st.st_ino == known.st_ino)
        return hash;
    m = mc_malloc(sizeof(*m));
    hash[0] = '\0';
    if (m && mc_gvf_model_load(cache_dir, MC_VALUE_MODEL_FILE, m,
                               NULL) == MC_OK)
        memcpy(hash, m->hash, sizeof(hash));
    mc_free(m);
    snprintf(known_path, sizeof(known_path), "%s", path);
    known = st;
    return hash;
}

enum mc_code
mc_value_identity(const struct mc_target *t, struct mc_buf *out)
{
    const char *url = mc_conf_get(&t->conf, MC_SET_GVF_URL);
    const char *model = mc_conf_get(&t->conf, MC_SET_GVF_MODEL);
    struct mc_buf path = MC_BUF_INIT;
    const char *hash;

    if (*url) {
        mc_buf_addf(out, "served:%s",
                    *model ? model : mc_conf_get(&t->conf, MC_SET_MODEL));
        return mc_buf_status(out);
    }
    mc_value_model_path(mc_conf_get(&t->conf, MC_SET_CACHE_DIR), &path);
    hash = mc_buf_status(&path)
               ? ""
               : model_hash(mc_conf_get(&t->conf, MC_SET_CACHE_DIR), path.s);
    if (*hash)
        mc_buf_addf(out, "built-in:%d:%s", MC_GVF_MODEL_VERSION, hash);
    else
        mc_buf_adds(out, "reward");
    mc_buf_release(&path);
    return mc_buf_status(out);
}

void
mc_value_state_of(const struct mc_search_node *nd, enum mc_lang lang,
                  const struct mc_buf *orig, struct mc_gvf_state *st)
{
    memset(st, 0, sizeof(*st));
    st->lang = lang;
    st->code = nd->code.len ? nd->code.s : NULL;
    st->code_len = nd->code.len;
    st->orig = orig->s;
    st->orig_len = orig->len;
    st->label = nd->label;
    st->verdict = mc_verdict_name(nd->verdict);
    st->correct = nd->correct;
    st->confirmed = nd->confirmed;
    st->speedup = nd->speedup;
    st->fr = nd->fr;
    st->ut = (int)floor(nd->ut + 0.5);
    st->depth = nd->depth;
    st->detail = nd->detail;
    st->critique = nd->critique;
}

void
mc_value_state(const struct mc_value_view *s, size_t i,
               struct mc_gvf_state *st)
{
    mc_value_state_of(&s->nodes[i], s->t->lang, &s->t->text, st);
}

const char mc_value_system[] =
    "You are the value model of a search for faster programs. Read the "
    "state: the original program, a candidate, its feedback and "
    "critique. Answer with one digit from 0 to 4, the reward bin of the "
    "best program that refining this candidate will reach: 0 no correct "
    "speedup beyond the noise, 1 up to the first threshold, 2 up to the "
    "second, 3 up to the third, 4 above it. The digit only.";

#define PROMPT_CODE_MAX 24000 /* bytes of each code shown */

/* A code section: "## TITLE\n" and at most PROMPT_CODE_MAX bytes. */
static void
code_section(struct mc_buf *out, const char *title, const char *code,
             size_t len)
{
    mc_buf_addf(out, "\n## %s\n", title);
    if (!code) {
        mc_buf_adds(out, "(none)\n");
        return;
    }
    mc_buf_add(out, code, len < PROMPT_CODE_MAX ? len : PROMPT_CODE_MAX);
    if (len > PROMPT_CODE_MAX)
        mc_buf_adds(out, "\n[... cut]");
    if (!len || code[(len < PROMPT_CODE_MAX ? len : PROMPT_CODE_MAX) - 1] !=
                    '\n')
        mc_buf_adds(out, "\n");
}

enum mc_code
mc_value_prompt(const struct mc_gvf_state *st, const char *bins,
                struct mc_buf *out)
{
    mc_buf_addf(out, "Language: %s\nReward bins (percent): %s\n"
                "Best bin so far on this path (u_t): %d\nDepth: %d\n",
                mc_lang_get(st->lang)->name, bins, st->ut, st->depth);
    code_section(out, "Original", st->orig, st->orig_len);
    mc_buf_addf(out, "\n## Candidate (%s)\n", st->label ? st->label : "");
    code_section(out, "Code", st->code, st->code_len);
    mc_buf_addf(out, "\n## Feedback\nverdict: %s; speedup: %.2fx%s; "
                "f_r: %d\n%s\n", st->verdict ? st->verdict : "not judged",
                st->speedup, st->confirmed ? " (confirmed)" : "", st->fr,
                st->detail ? st->detail : "");
    mc_buf_addf(out, "\n## Critique\n%s\n",
                st->critique ? st->critique : "");
    return mc_buf_status(out);
}
