/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * prompt.c: template rendering, the templates' version, and code
 * extraction from model answers. See prompt.h.
 */
#include "mc_setup.h"
#include "prompt.h"
#include "hash.h"
#include "mark.h"

#include <ctype.h>

#define MAX_DEPTH 16

static const char *
lookup(const struct mc_prompt_var *vars, size_t n, const char *name,
       size_t len)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (strlen(vars[i].name) == len && !memcmp(vars[i].name, name, len))
            return vars[i].value ? vars[i].value : "";
    return "";
}

enum mc_code
mc_prompt_render(const char *tmpl, const struct mc_prompt_var *vars,
                 size_t n, struct mc_buf *out)
{
    int skip[MAX_DEPTH + 1];
    size_t depth = 0;
    const char *p = tmpl;

    skip[0] = 0;
    while (*p) {
        const char *open = strstr(p, "{{"), *close;
        const char *name;
        size_t len;

        if (!open) {
            if (!skip[depth])
                mc_buf_adds(out, p);
            break;
        }
        close = strstr(open + 2, "}}");
        if (!close) {
            if (!skip[depth])
                mc_buf_adds(out, p);
            break;
        }
        if (!skip[depth])
            mc_buf_add(out, p, (size_t)(open - p));
        name = open + 2;
        len = (size_t)(close - name);
        p = close + 2;
        if (*name == '#' || *name == '^') {
            int set = *lookup(vars, n, name + 1, len - 1) != '\0';
            if (depth < MAX_DEPTH) {
                depth++;
                skip[depth] = skip[depth - 1] || (*name == '#' ? !set : set);
            }
        } else if (*name == '/') {
            if (depth)
                depth--;
        } else if (!skip[depth]) {
            mc_buf_adds(out, lookup(vars, n, name, len));
        }
    }
    return mc_buf_status(out);
}

const char *
mc_prompt_version(void)
{
    static char version[24];

    if (!version[0]) {
        const char *const all[] = {mc_prompt_policy_system,
                                   mc_prompt_policy_cuda_system,
                                   mc_prompt_policy,
                                   mc_prompt_traj_step,
                                   mc_prompt_critic_system, mc_prompt_critic};
        struct mc_hash h;
        struct mc_digest d;
        char hex[MC_KEY_HEX + 1];
        size_t i;

        if (mc_hash_init(&h))
            return "p1-unknown";
        for (i = 0; i < MC_ARRAY_SIZE(all); i++)
            mc_hash_field_str(&h, "template", all[i]);
        mc_hash_digest(&h, &d);
        mc_hash_release(&h);
        mc_digest_hex(&d, hex);
        snprintf(version, sizeof(version), "p1-%.16s", hex);
    }
    return version;
}

/* ---- extraction ---- */

struct span {
    const char *s;
    size_t len;
};

/* Is the line at P (up to its newline) a fence line: optional blanks,
 * then three or more backticks? */
static int
fence_line(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return !strncmp(p, "```", 3);
}

static const char *
next_line(const char *p)
{
    p += strcspn(p, "\n");
    return *p ? p + 1 : p;
}

/* The fenced blocks of ANSWER, at most CAP, into B; their count. */
static size_t
fenced_blocks(const char *answer, struct span *b, size_t cap)
{
    const char *p = answer;
    size_t n = 0;

    while (*p) {
        if (fence_line(p)) {
            const char *body = next_line(p), *q = body;

            while (*q && !fence_line(q))
                q = next_line(q);
            if (n < cap) {
                b[n].s = body;
                b[n].len = (size_t)(q - body);
                n++;
            }
            p = *q ? next_line(q) : q;
            continue;
        }
        p = next_line(p);
    }
    return n;
}

/* Does the line at P look like the start of C, C++ or CUDA code? */
static int
code_line(const char *p, size_t len)
{
    static const char *const starts[] = {
        "#", "//", "/*", "static ", "int ", "void ", "extern ", "typedef ",
        "struct ", "const ", "unsigned ", "double ", "float ", "char ",
        "long ", "template", "namespace ", "using ", "__global__", "inline ",
        "size_t ", "class ", "enum ", "union ", "uint", "bool ", "auto "};
    size_t i;

    while (len && (*p == ' ' || *p == '\t')) {
        p++;
        len--;
    }
    for (i = 0; i < MC_ARRAY_SIZE(starts); i++)
        if (len >= strlen(starts[i]) &&
            !strncmp(p, starts[i], strlen(starts[i])))
            return 1;
    return len && (p[len - 1] == ';' || p[len - 1] == '{' ||
                   p[len - 1] == '}');
}

/* Unfenced code: from the first line that looks like code to the last
 * line ending a statement, a block or a directive. */
static int
bare_code(const char *answer, struct span *out)
{
    const char *p = answer, *first = NULL, *last_end = NULL;

    for (; *p; p = next_line(p)) {
        size_t len = strcspn(p, "\n");
        const char *e = p + len;

        while (e > p && isspace((unsigned char)e[-1]))
            e--;
        if (!first && code_line(p, (size_t)(e - p)))
            first = p;
        if (first && e > p &&
            (e[-1] == ';' || e[-1] == '}' || e[-1] == '{' ||
             code_line(p, (size_t)(e - p))))
            last_end = p + len;
    }
    if (!first || !last_end || last_end <= first)
        return -1;
    out->s = first;
    out->len = (size_t)(last_end - first);
    return 0;
}

/* Is the line at P (LEN bytes) '#pragma maxcode WORD'? */
static int
pragma_line(const char *p, size_t len, const char *word)
{
    const char *e = p + len;
    size_t w = strlen(word);

    while (p < e && isspace((unsigned char)*p))
        p++;
    if (p == e || *p++ != '#')
        return 0;
    while (p < e && isspace((unsigned char)*p))
        p++;
    if ((size_t)(e - p) < 6 || strncmp(p, "pragma", 6))
        return 0;
    p += 6;
    while (p < e && isspace((unsigned char)*p))
        p++;
    if ((size_t)(e - p) < 7 || strncmp(p, "maxcode", 7))
        return 0;
    p += 7;
    while (p < e && isspace((unsigned char)*p))
        p++;
    return (size_t)(e - p) >= w && !strncmp(p, word, w) &&
           (p + w == e || isspace((unsigned char)p[w]) || p[w] == '/');
}

/* The fenced regions of ORIG: for each, the offset just after its begin
 * line and the offset of its end line. */
static size_t
regions(const char *orig, size_t olen, size_t *body, size_t *end, size_t cap)
{
    size_t off = 0, n = 0;
    int inside = 0;

    while (off < olen) {
        const char *nl = memchr(orig + off, '\n', olen - off);
        size_t len = nl ? (size_t)(nl - (orig + off)) : olen - off;
        size_t next = off + len + (nl != NULL);

        if (!inside && pragma_line(orig + off, len, "begin")) {
            if (n < cap)
                body[n] = next;
            inside = 1;
        } else if (inside && pragma_line(orig + off, len, "end")) {
            if (n < cap)
                end[n] = off;
            n++;
            inside = 0;
        }
        off = next;
    }
    return n < cap ? n : cap;
}

/* Is SP only blanks? */
static int
blank(const struct span *sp)
{
    size_t i;

    for (i = 0; i < sp->len; i++)
        if (!isspace((unsigned char)sp->s[i]))
            return 0;
    return 1;
}

static void
add_code(struct mc_buf *out, const struct span *sp)
{
    mc_buf_add(out, sp->s, sp->len);
    if (sp->len && sp->s[sp->len - 1] != '\n')
        mc_buf_addc(out, '\n');
}

int
mc_prompt_extract(const char *answer, const char *orig, size_t olen,
                  struct mc_buf *out, struct mc_buf *why)
{
    struct span blocks[32], one;
    size_t body[32], end[32];
    size_t nb = fenced_blocks(answer, blocks, MC_ARRAY_SIZE(blocks));
    size_t nr = regions(orig, olen, body, end, MC_ARRAY_SIZE(body));
    size_t i, big = 0;

    mc_buf_reset(out);
    for (i = 0; i < nb && blank(&blocks[i]); i++)
        ;
    if (nb && i == nb) {
        mc_buf_adds(why, "the answer's code block is empty");
        return -1;
    }
    if (!nb) {
        if (bare_code(answer, &one)) {
            mc_buf_adds(why, "the answer holds no code");
            return -1;
        }
        blocks[0] = one;
        nb = 1;
    }
    for (i = 1; i < nb; i++)
        if (blocks[i].len > blocks[big].len)
            big = i;
    if (!nr) {
        add_code(out, &blocks[big]);
        return mc_buf_status(out) ? -1 : 0;
    }
    /* A block with the fence pragmas is the whole file when it keeps
     * what lies outside them; else it echoes the regions, pragmas and
     * all, and their bodies are what counts. */
    for (i = 0; i < nb; i++) {
        size_t bbody[32], bend[32], k;
        size_t bn = regions(blocks[i].s, blocks[i].len, bbody, bend,
                            MC_ARRAY_SIZE(bbody));

        if (!bn)
            continue;
        if (mc_mark_check_fences(orig, olen, blocks[i].s, blocks[i].len,
                                 NULL) == MC_OK) {
            add_code(out, &blocks[i]);
            return mc_buf_status(out) ? -1 : 0;
        }
        if (bn != nr) {
            mc_buf_addf(why, "the answer has %zu fenced regions where the "
                        "original has %zu", bn, nr);
            return -1;
        }
        mc_buf_add(out, orig, body[0]);
        for (k = 0; k < nr; k++) {
            struct span sp;
            sp.s = blocks[i].s + bbody[k];
            sp.len = bend[k] - bbody[k];
            add_code(out, &sp);
            mc_buf_add(out, orig + end[k],
                       (k + 1 < nr ? body[k + 1] : olen) - end[k]);
        }
        return mc_buf_status(out) ? -1 : 0;
    }
    if (nr != 1 && nb != nr) {
        mc_buf_addf(why, "the answer has %zu code blocks for %zu fenced "
                    "regions and is not the whole file", nb, nr);
        return -1;
    }
    /* The blocks are the regions' bodies. */
    mc_buf_add(out, orig, body[0]);
    for (i = 0; i < nr; i++) {
        add_code(out, nr == 1 ? &blocks[big] : &blocks[i]);
        mc_buf_add(out, orig + end[i],
                   (i + 1 < nr ? body[i + 1] : olen) - end[i]);
    }
    return mc_buf_status(out) ? -1 : 0;
}
