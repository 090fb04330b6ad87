/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * remote.c: GET and PUT of entries on an HTTP cache (see remote.h).
 *
 * Why the fetch happens in the search recipe and not while make parses:
 * a $(maxcode ...) call runs in make's only thread, so a remote lookup
 * there would put a network round trip (or a connect timeout, when the
 * server is down) in front of every marked unit, serially, even on
 * builds that need nothing. A local miss already emits a rule; its
 * recipe (`maxcode optimize`) asks the remote first, in make's jobs (in
 * parallel under -j), and only searches on a remote miss. A remote hit
 * then costs a process start and one GET (bench/overhead measures it).
 */
#include "mc_setup.h"
#include "remote.h"
#include "alloc.h"

#include <curl/curl.h>

#define HTTP_OK_MIN 200
#define HTTP_OK_MAX 299
#define HTTP_NOT_FOUND 404

static int curl_ready;

/* Parse the attributes after the URL ("|read-only|layout=flat"). */
static enum mc_code
parse_attrs(struct mc_remote *r, const char *p, struct mc_err *err)
{
    while (*p == '|') {
        const char *a = p + 1;
        size_t n = strcspn(a, "|");

        if (n == 9 && !strncmp(a, "read-only", 9))
            r->read_only = 1;
        else if (n == 11 && !strncmp(a, "layout=flat", 11))
            r->flat = 1;
        else if (n == 14 && !strncmp(a, "layout=subdirs", 14))
            r->flat = 0;
        else
            return mc_err_set(err, MC_ECONFIG, "MAXCODE_REMOTE: unknown "
                              "attribute '%.*s' (expected read-only, "
                              "layout=subdirs or layout=flat)", (int)n, a);
        p = a + n;
    }
    return MC_OK;
}

enum mc_code
mc_remote_init(struct mc_remote *r, const struct mc_conf *c,
               struct mc_err *err)
{
    const char *spec = mc_conf_get(c, MC_SET_REMOTE);
    size_t n = strcspn(spec, "|");

    memset(r, 0, sizeof(*r));
    if (!*spec)
        return MC_ENOENT;
    if (strncmp(spec, "http://", 7) && strncmp(spec, "https://", 8))
        return mc_err_set(err, MC_ECONFIG, "MAXCODE_REMOTE: '%.*s' is not "
                          "an http:// or https:// URL", (int)n, spec);
    while (n && spec[n - 1] == '/')
        n--;
    r->url = mc_strndup(spec, n);
    if (!r->url)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    if (parse_attrs(r, spec + strcspn(spec, "|"), err))
        return err->code;
    r->token = mc_conf_get(c, MC_SET_REMOTE_TOKEN);
    r->timeout_s = atof(mc_conf_get(c, MC_SET_REMOTE_TIMEOUT));
    r->connect_timeout_s = atof(mc_conf_get(c, MC_SET_REMOTE_CONNECT_TIMEOUT));
    if (!curl_ready) {
        if (curl_global_init(CURL_GLOBAL_DEFAULT))
            return mc_err_set(err, MC_EIO, "cannot initialise libcurl");
        curl_ready = 1;
    }
    r->curl = curl_easy_init();
    if (!r->curl)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    return MC_OK;
}

void
mc_remote_release(struct mc_remote *r)
{
    if (r->curl)
        curl_easy_cleanup(r->curl);
    mc_free(r->url);
    memset(r, 0, sizeof(*r));
}

enum mc_code
mc_remote_url(const struct mc_remote *r, const char *key, struct mc_buf *b)
{
    if (r->flat)
        mc_buf_addf(b, "%s/%s", r->url, key);
    else
        mc_buf_addf(b, "%s/%.2s/%s", r->url, key, key);
    return mc_buf_status(b);
}

static size_t
on_body(char *p, size_t size, size_t n, void *arg)
{
    struct mc_buf *b = arg;

    return mc_buf_add(b, p, size * n) ? 0 : size * n;
}

struct upload {
    const char *p;
    size_t left;
};

static size_t
on_read(char *p, size_t size, size_t n, void *arg)
{
    struct upload *u = arg;
    size_t k = size * n < u->left ? size * n : u->left;

    memcpy(p, u->p, k);
    u->p += k;
    u->left -= k;
    return k;
}

/* Set up R's handle for the object KEY; HEADERS gets the token's header
 * (the caller frees it). */
static enum mc_code
prepare(struct mc_remote *r, const char *key, struct mc_buf *url,
        struct curl_slist **headers, char *errbuf)
{
    CURL *h = r->curl;

    curl_easy_reset(h);
    if (mc_remote_url(r, key, url))
        return MC_ENOMEM;
    *headers = NULL;
    if (*r->token) {
        struct mc_buf auth = MC_BUF_INIT;

        mc_buf_addf(&auth, "Authorization: Bearer %s", r->token);
        *headers = auth.s ? curl_slist_append(NULL, auth.s) : NULL;
        mc_buf_release(&auth);
        if (!*headers)
            return MC_ENOMEM;
    }
    curl_easy_setopt(h, CURLOPT_URL, url->s);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, *headers);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     (long)(r->connect_timeout_s * 1000));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(r->timeout_s * 1000));
    curl_easy_setopt(h, CURLOPT_USERAGENT, "maxcode/" PACKAGE_VERSION);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(h, CURLOPT_PROTOCOLS,
                     (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    return MC_OK;
}

/* URL as messages show it: a user and password in it become "***". */
static void
shown_url(const char *url, char *out, size_t cap)
{
    const char *host = strstr(url, "://"), *at, *slash;

    host = host ? host + 3 : url;
    slash = host + strcspn(host, "/");
    at = memchr(host, '@', (size_t)(slash - host));
    if (at)
        snprintf(out, cap, "%.*s***%s", (int)(host - url), url, at);
    else
        snprintf(out, cap, "%s", url);
}

/* Perform R's prepared request: MC_OK on a 2xx, MC_ENOENT on 404, else
 * MC_EIO with what went wrong in ERR. */
static enum mc_code
perform(struct mc_remote *r, const char *what, const char *url,
        const char *errbuf, struct mc_err *err)
{
    CURLcode cc = curl_easy_perform(r->curl);
    long status = 0;
    char shown[256];

    shown_url(url, shown, sizeof(shown));
    if (cc != CURLE_OK)
        return mc_err_set(err, MC_EIO, "remote %s %s: %s", what, shown,
                          errbuf[0] ? errbuf : curl_easy_strerror(cc));
    curl_easy_getinfo(r->curl, CURLINFO_RESPONSE_CODE, &status);
    if (status >= HTTP_OK_MIN && status <= HTTP_OK_MAX)
        return MC_OK;
    if (status == HTTP_NOT_FOUND)
        return MC_ENOENT;
    return mc_err_set(err, MC_EIO, "remote %s %s: HTTP status %ld", what,
                      shown, status);
}

enum mc_code
mc_remote_get(struct mc_remote *r, const char *key, struct mc_buf *out,
              struct mc_err *err)
{
    struct mc_buf url = MC_BUF_INIT;
    struct curl_slist *headers = NULL;
    char errbuf[CURL_ERROR_SIZE] = "";
    enum mc_code rc;

    mc_buf_reset(out);
    rc = prepare(r, key, &url, &headers, errbuf);
    if (!rc) {
        curl_easy_setopt(r->curl, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(r->curl, CURLOPT_WRITEDATA, out);
        rc = perform(r, "GET", url.s, errbuf, err);
    } else {
        rc = mc_err_set(err, rc, "out of memory");
    }
    if (!rc && mc_buf_status(out))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    curl_slist_free_all(headers);
    mc_buf_release(&url);
    return rc;
}

enum mc_code
mc_remote_put(struct mc_remote *r, const char *key, const void *data,
              size_t len, struct mc_err *err)
{
    struct mc_buf url = MC_BUF_INIT, sink = MC_BUF_INIT;
    struct curl_slist *headers = NULL;
    struct upload up = {data, len};
    char errbuf[CURL_ERROR_SIZE] = "";
    enum mc_code rc;

    if (r->read_only)
        return mc_err_set(err, MC_EINVAL, "the remote is read-only");
    rc = prepare(r, key, &url, &headers, errbuf);
    if (!rc) {
        curl_easy_setopt(r->curl, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(r->curl, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(r->curl, CURLOPT_READDATA, &up);
        curl_easy_setopt(r->curl, CURLOPT_INFILESIZE_LARGE,
                         (curl_off_t)len);
        curl_easy_setopt(r->curl, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(r->curl, CURLOPT_WRITEDATA, &sink);
        rc = perform(r, "PUT", url.s, errbuf, err);
        if (rc == MC_ENOENT) { /* a 404 to a PUT: the path is refused */
            char shown[256];

            shown_url(url.s, shown, sizeof(shown));
            rc = mc_err_set(err, MC_EIO, "remote PUT %s: HTTP status 404",
                            shown);
        }
    } else {
        rc = mc_err_set(err, rc, "out of memory");
    }
    curl_slist_free_all(headers);
    mc_buf_release(&url);
    mc_buf_release(&sink);
    return rc;
}
