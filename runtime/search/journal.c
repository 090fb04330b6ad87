/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * journal.c: the search's journal, written line by line as candidates
 * are judged and read back on resume. The grammar is in journal.h.
 */
#include "mc_setup.h"
#include "journal.h"
#include "alloc.h"
#include "file.h"
#include "json.h"
#include "log.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>

void
mc_journal_log_init(struct mc_journal_log *log)
{
    memset(log, 0, sizeof(*log));
    mc_usage_init(&log->usage);
    mc_usage_init(&log->value_usage);
}

void
mc_journal_log_release(struct mc_journal_log *log)
{
    size_t i;

    for (i = 0; i < log->n; i++)
        mc_search_node_release(&log->nodes[i]);
    mc_free(log->nodes);
    mc_usage_release(&log->usage);
    mc_usage_release(&log->value_usage);
    mc_journal_log_init(log);
}

/* Append O, printed on one line, to the journal at PATH. A line that
 * cannot be written whole (a full disk) is cut off again, so that the
 * lines after it, once there is room, are not glued to a torn one; the
 * first such failure of a process is said. A journal that cannot be
 * opened (.maxcode/ removed meanwhile) is skipped without a word: the
 * search goes on, only its resume is lost. */
static void
put_line(const char *path, cJSON *o)
{
    static int said;
    char *text = cJSON_PrintUnformatted(o);
    struct stat st;
    int fd;

    if (!text)
        return;
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (fd >= 0) {
        size_t n = strlen(text);
        off_t end = fstat(fd, &st) ? -1 : st.st_size;
        ssize_t w;

        text[n] = '\n';
        /* One write of the whole line: O_APPEND keeps it in one piece. */
        w = write(fd, text, n + 1);
        if (w != (ssize_t)(n + 1)) {
            int e = w < 0 ? errno : ENOSPC;

            if (w > 0 && end >= 0 && ftruncate(fd, end))
                e = errno;
            if (!said++)
                mc_info("cannot write the journal '%s': %s; the search "
                        "goes on, and a build stopped now would not "
                        "resume it", path, strerror(e));
        }
        text[n] = '\0';
        close(fd);
    }
    cJSON_free(text);
}

enum mc_code
mc_journal_start(const char *path, const struct mc_journal_head *h,
                 struct mc_err *err)
{
    cJSON *o = cJSON_CreateObject();

    unlink(path);
    if (!o)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    cJSON_AddNumberToObject(o, "maxcode_journal", 1);
    cJSON_AddStringToObject(o, "key", h->key);
    cJSON_AddStringToObject(o, "strategy", h->strategy);
    cJSON_AddNumberToObject(o, "budget", (double)h->budget);
    cJSON_AddStringToObject(o, "proposer", h->proposer);
    put_line(path, o);
    cJSON_Delete(o);
    return MC_OK;
}

/* Add USAGE to O as the member NAME. */
static void
add_usage(cJSON *o, const char *name, const struct mc_usage *usage)
{
    cJSON *u = usage ? cJSON_AddObjectToObject(o, name) : NULL;

    if (u)
        mc_usage_write(usage, u);
}

void
mc_journal_append(const char *path, const struct mc_search_node *nd,
                  const struct mc_usage *usage,
                  const struct mc_usage *value_usage)
{
    cJSON *o = mc_search_node_json(nd, MC_NODE_JOURNAL);

    if (!o)
        return;
    add_usage(o, "usage", usage);
    add_usage(o, "value_usage", value_usage);
    put_line(path, o);
    cJSON_Delete(o);
}

static int
head_matches(const cJSON *o, const struct mc_journal_head *h)
{
    return !strcmp(mc_json_text(o, "key", SIZE_MAX), h->key) &&
           !strcmp(mc_json_text(o, "strategy", SIZE_MAX), h->strategy) &&
           !strcmp(mc_json_text(o, "proposer", SIZE_MAX), h->proposer) &&
           mc_json_num_or(o, "budget", 0, DBL_MAX, -1) ==
               (double)h->budget; /* no cast of 1e300 */
}

/* A new node at the end of *V (*N of them, room for *CAP), set up
 * empty; NULL when out of memory. */
static struct mc_search_node *
new_node(struct mc_search_node **v, size_t *n, size_t *cap)
{
    struct mc_search_node *nd;

    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 16;

        nd = mc_realloc(*v, c * sizeof(*nd));
        if (!nd)
            return NULL;
        *v = nd;
        *cap = c;
    }
    nd = &(*v)[(*n)++];
    mc_search_node_init(nd);
    return nd;
}

/* Add the node line O to LOG. */
static enum mc_code
add_node(struct mc_journal_log *log, const cJSON *o)
{
    struct mc_search_node *nd;
    enum mc_code rc;

    nd = new_node(&log->nodes, &log->n, &log->cap);
    if (!nd)
        return MC_ENOMEM;
    rc = mc_search_node_parse(o, nd);
    if (nd->parent >= (int)log->n - 1)
        nd->parent = -1;
    if (nd->duplicate_of >= (int)log->n - 1)
        nd->duplicate_of = -1;
    if (!rc)
        rc = mc_usage_read(&log->usage, mc_json_object(o, "usage"));
    if (!rc)
        rc = mc_usage_read(&log->value_usage,
                           mc_json_object(o, "value_usage"));
    return rc;
}

enum mc_code
mc_journal_read(const char *path, const struct mc_journal_head *h,
                size_t max, struct mc_journal_log *log, struct mc_err *err)
{
    struct mc_buf text = MC_BUF_INIT;
    enum mc_code rc = mc_file_read(path, &text, NULL);
    const char *p = text.s;

    if (rc == MC_ENOENT) {
        rc = MC_OK;
        goto out;
    }
    if (rc) {
        rc = mc_err_set(err, rc, "cannot read the journal '%s': %s", path,
                        mc_strerror(rc));
        goto out;
    }
    while (*p && log->n < max) {
        size_t n = strcspn(p, "\n");
        cJSON *o = p[n] == '\n' ? cJSON_ParseWithLength(p, n) : NULL;

        p += n + (p[n] == '\n');
        if (!o)
            break; /* a torn last line */
        if (!log->matched)
            log->matched = head_matches(o, h);
        else
            rc = add_node(log, o);
        cJSON_Delete(o);
        if (rc) {
            rc = mc_err_set(err, rc, "out of memory");
            goto out;
        }
    }
out:
    mc_buf_release(&text);
    return rc;
}

/* ---- the trajectory of a cache entry ---- */

/* Append O, printed on one line, and a newline to OUT. */
static enum mc_code
add_line(struct mc_buf *out, cJSON *o)
{
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;

    if (!text)
        return MC_ENOMEM;
    mc_buf_adds(out, text);
    mc_buf_addc(out, '\n');
    cJSON_free(text);
    return mc_buf_status(out);
}

enum mc_code
mc_trajectory_write(const struct mc_trajectory_head *h,
                    const struct mc_search_node *nodes, size_t n,
                    struct mc_buf *out)
{
    cJSON *o = cJSON_CreateObject();
    enum mc_code rc;
    size_t i;

    if (!o)
        return MC_ENOMEM;
    cJSON_AddNumberToObject(o, "maxcode_trajectory", 1);
    cJSON_AddStringToObject(o, "key", h->key);
    cJSON_AddStringToObject(o, "lang", h->lang);
    cJSON_AddStringToObject(o, "strategy", h->strategy);
    cJSON_AddStringToObject(o, "proposer", h->proposer);
    cJSON_AddNumberToObject(o, "budget", (double)h->budget);
    cJSON_AddStringToObject(o, "bins", h->bins);
    cJSON_AddNumberToObject(o, "gamma", h->gamma);
    cJSON_AddStringToObject(o, "ranking", h->ranking ? h->ranking : "");
    cJSON_AddStringToObject(o, "original", h->original ? h->original : "");
    rc = add_line(out, o);
    cJSON_Delete(o);
    for (i = 0; !rc && i < n; i++) {
        o = mc_search_node_json(&nodes[i], MC_NODE_JOURNAL);
        rc = add_line(out, o);
        cJSON_Delete(o);
    }
    return rc;
}

void
mc_trajectory_init(struct mc_trajectory *t)
{
    memset(t, 0, sizeof(*t));
    mc_buf_init(&t->original);
}

void
mc_trajectory_release(struct mc_trajectory *t)
{
    size_t i;

    mc_free(t->key);
    mc_free(t->lang);
    mc_free(t->strategy);
    mc_free(t->proposer);
    mc_free(t->bins);
    mc_free(t->ranking);
    mc_buf_release(&t->original);
    for (i = 0; i < t->n; i++)
        mc_search_node_release(&t->nodes[i]);
    mc_free(t->nodes);
    mc_trajectory_init(t);
}

/* The header O into T. */
static enum mc_code
trajectory_head(const cJSON *o, struct mc_trajectory *t)
{
    const size_t any = SIZE_MAX; /* the original is a whole source */

    t->key = mc_strdup(mc_json_text(o, "key", any));
    t->lang = mc_strdup(mc_json_text(o, "lang", any));
    t->strategy = mc_strdup(mc_json_text(o, "strategy", any));
    t->proposer = mc_strdup(mc_json_text(o, "proposer", any));
    t->bins = mc_strdup(mc_json_text(o, "bins", any));
    t->ranking = mc_strdup(mc_json_text(o, "ranking", any));
    t->budget = (size_t)mc_json_num_or(o, "budget", 0, 1e6, 0);
    t->gamma = mc_json_num_or(o, "gamma", 0, 1, 1);
    if (!(t->gamma > 0 && t->gamma <= 1))
        t->gamma = 1;
    if (!t->key || !t->lang || !t->strategy || !t->proposer || !t->bins ||
        !t->ranking ||
        mc_buf_adds(&t->original, mc_json_text(o, "original", any)))
        return MC_ENOMEM;
    return MC_OK;
}

/* The node line O as T's next node. */
static enum mc_code
trajectory_node(const cJSON *o, struct mc_trajectory *t)
{
    struct mc_search_node *nd;

    nd = new_node(&t->nodes, &t->n, &t->cap);
    if (!nd)
        return MC_ENOMEM;
    if (mc_search_node_parse(o, nd))
        return MC_ENOMEM;
    if (nd->parent >= (int)t->n - 1 || nd->parent < -1)
        nd->parent = -1;
    if (nd->duplicate_of >= (int)t->n - 1)
        nd->duplicate_of = -1;
    nd->depth = nd->parent >= 0 ? t->nodes[nd->parent].depth + 1 : 1;
    /* u_t is the path's: rebuilt from the parent's, never trusted. */
    nd->ut = fmax(nd->parent >= 0 ? t->nodes[nd->parent].ut : 0,
                  pow(t->gamma, nd->depth - 1) * nd->fr);
    return MC_OK;
}

enum mc_code
mc_trajectory_parse(const char *text, size_t len, struct mc_trajectory *t,
                    struct mc_err *err)
{
    size_t off = 0, line = 0;
    enum mc_code rc = MC_OK;

    while (off < len && !rc) {
        const char *nl = memchr(text + off, '\n', len - off);
        size_t n = nl ? (size_t)(nl - (text + off)) : len - off;
        cJSON *o = cJSON_ParseWithLength(text + off, n);

        line++;
        off += n + 1;
        if (!cJSON_IsObject(o))
            rc = mc_err_set(err, MC_ESYNTAX, "trajectory line %zu is not "
                            "a JSON object", line);
        else if (line == 1 && !mc_json_num_or(o, "maxcode_trajectory",
                                              -DBL_MAX, DBL_MAX, 0))
            rc = mc_err_set(err, MC_ESYNTAX, "the trajectory has no "
                            "header");
        else if (line == 1 && (rc = trajectory_head(o, t)))
            mc_err_set(err, rc, "out of memory");
        else if (line > 1 && (rc = trajectory_node(o, t)))
            mc_err_set(err, rc, "out of memory");
        cJSON_Delete(o);
    }
    if (!rc && !line)
        rc = mc_err_set(err, MC_ESYNTAX, "the trajectory is empty");
    return rc;
}
