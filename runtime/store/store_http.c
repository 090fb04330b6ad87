/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * store_http.c: the http backend of store.h, an HTTP server that keeps
 * entry files under their keys, as ccache's HTTP storage does (nginx
 * with WebDAV, or any object store that takes GET, HEAD and PUT).
 *
 *   MAXCODE_REMOTE = URL *("|" ATTRIBUTE)          ; store.h
 *   URL            = "http://" or "https://" HOST [":" PORT] [PATH]
 *
 * An entry's object (store.h) is at URL/OBJECT; its body is the entry
 * file's bytes. MAXCODE_REMOTE_TOKEN, when set, goes in an
 * "Authorization: Bearer" header and nowhere else; it goes over http://
 * only to the loopback (127.0.0.0/8, ::1, localhost) unless
 * MAXCODE_REMOTE_INSECURE=1, and a URL with a user or password in it is
 * refused by the settings (conf.c). Whatever the server sends, a GET
 * holds at most MC_ENTRY_MAX bytes of an entry, and an error page or
 * the answer to a PUT at most a few KiB (SMALL_BODY).
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
#include "store.h"
#include "alloc.h"
#include "cache.h"
#include "curl_lib.h"

#include <arpa/inet.h>
#include <strings.h>

#define HTTP_OK_MIN 200
#define HTTP_OK_MAX 299
#define HTTP_NOT_FOUND 404


/* The backend's state (struct mc_store's). */
struct http {
    char *url;                /* without a trailing '/' */
    const char *token;        /* MAXCODE_REMOTE_TOKEN, or "" (borrowed) */
    double timeout_s, connect_timeout_s;
    void *curl;               /* one easy handle, reused */
};

static void shown_url(const char *url, char *out, size_t cap);

/* Whether the host of URL (an http:// URL without credentials) is on
 * the loopback: 127.0.0.0/8, ::1 or localhost. */
static int
is_loopback(const char *url)
{
    const char *host = strstr(url, "://") + 3;
    char name[256];
    size_t n;
    struct in_addr a4;
    struct in6_addr a6;

    if (*host == '[') {
        host++;
        n = strcspn(host, "]");
    } else {
        n = strcspn(host, ":/?#");
    }
    if (n >= sizeof(name))
        return 0;
    memcpy(name, host, n);
    name[n] = '\0';
    if (!strcasecmp(name, "localhost"))
        return 1;
    if (inet_pton(AF_INET, name, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    return inet_pton(AF_INET6, name, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

/* Set S up for the URL WHERE (store.h's open()): MC_ECONFIG, saying
 * what is wrong, when a token would go over http:// to a host outside
 * the loopback without MAXCODE_REMOTE_INSECURE=1. */
static enum mc_code
http_open(struct mc_store *s, const char *where, const struct mc_conf *c,
          struct mc_err *err)
{
    struct http *r = mc_calloc(1, sizeof(*r));

    s->state = r;
    if (!r)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    r->url = mc_strdup(where);
    if (!r->url)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    r->token = mc_conf_get(c, MC_SET_REMOTE_TOKEN);
    if (*r->token && !strncmp(r->url, "http://", 7) && !is_loopback(r->url) &&
        strcmp(mc_conf_get(c, MC_SET_REMOTE_INSECURE), "1")) {
        char shown[256];

        shown_url(r->url, shown, sizeof(shown));
        return mc_err_set(err, MC_ECONFIG, "MAXCODE_REMOTE_TOKEN is not "
                          "sent to %s: over http:// to a host outside the "
                          "loopback anyone on the way can read it; use "
                          "https://, or MAXCODE_REMOTE_INSECURE=1 to send "
                          "it all the same", shown);
    }
    r->timeout_s = atof(mc_conf_get(c, MC_SET_REMOTE_TIMEOUT));
    r->connect_timeout_s = atof(mc_conf_get(c, MC_SET_REMOTE_CONNECT_TIMEOUT));
    if (mc_curl_load(err))
        return MC_EIO;
    r->curl = curl_easy_init();
    if (!r->curl)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    return MC_OK;
}

static void
http_close(struct mc_store *s)
{
    struct http *r = s->state;

    if (!r)
        return;
    if (r->curl)
        curl_easy_cleanup(r->curl);
    mc_free(r->url);
    mc_free(r);
    s->state = NULL;
}

/* The object URL of KEY into B. */
static enum mc_code
object_url(const struct mc_store *s, const char *key, struct mc_buf *b)
{
    const struct http *r = s->state;

    mc_buf_addf(b, "%s/", r->url);
    return mc_store_object(s, key, b);
}

/*
 * What a transfer keeps of the server's answer. Whatever the server
 * sends, maxcode holds at most MC_ENTRY_MAX bytes of an entry (a 2xx
 * answer to a GET) and SMALL_BODY of anything else (an error page, the
 * answer to a PUT). The cap is counted here, in the write callback, on
 * the bytes that arrive: libcurl's CURLOPT_MAXFILESIZE_LARGE (set too)
 * stops only an answer that announces its size (curl 7.88, Debian 12).
 */
#define SMALL_BODY 4096

struct sink {
    struct mc_buf *b;   /* the body */
    CURL *h;
    int entry;          /* a GET: a 2xx body is an entry */
    size_t over;        /* the cap that cut the answer off, or 0 */
};

static size_t
on_body(char *p, size_t size, size_t n, void *arg)
{
    struct sink *s = arg;
    size_t k = size * n, cap = SMALL_BODY;
    long status = 0;

    curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &status);
    if (s->entry && status >= HTTP_OK_MIN && status <= HTTP_OK_MAX)
        cap = MC_ENTRY_MAX;
    if (s->b->len > cap || k > cap - s->b->len) {
        s->over = cap;
        return 0; /* libcurl ends the transfer: CURLE_WRITE_ERROR */
    }
    return mc_buf_add(s->b, p, k) ? 0 : k;
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

/* Set up S's handle for the object KEY; HEADERS gets the token's header
 * (the caller frees it). */
static enum mc_code
prepare(struct mc_store *s, const char *key, struct mc_buf *url,
        struct curl_slist **headers, char *errbuf)
{
    struct http *r = s->state;
    CURL *h = r->curl;

    curl_easy_reset(h);
    if (object_url(s, key, url))
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

/* Perform R's prepared request, its answer going to S: MC_OK on a 2xx,
 * MC_ENOENT on 404, MC_ESYNTAX when a GET's 2xx answer runs past
 * MC_ENTRY_MAX (no entry is that large), else MC_EIO with what went
 * wrong in ERR. An error page cut off at SMALL_BODY is no error of its
 * own: its status decides. */
static enum mc_code
perform(struct http *r, const char *what, const char *url,
        const char *errbuf, const struct sink *s, struct mc_err *err)
{
    CURLcode cc = curl_easy_perform(r->curl);
    long status = 0;
    int ok;
    char shown[256];

    shown_url(url, shown, sizeof(shown));
    curl_easy_getinfo(r->curl, CURLINFO_RESPONSE_CODE, &status);
    ok = status >= HTTP_OK_MIN && status <= HTTP_OK_MAX;
    if (s->over || cc == CURLE_FILESIZE_EXCEEDED) {
        if (ok && s->entry)
            return mc_err_set(err, MC_ESYNTAX, "remote %s %s: the answer "
                              "is larger than any entry (%u MiB); cut off",
                              what, shown, MC_ENTRY_MAX >> 20);
        if (ok)
            return mc_err_set(err, MC_EIO, "remote %s %s: HTTP status %ld "
                              "with an answer over %d bytes; cut off",
                              what, shown, status, SMALL_BODY);
    } else if (cc != CURLE_OK) {
        return mc_err_set(err, MC_EIO, "remote %s %s: %s", what, shown,
                          errbuf[0] ? errbuf : curl_easy_strerror(cc));
    }
    if (ok)
        return MC_OK;
    if (status == HTTP_NOT_FOUND)
        return MC_ENOENT;
    return mc_err_set(err, MC_EIO, "remote %s %s: HTTP status %ld", what,
                      shown, status);
}

/* GET the entry KEY (store.h's get()): MC_ENOENT on 404; MC_ESYNTAX
 * when the answer is larger than any entry (MC_ENTRY_MAX): the transfer
 * is cut off there; MC_EIO for anything else that went wrong. */
static enum mc_code
http_get(struct mc_store *s, const char *key, struct mc_buf *out,
         struct mc_err *err)
{
    struct http *r = s->state;
    struct mc_buf url = MC_BUF_INIT;
    struct curl_slist *headers = NULL;
    char errbuf[CURL_ERROR_SIZE] = "";
    enum mc_code rc;

    struct sink sink = {out, r->curl, 1, 0};

    mc_buf_reset(out);
    rc = prepare(s, key, &url, &headers, errbuf);
    if (!rc) {
        curl_easy_setopt(r->curl, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(r->curl, CURLOPT_WRITEDATA, &sink);
        curl_easy_setopt(r->curl, CURLOPT_MAXFILESIZE_LARGE,
                         (curl_off_t)MC_ENTRY_MAX);
        rc = perform(r, "GET", url.s, errbuf, &sink, err);
    } else {
        rc = mc_err_set(err, rc, "out of memory");
    }
    if (!rc && mc_buf_status(out))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    curl_slist_free_all(headers);
    mc_buf_release(&url);
    return rc;
}

/* PUT the LEN bytes at DATA as the entry KEY (store.h's put()): MC_EIO
 * as for a GET, and when the answer runs past SMALL_BODY (it is cut off
 * there). */
static enum mc_code
http_put(struct mc_store *s, const char *key, const void *data, size_t len,
         struct mc_err *err)
{
    struct http *r = s->state;
    struct mc_buf url = MC_BUF_INIT, answer = MC_BUF_INIT;
    struct curl_slist *headers = NULL;
    struct upload up = {data, len};
    struct sink sink = {&answer, r->curl, 0, 0};
    char errbuf[CURL_ERROR_SIZE] = "";
    enum mc_code rc;

    if (s->read_only)
        return mc_err_set(err, MC_EINVAL, "the remote is read-only");
    rc = prepare(s, key, &url, &headers, errbuf);
    if (!rc) {
        curl_easy_setopt(r->curl, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(r->curl, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(r->curl, CURLOPT_READDATA, &up);
        curl_easy_setopt(r->curl, CURLOPT_INFILESIZE_LARGE,
                         (curl_off_t)len);
        curl_easy_setopt(r->curl, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(r->curl, CURLOPT_WRITEDATA, &sink);
        curl_easy_setopt(r->curl, CURLOPT_MAXFILESIZE_LARGE,
                         (curl_off_t)SMALL_BODY);
        rc = perform(r, "PUT", url.s, errbuf, &sink, err);
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
    mc_buf_release(&answer);
    return rc;
}

static void
http_describe(const struct mc_store *s, char *out, size_t cap)
{
    const struct http *r = s->state;

    shown_url(r && r->url ? r->url : "", out, cap);
}

static const char *const http_schemes[] = {"http://", "https://", NULL};

const struct mc_store_ops mc_store_http = {
    "http", http_schemes, http_open, http_get, http_put, http_describe,
    http_close,
};
