/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * curl_lib.c: libcurl opened with dlopen() on first use (curl_lib.h).
 */
#define MC_CURL_LIB_SELF 1
#include "mc_setup.h"
#include "curl_lib.h"

#include <dlfcn.h>

#ifndef MC_CURL_SONAME
#define MC_CURL_SONAME "libcurl.so.4"
#endif

const struct mc_curl_lib *mc_curl_lib;

/* Each function of struct mc_curl_lib, by its name in libcurl, in the
 * order of the struct's members. */
static const char *const names[] = {
    "curl_global_init",         "curl_easy_init",
    "curl_easy_setopt",         "curl_easy_getinfo",
    "curl_easy_perform",        "curl_easy_reset",
    "curl_easy_cleanup",        "curl_easy_strerror",
    "curl_getdate",             "curl_multi_init",
    "curl_multi_add_handle",    "curl_multi_remove_handle",
    "curl_multi_perform",       "curl_multi_poll",
    "curl_multi_info_read",     "curl_multi_cleanup",
    "curl_slist_append",        "curl_slist_free_all",
};

/* The struct is exactly its function pointers, in names[]'s order. */
_Static_assert(sizeof(struct mc_curl_lib) ==
                   sizeof(names) / sizeof(names[0]) * sizeof(void (*)(void)),
               "one name in names[] per member of struct mc_curl_lib");

enum mc_code
mc_curl_load(struct mc_err *err)
{
    static struct mc_curl_lib lib;
    void (*fns[sizeof(names) / sizeof(names[0])])(void);
    void *h;
    size_t i;

    if (mc_curl_lib)
        return MC_OK;
    h = dlopen(MC_CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return mc_err_set(err, MC_EIO, "cannot load libcurl (%s): %s",
                          MC_CURL_SONAME, dlerror());
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        /* POSIX: a function's address from dlsym() converts this way. */
        *(void **)&fns[i] = dlsym(h, names[i]);
        if (!fns[i]) {
            dlclose(h);
            return mc_err_set(err, MC_EIO, "libcurl (%s) has no %s",
                              MC_CURL_SONAME, names[i]);
        }
    }
    memcpy(&lib, fns, sizeof(lib));
    if (lib.global_init(CURL_GLOBAL_DEFAULT)) {
        dlclose(h);
        return mc_err_set(err, MC_EIO, "cannot initialise libcurl");
    }
    /* The library stays open for the life of the process. */
    mc_curl_lib = &lib;
    return MC_OK;
}
