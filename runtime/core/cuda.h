/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cuda.h: the CUDA device probe. The probe finds the devices the CUDA
 * runtime sees (each one's name and compute capability) and the driver
 * and runtime versions, with a tiny program built by nvcc or, when that
 * cannot be built, with `nvidia-smi`. It runs once per machine and boot:
 * its result is remembered as JSON in CACHE_DIR/cuda/MACHINE-BOOT.json,
 * MACHINE being /etc/machine-id (else the host name) and BOOT the kernel's
 * boot ID, so a new boot (a new driver, a new card) probes again.
 *
 * make's thread (the plugin) only reads the remembered result; the
 * search recipe (`maxcode optimize`) and `maxcode cuda --refresh` probe.
 * The remembered JSON, which `maxcode cuda --json` prints:
 *   {"devices":[{"index":0,"name":"NVIDIA H200","cc":"9.0"}, ...],
 *    "driver":"12.8","runtime":"13.0","error":null or "why none",
 *    "via":"nvcc" | "nvidia-smi" | "none" | "hook"}
 *
 * Test hook: MAXCODE_CUDA_PROBE=FILE names a JSON file in that format
 * that is read instead of probing or remembering ("via" is then "hook"),
 * so tests can act as a machine with a given GPU, or none.
 */
#ifndef MC_CUDA_H
#define MC_CUDA_H

#include "buf.h"
#include "status.h"
#include "target.h"

#define MC_CUDA_MAX_DEVICES 16

struct mc_cuda_device {
    char name[128];
    char cc[16];              /* compute capability, "9.0" */
};

struct mc_cuda_probe {
    int known;                /* a result was read or probed */
    size_t n;                 /* devices */
    struct mc_cuda_device dev[MC_CUDA_MAX_DEVICES];
    char driver[32], runtime[32];
    char error[256];          /* why there is none, or "" */
    char via[16];
};

/* Read the remembered result for this machine and boot from CACHE_DIR
 * (or the test hook's file) into P; P->known is 0 when there is none.
 * MC_OK unless out of memory; an unreadable result counts as none. */
enum mc_code mc_cuda_probe_read(const char *cache_dir,
                                struct mc_cuda_probe *p, struct mc_err *err);

/*
 * Probe now with the CUDA compiler NVCC (a command, "nvcc" by default)
 * and remember the result in CACHE_DIR; under the test hook, read its
 * file instead. No device is not an error: P->n is 0 and P->error says
 * why. Errors: MC_EIO when the result cannot be remembered (P is still
 * filled), MC_ENOMEM.
 */
enum mc_code mc_cuda_probe_run(const char *cache_dir, const char *nvcc,
                               struct mc_cuda_probe *p, struct mc_err *err);

/* The remembered result, probing when there is none. */
enum mc_code mc_cuda_probe_get(const char *cache_dir, const char *nvcc,
                               struct mc_cuda_probe *p, struct mc_err *err);

/*
 * The GPU identity that keys a CUDA target, into B: "NAME/sm_CC" of the
 * device the runs use (the first one the runtime sees), "none" when the
 * probe found none, "unprobed" when P is not known.
 */
void mc_cuda_identity(const struct mc_cuda_probe *p, struct mc_buf *b);

/* Set T's GPU identity (T->gpu, hashed into a CUDA target's key) from
 * P as mc_cuda_identity() writes it. MC_ENOMEM or MC_OK. */
enum mc_code mc_cuda_set_identity(struct mc_target *t,
                                  const struct mc_cuda_probe *p);

/* P as the JSON above, into B. */
enum mc_code mc_cuda_probe_json(const struct mc_cuda_probe *p,
                                struct mc_buf *b);

/* P as a few lines for people, into B. */
void mc_cuda_probe_describe(const struct mc_cuda_probe *p,
                            struct mc_buf *b);

#endif /* MC_CUDA_H */
