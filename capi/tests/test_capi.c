/*
 * The C interface checked from C: every query's outputs compared byte for byte with the
 * library's own answers on the shared workloads (written by `cargo run --example expected`),
 * and bad arguments (NULL pointers, lengths, capacities, reversed or NaN rects, bad grids,
 * polygons and t_max) answered by the documented status and a message, never a crash.
 *
 *   test_capi DIR     DIR holds the files of the example `expected`
 *
 * Built and run by capi/test.sh. The checks for float and double are one text,
 * test_capi_typed.h, included once per type.
 */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slabclip.h"

static const char *dir;
static int passed, failed;

/* The batch lengths of the example `expected` (LENGTHS there). */
static const size_t LENGTHS[] = {1, 15, 17, 1000, 65537};

static void check(int ok, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    printf("%s ", ok ? "ok  " : "FAIL");
    vprintf(fmt, args);
    printf("\n");
    va_end(args);
    if (ok) {
        passed++;
    } else {
        failed++;
    }
}

static void *xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

/* The file DIR/PREFIX_NAME.bin, whole; exits when it is missing. */
static void *load(const char *prefix, const char *name, size_t *bytes) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s_%s.bin", dir, prefix, name);
    FILE *f = fopen(path, "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0) {
        fprintf(stderr, "cannot read %s (written by `cargo run --example expected`)\n", path);
        exit(1);
    }
    long size = ftell(f);
    rewind(f);
    void *data = xmalloc((size_t)size);
    if (size < 0 || fread(data, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    *bytes = (size_t)size;
    return data;
}

/* An input of exactly `bytes` bytes. */
static void *input(const char *prefix, const char *name, size_t bytes) {
    size_t got;
    void *data = load(prefix, name, &got);
    if (got != bytes) {
        fprintf(stderr, "%s_%s.bin holds %zu bytes, expected %zu\n", prefix, name, got, bytes);
        exit(1);
    }
    return data;
}

/* Whether `got` is byte for byte the file PREFIX_NAME.bin; says where it differs if not. */
static int same(const char *prefix, const char *name, const void *got, size_t bytes) {
    size_t want_bytes;
    unsigned char *want = load(prefix, name, &want_bytes);
    int ok = want_bytes == bytes && memcmp(want, got, bytes) == 0;
    if (!ok) {
        if (want_bytes != bytes) {
            printf("     %s: %zu bytes, expected %zu\n", name, bytes, want_bytes);
        } else {
            size_t i = 0;
            while (((const unsigned char *)got)[i] == want[i]) {
                i++;
            }
            printf("     %s: first difference at byte %zu\n", name, i);
        }
    }
    free(want);
    return ok;
}

/* The status is `want` and the thread's message is non-empty and holds `needle`. */
static void expect_error(int status, int want, const char *needle, const char *what) {
    char msg[512];
    size_t len = slabclip_last_error(msg, sizeof msg);
    int ok = status == want && len > 0 && strlen(msg) == (len < sizeof msg ? len : sizeof msg - 1)
             && strstr(msg, needle) != NULL && strncmp(msg, "slabclip_", 9) == 0;
    check(ok, "%s: status %d (expected %d), \"%s\"", what, status, want, msg);
}

/* Interleaves four columns of n values of `size` bytes into n rows. */
static void *rows_of(void *const cols[4], size_t n, size_t size) {
    unsigned char *rows = xmalloc(4 * n * size);
    for (size_t i = 0; i < n; i++) {
        for (int c = 0; c < 4; c++) {
            memcpy(rows + (4 * i + (size_t)c) * size, (unsigned char *)cols[c] + i * size, size);
        }
    }
    return rows;
}

/* Splits n rows into four new columns. */
static void columns_of(const void *rows, size_t n, size_t size, void *cols[4]) {
    for (int c = 0; c < 4; c++) {
        cols[c] = xmalloc(n * size);
        for (size_t i = 0; i < n; i++) {
            memcpy((unsigned char *)cols[c] + i * size,
                   (const unsigned char *)rows + (4 * i + (size_t)c) * size, size);
        }
    }
}

static void free4(void *p[4]) {
    for (int c = 0; c < 4; c++) {
        free(p[c]);
    }
}

#define GLUE(a, b, c) a##b##_##c
#define XGLUE(a, b, c) GLUE(a, b, c)
/* slabclip_NAME_f32 or _f64, and this file's own NAME_f32 or _f64. */
#define API(name) XGLUE(slabclip_, name, SFX)
#define T(name) XGLUE(name, , SFX)

#define F float
#define SFX f32
#define TYPE_NAME "f32"
#include "test_capi_typed.h"
#undef F
#undef SFX
#undef TYPE_NAME

#define F double
#define SFX f64
#define TYPE_NAME "f64"
#include "test_capi_typed.h"
#undef F
#undef SFX
#undef TYPE_NAME

/* The conventions that do not depend on the type. */
static void conventions(void) {
    char msg[8];
    /* A call that succeeds clears the message. */
    int status = slabclip_clip_f32(NULL, NULL, NULL, NULL, 0, 0, 0, 1, 1, NULL, NULL, NULL, NULL,
                                   NULL, NULL, NULL);
    check(status == SLABCLIP_OK && slabclip_last_error(NULL, 0) == 0
              && slabclip_last_error_message()[0] == '\0',
          "n = 0 with NULL everywhere is fine, and leaves no message");
    /* The message is cut to the buffer, NUL-terminated, its full length returned. */
    status = slabclip_clip_f32(NULL, NULL, NULL, NULL, 3, 0, 0, 1, 1, NULL, NULL, NULL, NULL, NULL,
                               NULL, NULL);
    size_t len = slabclip_last_error(msg, sizeof msg);
    check(status == SLABCLIP_ERR_NULL && len > sizeof msg && strlen(msg) == sizeof msg - 1
              && strncmp(msg, "slabclip", 7) == 0
              && strlen(slabclip_last_error_message()) == len,
          "slabclip_last_error cuts the message to the buffer and returns its length (%zu)", len);
    const char *version = slabclip_version();
    check(version[0] >= '0' && version[0] <= '9', "slabclip_version is \"%s\"", version);
    /* Freeing NULL is a no-op. */
    slabclip_grid_free_f32(NULL);
    slabclip_rect_set_free_f64(NULL);
    slabclip_scene_free_f32(NULL);
    check(1, "freeing NULL handles is a no-op");
}

/* One thread's share of the threads check. */
struct job {
    const slabclip_scene_f64 *scene;
    void *rays[4];
    size_t n;
    double *t;
    uint32_t *index;
    int status, bad_status;
    char msg[256];
};

static void *cast_job(void *arg) {
    struct job *j = arg;
    j->status = slabclip_scene_cast_f64(j->scene, j->rays[0], j->rays[1], j->rays[2], j->rays[3],
                                        j->n, 40.0, j->t, NULL, j->index, NULL, NULL);
    /* A failure of this thread's own, and its own message. */
    j->bad_status = slabclip_clip_f64(NULL, NULL, NULL, NULL, 1, 0, 0, 1, 1, NULL, NULL, NULL,
                                      NULL, NULL, NULL, NULL);
    slabclip_last_error(j->msg, sizeof j->msg);
    return NULL;
}

/* Four threads query one scene at once (each call on the library's pool too), with the plain
 * query's bits; each thread's message is its own. */
static void threads(void) {
    enum { THREADS = 4 };
    const char *prefix = "f64_65537";
    const size_t n = 65537;
    const char *walls_names[4] = {"wall_x0", "wall_y0", "wall_x1", "wall_y1"};
    const char *ray_names[4] = {"sr_ox", "sr_oy", "sr_dx", "sr_dy"};
    void *walls[4], *rays[4];
    size_t m = 0;
    for (int c = 0; c < 4; c++) {
        walls[c] = load(prefix, walls_names[c], &m);
        rays[c] = input(prefix, ray_names[c], n * sizeof(double));
    }
    m /= sizeof(double);
    slabclip_scene_f64 *scene = NULL;
    int ok = slabclip_scene_new_f64(walls[0], walls[1], walls[2], walls[3], m, &scene)
             == SLABCLIP_OK;
    int main_status = slabclip_cast_rect_f64(NULL, NULL, NULL, NULL, 0, 0, 0, 1, 1, -1.0, NULL,
                                             NULL, NULL);
    struct job jobs[THREADS];
    pthread_t ids[THREADS];
    for (int k = 0; k < THREADS; k++) {
        jobs[k] = (struct job){scene, {rays[0], rays[1], rays[2], rays[3]}, n,
                               xmalloc(n * sizeof(double)), xmalloc(n * 4), -100, -100, ""};
        ok &= pthread_create(&ids[k], NULL, cast_job, &jobs[k]) == 0;
    }
    for (int k = 0; k < THREADS; k++) {
        ok &= pthread_join(ids[k], NULL) == 0;
        ok &= jobs[k].status == SLABCLIP_OK && same(prefix, "cs_t", jobs[k].t, n * sizeof(double))
              && same(prefix, "cs_index", jobs[k].index, n * 4)
              && jobs[k].bad_status == SLABCLIP_ERR_NULL
              && strstr(jobs[k].msg, "slabclip_clip_f64: x0 is NULL") == jobs[k].msg;
        free(jobs[k].t);
        free(jobs[k].index);
    }
    ok &= main_status == SLABCLIP_ERR_ARGUMENT
          && strncmp(slabclip_last_error_message(), "slabclip_cast_rect_f64: ", 24) == 0;
    check(ok, "%d threads query one scene at once (%zu rays each): the same bits, messages per "
              "thread", THREADS, n);
    slabclip_scene_free_f64(scene);
    free4(walls);
    free4(rays);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR (the files of `cargo run --example expected -- DIR`)\n",
                argv[0]);
        return 2;
    }
    dir = argv[1];
    printf("slabclip %s: the C interface against the library, byte for byte\n",
           slabclip_version());
    for (size_t k = 0; k < sizeof LENGTHS / sizeof LENGTHS[0]; k++) {
        run_f32(LENGTHS[k]);
        run_f64(LENGTHS[k]);
    }
    printf("threads\n");
    threads();
    printf("bad arguments\n");
    conventions();
    bad_f32();
    bad_f64();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
