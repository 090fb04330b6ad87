/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cuda.c: the CUDA device probe and its remembered result (see cuda.h).
 */
#include "mc_setup.h"
#include "cuda.h"
#include "alloc.h"
#include "file.h"
#include "json.h"
#include "native.h"
#include "spawn.h"
#include "strv.h"

#include <cjson/cJSON.h>

#define PROBE_BUILD_TIMEOUT_S 180 /* nvcc on a busy machine */
#define PROBE_RUN_TIMEOUT_S   60  /* the first CUDA call can be slow */

/* The probe program: the runtime's view of the devices, as lines. */
static const char probe_src[] =
    "#include <cuda_runtime.h>\n"
    "#include <stdio.h>\n"
    "int main(void)\n"
    "{\n"
    "    int n = 0, drv = 0, rt = 0, i;\n"
    "    cudaError_t e;\n"
    "    cudaDriverGetVersion(&drv);\n"
    "    cudaRuntimeGetVersion(&rt);\n"
    "    printf(\"driver %d\\nruntime %d\\n\", drv, rt);\n"
    "    e = cudaGetDeviceCount(&n);\n"
    "    if (e != cudaSuccess) {\n"
    "        printf(\"error %s\\n\", cudaGetErrorString(e));\n"
    "        return 0;\n"
    "    }\n"
    "    for (i = 0; i < n; i++) {\n"
    "        cudaDeviceProp p;\n"
    "        if (cudaGetDeviceProperties(&p, i) == cudaSuccess)\n"
    "            printf(\"device %d.%d %s\\n\", p.major, p.minor, p.name);\n"
    "    }\n"
    "    return 0;\n"
    "}\n";

static void
set_str(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

/* "12080" -> "12.8", as CUDA writes its versions. */
static void
version_text(long v, char *out, size_t cap)
{
    if (v <= 0)
        snprintf(out, cap, "%s", "");
    else
        snprintf(out, cap, "%ld.%ld", v / 1000, (v % 1000) / 10);
}

/* The first line of a file, trimmed, into OUT (or "" when unreadable). */
static void
first_line(const char *path, char *out, size_t cap)
{
    struct mc_buf b = MC_BUF_INIT;

    out[0] = '\0';
    if (mc_file_read(path, &b, NULL) == MC_OK && b.len)
        set_str(out, cap, b.s, strcspn(b.s, "\r\n"));
    mc_buf_release(&b);
}

/* The remembered result's path for this machine and boot, into B. */
static enum mc_code
remembered_path(const char *cache_dir, struct mc_buf *b)
{
    char machine[128], boot[128];

    mc_machine_id(machine, sizeof(machine));
    first_line("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
    mc_buf_addf(b, "%s/cuda/%s-%s.json", cache_dir, machine,
                boot[0] ? boot : "boot");
    return mc_buf_status(b) ? MC_ENOMEM : MC_OK;
}

/* The longest string of a probe result taken (each is then cut to its
 * field); a longer one reads as "". */
#define PROBE_STR_MAX 4096

/* Member NAME of the probe result O as a string (json.h), else "". */
static const char *
probe_str(const cJSON *o, const char *name)
{
    return mc_json_text(o, name, PROBE_STR_MAX);
}

/* P from the JSON TEXT; 0 when it is not a probe result. */
static int
parse_probe(const char *text, size_t len, struct mc_cuda_probe *p)
{
    cJSON *o = cJSON_ParseWithLength(text, len);
    const cJSON *devs, *d;

    memset(p, 0, sizeof(*p));
    devs = mc_json_array(o, "devices");
    if (!cJSON_IsObject(o) || !devs) {
        cJSON_Delete(o);
        return 0;
    }
    cJSON_ArrayForEach(d, devs) {
        if (p->n == MC_CUDA_MAX_DEVICES)
            break;
        snprintf(p->dev[p->n].name, sizeof(p->dev[0].name), "%s",
                 probe_str(d, "name"));
        snprintf(p->dev[p->n].cc, sizeof(p->dev[0].cc), "%s",
                 probe_str(d, "cc"));
        p->n++;
    }
    snprintf(p->driver, sizeof(p->driver), "%s", probe_str(o, "driver"));
    snprintf(p->runtime, sizeof(p->runtime), "%s", probe_str(o, "runtime"));
    snprintf(p->error, sizeof(p->error), "%s", probe_str(o, "error"));
    snprintf(p->via, sizeof(p->via), "%s", probe_str(o, "via"));
    p->known = 1;
    cJSON_Delete(o);
    return 1;
}

/* Read the probe result at PATH into P (P->known 0 when there is none):
 * in the cache directory DIR when DIR is not NULL, PATH being under it,
 * else the test hook's file. */
static enum mc_code
read_file(const char *dir, const char *path, struct mc_cuda_probe *p)
{
    struct mc_buf b = MC_BUF_INIT;
    enum mc_code rc = dir ? mc_file_read_shared(dir, path + strlen(dir) + 1,
                                                MC_FILE_SMALL, &b, NULL)
                          : mc_file_read(path, &b, NULL);

    memset(p, 0, sizeof(*p));
    if (rc == MC_OK)
        parse_probe(b.s, b.len, p);
    mc_buf_release(&b);
    return rc == MC_ENOMEM ? MC_ENOMEM : MC_OK;
}

/* The test hook's file, or NULL. */
static const char *
hook(void)
{
    const char *h = getenv("MAXCODE_CUDA_PROBE");

    return h && *h ? h : NULL;
}

enum mc_code
mc_cuda_probe_read(const char *cache_dir, struct mc_cuda_probe *p,
                   struct mc_err *err)
{
    struct mc_buf path = MC_BUF_INIT;
    enum mc_code rc;

    if (hook()) {
        rc = read_file(NULL, hook(), p);
        snprintf(p->via, sizeof(p->via), "%s", "hook");
    } else {
        rc = remembered_path(cache_dir, &path);
        if (!rc)
            rc = read_file(cache_dir, path.s, p);
    }
    mc_buf_release(&path);
    return rc ? mc_err_set(err, rc, "out of memory") : MC_OK;
}

/* Run ARGV (timeout T) into R; MC_OK when it ran and exited 0. */
static enum mc_code
run_ok(char *const *argv, const char *cwd, double t,
       struct mc_spawn_result *r)
{
    struct mc_spawn_opts so = {.cwd = cwd, .timeout_s = t};

    if (mc_spawn(argv, &so, r, NULL))
        return MC_EIO;
    return r->exited && r->status == 0 ? MC_OK : MC_EINVAL;
}

/* P from the probe program's lines OUT. */
static void
parse_lines(const char *out, struct mc_cuda_probe *p)
{
    const char *l;

    for (l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1
                                               : NULL) {
        size_t n = strcspn(l, "\n");

        if (!strncmp(l, "driver ", 7)) {
            version_text(strtol(l + 7, NULL, 10), p->driver,
                         sizeof(p->driver));
        } else if (!strncmp(l, "runtime ", 8)) {
            version_text(strtol(l + 8, NULL, 10), p->runtime,
                         sizeof(p->runtime));
        } else if (!strncmp(l, "error ", 6)) {
            set_str(p->error, sizeof(p->error), l + 6, n - 6);
        } else if (!strncmp(l, "device ", 7) && p->n < MC_CUDA_MAX_DEVICES) {
            const char *sp = memchr(l + 7, ' ', n - 7);
            struct mc_cuda_device *d = &p->dev[p->n++];

            if (!sp)
                sp = l + n;
            set_str(d->cc, sizeof(d->cc), l + 7, (size_t)(sp - l - 7));
            set_str(d->name, sizeof(d->name), *sp ? sp + 1 : sp,
                    *sp ? (size_t)(l + n - sp - 1) : 0);
        }
    }
}

/* Build the probe program with NVCC in a scratch directory and run it;
 * MC_EINVAL (with P->error) when it cannot be built or run. */
static enum mc_code
probe_nvcc(const char *nvcc, struct mc_cuda_probe *p)
{
    const char *tmp = getenv("TMPDIR");
    struct mc_buf dir = MC_BUF_INIT, path = MC_BUF_INIT;
    struct mc_strv argv = MC_STRV_INIT;
    struct mc_spawn_result r;
    enum mc_code rc = MC_EINVAL;

    mc_spawn_result_init(&r);
    mc_buf_addf(&dir, "%s/maxcode-probe-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mc_buf_status(&dir) || !mkdtemp(dir.s)) {
        snprintf(p->error, sizeof(p->error), "%s", "no scratch directory");
        goto out;
    }
    mc_buf_addf(&path, "%s/probe.cu", dir.s);
    if (mc_file_write_atomic(path.s, probe_src, sizeof(probe_src) - 1, NULL))
        goto out;
    mc_shell_split(nvcc, &argv, NULL);
    mc_strv_push(&argv, "-o");
    mc_strv_push(&argv, "probe");
    mc_strv_push(&argv, "probe.cu");
    if (mc_strv_status(&argv) || !argv.n)
        goto out;
    if (run_ok(argv.v, dir.s, PROBE_BUILD_TIMEOUT_S, &r)) {
        snprintf(p->error, sizeof(p->error), "'%s' cannot build the probe "
                 "program: %.160s", nvcc, r.err.s ? r.err.s : "");
        goto out;
    }
    mc_strv_release(&argv);
    mc_strv_push(&argv, "./probe");
    mc_spawn_result_release(&r);
    mc_spawn_result_init(&r);
    if (run_ok(argv.v, dir.s, PROBE_RUN_TIMEOUT_S, &r)) {
        snprintf(p->error, sizeof(p->error), "the probe program failed%s",
                 r.timed_out ? " (timed out)" : "");
        goto out;
    }
    parse_lines(r.out.s ? r.out.s : "", p);
    snprintf(p->via, sizeof(p->via), "%s", "nvcc");
    rc = MC_OK;
out:
    if (dir.s && dir.s[0]) {
        mc_buf_reset(&path);
        mc_buf_addf(&path, "%s/probe", dir.s);
        unlink(path.s);
        mc_buf_reset(&path);
        mc_buf_addf(&path, "%s/probe.cu", dir.s);
        unlink(path.s);
        rmdir(dir.s);
    }
    mc_spawn_result_release(&r);
    mc_strv_release(&argv);
    mc_buf_release(&dir);
    mc_buf_release(&path);
    return rc;
}

/* The devices from nvidia-smi; MC_EINVAL when it is not there or fails. */
static enum mc_code
probe_smi(struct mc_cuda_probe *p)
{
    char *argv[] = {"nvidia-smi", "--query-gpu=name,compute_cap,"
                    "driver_version", "--format=csv,noheader", NULL};
    struct mc_spawn_result r;
    const char *l;
    enum mc_code rc;

    mc_spawn_result_init(&r);
    rc = run_ok(argv, NULL, PROBE_RUN_TIMEOUT_S, &r);
    for (l = rc ? NULL : r.out.s; l && *l && p->n < MC_CUDA_MAX_DEVICES;
         l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        struct mc_cuda_device *d = &p->dev[p->n];
        size_t n = strcspn(l, ",\n"), m;

        if (!n || l[n] != ',')
            continue;
        set_str(d->name, sizeof(d->name), l, n);
        m = strspn(l + n + 1, " ");
        set_str(d->cc, sizeof(d->cc), l + n + 1 + m,
                strcspn(l + n + 1 + m, ",\n"));
        if (!p->driver[0] && strchr(l + n + 1, ',')) {
            const char *v = strchr(l + n + 1, ',') + 1;
            v += strspn(v, " ");
            set_str(p->driver, sizeof(p->driver), v, strcspn(v, "\n"));
        }
        p->n++;
    }
    mc_spawn_result_release(&r);
    if (rc)
        return MC_EINVAL;
    snprintf(p->via, sizeof(p->via), "%s", "nvidia-smi");
    return MC_OK;
}

enum mc_code
mc_cuda_probe_run(const char *cache_dir, const char *nvcc,
                  struct mc_cuda_probe *p, struct mc_err *err)
{
    struct mc_buf path = MC_BUF_INIT, json = MC_BUF_INIT;
    char why[256];
    enum mc_code rc;

    if (hook())
        return mc_cuda_probe_read(cache_dir, p, err);
    memset(p, 0, sizeof(*p));
    if (probe_nvcc(nvcc && *nvcc ? nvcc : "nvcc", p)) {
        snprintf(why, sizeof(why), "%s", p->error);
        memset(p, 0, sizeof(*p));
        if (probe_smi(p)) {
            snprintf(p->error, sizeof(p->error), "%.200s; no nvidia-smi",
                     why);
            snprintf(p->via, sizeof(p->via), "%s", "none");
        }
    }
    if (!p->n && !p->error[0])
        snprintf(p->error, sizeof(p->error), "%s", "the CUDA runtime "
                 "sees no device");
    p->known = 1;
    rc = remembered_path(cache_dir, &path);
    if (!rc)
        rc = mc_cuda_probe_json(p, &json);
    if (!rc && (mc_file_mkdirs_for(path.s, err) ||
                mc_file_write_atomic(path.s, json.s, json.len, err)))
        rc = MC_EIO;
    else if (rc)
        mc_err_set(err, rc, "out of memory");
    mc_buf_release(&path);
    mc_buf_release(&json);
    return rc;
}

enum mc_code
mc_cuda_probe_get(const char *cache_dir, const char *nvcc,
                  struct mc_cuda_probe *p, struct mc_err *err)
{
    enum mc_code rc = mc_cuda_probe_read(cache_dir, p, err);

    if (rc || p->known)
        return rc;
    return mc_cuda_probe_run(cache_dir, nvcc, p, err);
}

void
mc_cuda_identity(const struct mc_cuda_probe *p, struct mc_buf *b)
{
    const char *cc;

    if (!p->known) {
        mc_buf_adds(b, "unprobed");
        return;
    }
    if (!p->n) {
        mc_buf_adds(b, "none");
        return;
    }
    mc_buf_addf(b, "%s/sm_", p->dev[0].name);
    for (cc = p->dev[0].cc; *cc; cc++)
        if (*cc != '.')
            mc_buf_addc(b, *cc);
}

enum mc_code
mc_cuda_set_identity(struct mc_target *t, const struct mc_cuda_probe *p)
{
    struct mc_buf b = MC_BUF_INIT;

    mc_cuda_identity(p, &b);
    if (mc_buf_status(&b))
        return MC_ENOMEM;
    mc_free(t->gpu);
    t->gpu = mc_buf_detach(&b, NULL);
    return t->gpu ? MC_OK : MC_ENOMEM;
}

enum mc_code
mc_cuda_probe_json(const struct mc_cuda_probe *p, struct mc_buf *b)
{
    cJSON *o = cJSON_CreateObject(), *devs, *d;
    char *text = NULL;
    size_t i;
    int ok;

    devs = cJSON_AddArrayToObject(o, "devices");
    ok = devs != NULL;
    for (i = 0; ok && i < p->n; i++) {
        d = cJSON_CreateObject();
        ok = d && cJSON_AddItemToArray(devs, d) &&
             cJSON_AddNumberToObject(d, "index", (double)i) &&
             cJSON_AddStringToObject(d, "name", p->dev[i].name) &&
             cJSON_AddStringToObject(d, "cc", p->dev[i].cc);
    }
    ok = ok && cJSON_AddStringToObject(o, "driver", p->driver) &&
         cJSON_AddStringToObject(o, "runtime", p->runtime) &&
         (p->error[0] ? cJSON_AddStringToObject(o, "error", p->error) != NULL
                      : cJSON_AddNullToObject(o, "error") != NULL) &&
         cJSON_AddStringToObject(o, "via", p->via);
    if (ok)
        text = cJSON_Print(o);
    if (text) {
        mc_buf_adds(b, text);
        mc_buf_addc(b, '\n');
    }
    cJSON_free(text);
    cJSON_Delete(o);
    return text && !mc_buf_status(b) ? MC_OK : MC_ENOMEM;
}

void
mc_cuda_probe_describe(const struct mc_cuda_probe *p, struct mc_buf *b)
{
    size_t i;

    if (!p->known) {
        mc_buf_adds(b, "CUDA: not probed\n");
        return;
    }
    if (!p->n) {
        mc_buf_addf(b, "no CUDA device: %s\n", p->error);
        return;
    }
    mc_buf_addf(b, "CUDA: %zu device%s", p->n, p->n == 1 ? "" : "s");
    if (p->driver[0])
        mc_buf_addf(b, ", driver %s", p->driver);
    if (p->runtime[0])
        mc_buf_addf(b, ", runtime %s", p->runtime);
    mc_buf_addc(b, '\n');
    for (i = 0; i < p->n; i++)
        mc_buf_addf(b, "  %zu: %s (compute capability %s)\n", i,
                    p->dev[i].name, p->dev[i].cc);
}
