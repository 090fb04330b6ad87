/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * curl_lib.h: libcurl, loaded when a module first needs it.
 *
 * libcurl brings some thirty shared libraries (TLS, Kerberos, LDAP, SSH,
 * IDN...) whose loading and start-up code cost every process that links
 * it about as much as the rest of its start: every make run that loads
 * the plugin and every `maxcode` command, though most never open a
 * connection (a cache hit, `maxcode stats`). So nothing links it:
 * mc_curl_load() opens it with dlopen() the first time the model client
 * or the HTTP cache backend starts, and the curl_* names used by the
 * modules that include this header go through the table it fills.
 * Include this header instead of <curl/curl.h>, and call a curl_*
 * function only after mc_curl_load() succeeded. curl_easy_setopt()'s
 * compile-time type checks (typecheck-gcc.h) are off: they are macros
 * around the real names.
 */
#ifndef MC_CURL_LIB_H
#define MC_CURL_LIB_H

#ifndef CURL_DISABLE_TYPECHECK
#define CURL_DISABLE_TYPECHECK 1
#endif
#include <curl/curl.h>

#include "status.h"

struct mc_curl_lib {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
    CURLcode (*easy_perform)(CURL *curl);
    void (*easy_reset)(CURL *curl);
    void (*easy_cleanup)(CURL *curl);
    const char *(*easy_strerror)(CURLcode code);
    time_t (*getdate)(const char *p, const time_t *unused);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_add_handle)(CURLM *m, CURL *curl);
    CURLMcode (*multi_remove_handle)(CURLM *m, CURL *curl);
    CURLMcode (*multi_perform)(CURLM *m, int *running);
    CURLMcode (*multi_poll)(CURLM *m, struct curl_waitfd extra[],
                            unsigned int n, int timeout_ms, int *ret);
    CURLMsg *(*multi_info_read)(CURLM *m, int *left);
    CURLMcode (*multi_cleanup)(CURLM *m);
    struct curl_slist *(*slist_append)(struct curl_slist *list,
                                       const char *s);
    void (*slist_free_all)(struct curl_slist *list);
};

/* The table, once mc_curl_load() succeeded; NULL before. */
extern const struct mc_curl_lib *mc_curl_lib;

/*
 * Open libcurl (MC_CURL_SONAME, from configure), find every function
 * above and run curl_global_init(CURL_GLOBAL_DEFAULT), once per process;
 * later calls return at once. MC_EIO, with what failed in ERR, when the
 * library or a function is missing: the caller's feature (the model,
 * the remote cache) is then off, as when its server is down.
 */
enum mc_code mc_curl_load(struct mc_err *err);

#ifndef MC_CURL_LIB_SELF
/* curl.h makes these two macros that check their argument count. */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_global_init (mc_curl_lib->global_init)
#define curl_easy_init (mc_curl_lib->easy_init)
#define curl_easy_setopt (mc_curl_lib->easy_setopt)
#define curl_easy_getinfo (mc_curl_lib->easy_getinfo)
#define curl_easy_perform (mc_curl_lib->easy_perform)
#define curl_easy_reset (mc_curl_lib->easy_reset)
#define curl_easy_cleanup (mc_curl_lib->easy_cleanup)
#define curl_easy_strerror (mc_curl_lib->easy_strerror)
#define curl_getdate (mc_curl_lib->getdate)
#define curl_multi_init (mc_curl_lib->multi_init)
#define curl_multi_add_handle (mc_curl_lib->multi_add_handle)
#define curl_multi_remove_handle (mc_curl_lib->multi_remove_handle)
#define curl_multi_perform (mc_curl_lib->multi_perform)
#define curl_multi_poll (mc_curl_lib->multi_poll)
#define curl_multi_info_read (mc_curl_lib->multi_info_read)
#define curl_multi_cleanup (mc_curl_lib->multi_cleanup)
#define curl_slist_append (mc_curl_lib->slist_append)
#define curl_slist_free_all (mc_curl_lib->slist_free_all)
#endif

#endif /* MC_CURL_LIB_H */
