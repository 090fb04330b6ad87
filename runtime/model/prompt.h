/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * prompt.h: the prompt templates of the model-driven proposer and the
 * critic, their rendering, their version, and the extraction of code
 * from a model's answer.
 *
 * The templates are the files runtime/model/prompts/NAME.txt, compiled in as
 * mc_prompt_NAME (dashes become underscores). Template grammar:
 *   template = *(text / variable / section)
 *   variable = "{{" name "}}"           ; its value, or nothing
 *   section  = "{{#" name "}}" template "{{/" name "}}"
 *                                       ; kept when NAME's value is not
 *                                       ; empty, dropped otherwise
 *            / "{{^" name "}}" template "{{/" name "}}"
 *                                       ; the inverse
 * The version of the templates (a hash of all their text) is part of the
 * cache key of every search the model drives, so an edited prompt
 * searches again.
 */
#ifndef MC_PROMPT_H
#define MC_PROMPT_H

#include "buf.h"
#include "status.h"

extern const char mc_prompt_policy_system[];
extern const char mc_prompt_policy_cuda_system[]; /* for CUDA sources */
extern const char mc_prompt_policy[];
extern const char mc_prompt_traj_step[];
extern const char mc_prompt_critic_system[];
extern const char mc_prompt_critic[];

struct mc_prompt_var {
    const char *name;
    const char *value; /* NULL is empty */
};

/* Render TMPL with the N variables VARS, appending to OUT. MC_ENOMEM. */
enum mc_code mc_prompt_render(const char *tmpl,
                              const struct mc_prompt_var *vars, size_t n,
                              struct mc_buf *out);

/* "p1-" and 16 hex digits of the templates' hash; static storage. */
const char *mc_prompt_version(void);

/*
 * The new source file in the model's ANSWER, for the original ORIG (OLEN
 * bytes), into OUT. The answer may hold prose around its code, one or
 * more fenced blocks (``` with or without a language, the last one maybe
 * unclosed) or none. When ORIG has '#pragma maxcode begin/end' regions,
 * a block holding those pragmas is the whole file if it keeps the text
 * outside them, else an echo of the regions whose bodies are taken;
 * otherwise the blocks are the regions' new bodies: one block for one
 * region, or as many blocks as regions, in order. Returns 0, or -1 with
 * the reason in WHY (no code, only empty blocks, blocks or regions that
 * do not fit the original's regions).
 */
int mc_prompt_extract(const char *answer, const char *orig, size_t olen,
                      struct mc_buf *out, struct mc_buf *why);

#endif /* MC_PROMPT_H */
