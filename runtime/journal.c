/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * journal.c: the search's journal, written line by line as candidates
 * are judged and read back on resume. The grammar is in journal.h.
 */
#include "mc_setup.h"
#include "journal.h"
#include "alloc.h"
#include "file.h"
#include "log.h"

#include <cjson/cJSON.h>
#include <fcntl.h>

void
mc_journal_log_init(struct mc_journal_log *log)
{
    memset(log, 0, sizeof(*log));
    mc_usage_init(&log->usage);
}

void
mc_journal_log_release(struct mc_journal_log *log)
{
    size_t i;

    for (i = 0; i < log->n; i++)
        mc_search_node_release(&log->nodes[i]);
    mc_free(log->nodes);
    mc_usage_release(&log->usage);
    mc_journal_log_init(log);
}

/* Append O, printed on one line, to the journal at PATH. */
static void
put_line(const char *path, cJSON *o)
{
    char *text = cJSON_PrintUnformatted(o);
    int fd;

    if (!text)
        return;
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (fd >= 0) {
        size_t n = strlen(text);
        text[n] = '\n';
        /* One write of the whole line: O_APPEND keeps it in one piece. */
        if (write(fd, text, n + 1) != (ssize_t)(n + 1))
            mc_info("cannot write the journal '%s'", path);
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

void
mc_journal_append(const char *path, const struct mc_search_node *nd,
                  const struct mc_usage *usage)
{
    cJSON *o = cJSON_CreateObject();

    if (!o)
        return;
    cJSON_AddNumberToObject(o, "parent", nd->parent);
    cJSON_AddNumberToObject(o, "depth", nd->depth);
    cJSON_AddNumberToObject(o, "tag", (double)nd->tag);
    cJSON_AddStringToObject(o, "label", nd->label ? nd->label : "");
    cJSON_AddStringToObject(o, "verdict", mc_verdict_name(nd->verdict));
    cJSON_AddBoolToObject(o, "correct", nd->correct);
    cJSON_AddBoolToObject(o, "compile_error", nd->compile_error);
    cJSON_AddBoolToObject(o, "confirmed", nd->confirmed);
    cJSON_AddNumberToObject(o, "speedup", nd->speedup);
    cJSON_AddNumberToObject(o, "reward", nd->reward);
    cJSON_AddNumberToObject(o, "u", nd->u);
    cJSON_AddStringToObject(o, "detail", nd->detail ? nd->detail : "");
    cJSON_AddStringToObject(o, "critique", nd->critique ? nd->critique : "");
    cJSON_AddStringToObject(o, "code", nd->code.s ? nd->code.s : "");
    if (usage) {
        cJSON *u = cJSON_AddObjectToObject(o, "usage");
        if (u)
            mc_usage_write(usage, u);
    }
    put_line(path, o);
    cJSON_Delete(o);
}

static const char *
jstr(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double
jnum(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static int
jbool(const cJSON *o, const char *name)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, name));
}

static int
head_matches(const cJSON *o, const struct mc_journal_head *h)
{
    return !strcmp(jstr(o, "key"), h->key) &&
           !strcmp(jstr(o, "strategy"), h->strategy) &&
           !strcmp(jstr(o, "proposer"), h->proposer) &&
           (size_t)jnum(o, "budget") == h->budget;
}

static enum mc_verdict
verdict_of(const char *name)
{
    enum mc_verdict v = MC_VERDICT_REJECTED;
    int k;

    for (k = 0; k <= MC_VERDICT_REJECTED; k++)
        if (!strcmp(name, mc_verdict_name((enum mc_verdict)k)))
            v = (enum mc_verdict)k;
    return v;
}

/* Add the node line O to LOG. */
static enum mc_code
add_node(struct mc_journal_log *log, const cJSON *o)
{
    struct mc_search_node *nd;

    if (log->n == log->cap) {
        size_t cap = log->cap ? log->cap * 2 : 16;
        nd = mc_realloc(log->nodes, cap * sizeof(*nd));
        if (!nd)
            return MC_ENOMEM;
        log->nodes = nd;
        log->cap = cap;
    }
    nd = &log->nodes[log->n++];
    mc_search_node_init(nd);
    nd->parent = (int)jnum(o, "parent");
    nd->depth = (int)jnum(o, "depth");
    nd->tag = (unsigned long)jnum(o, "tag");
    nd->verdict = verdict_of(jstr(o, "verdict"));
    nd->correct = jbool(o, "correct");
    nd->compile_error = jbool(o, "compile_error");
    nd->confirmed = jbool(o, "confirmed");
    nd->speedup = jnum(o, "speedup");
    nd->reward = jnum(o, "reward");
    nd->u = jnum(o, "u");
    if (nd->parent >= (int)log->n - 1)
        nd->parent = -1;
    nd->label = mc_strdup(jstr(o, "label"));
    nd->detail = mc_strdup(jstr(o, "detail"));
    nd->critique = mc_strdup(jstr(o, "critique"));
    if (!nd->label || !nd->detail || !nd->critique ||
        mc_buf_adds(&nd->code, jstr(o, "code")))
        return MC_ENOMEM;
    return mc_usage_read(&log->usage,
                         cJSON_GetObjectItemCaseSensitive(o, "usage"));
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
