/*
 * matmul.c — matrix products: ag_gemm, the dense kernel every matrix product
 * in the engine goes through, and tensor_matmul with torch.matmul's rules
 * (dot, matrix-vector, matrix-matrix, batched with broadcast batch dims),
 * its forward and backward side by side; and matmul_nt and matmul_tn, its
 * gradient kernels as ops (create_graph).
 *
 * ag_gemm_f32 is the same in float32's arithmetic, for float32 operands.
 *
 * It is not: a BLAS (no alpha/beta, no complex), nor a view engine (a
 * transpose is a flag given to ag_gemm, never a materialised copy).
 *
 * ag_gemm is a cache-blocked GEMM in the style of GotoBLAS/BLIS: panels of
 * op(B) (KC x NC) and blocks of op(A) (MC x KC) are packed into contiguous
 * slivers — the transposes are absorbed by the packing — and a register-
 * blocked micro-kernel computes MR x NR tiles of C from them. Small products
 * take a direct loop instead, with no packing. OpenBLAS's dgemm takes the
 * large ones only on machines where it is faster (see "OpenBLAS, only where
 * it is faster" below).
 */
#include "../internal.h"

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ======================================================================
 * ag_gemm: parameters
 *
 * The micro-kernel is written with GNU C vector types (gcc, clang) so that
 * it uses the machine's full vector width: -march=native on AVX-512 parts
 * makes gcc prefer 256-bit vectors in auto-vectorised loops, which would cap
 * the kernel at about 60% of peak. Other compilers get a plain C kernel.
 *
 *   AVX-512 (32 zmm): MR x NR = 8 x 24, 24 accumulators of 8 doubles
 *   AVX     (16 ymm): 6 x 8, 12 accumulators of 4 doubles
 *   otherwise       : 4 x 4 of 2-double vectors (SSE2, NEON) or scalars
 *
 * Blocking (in doubles): the KC x NR sliver of B is reused from L1 by every
 * MR-row sliver of A in the MC x KC block (L2), and the KC x NC panel of B
 * lives in L3. Each KC step reads and writes all of C once, so KC is as
 * large as L1 allows. Measured on a 2.8 GHz Ice Lake Xeon (AVX-512, one
 * core, peak 89.6 GFLOP/s): 8 x 24 with KC 256, MC 192 beat 6 x 32, 12 x 16,
 * 14 x 16 and KC 128..224 at 512^3..2000^3.
 * ====================================================================== */

#if defined(__GNUC__) && defined(__AVX512F__)
#define GEMM_VL 8
#define GEMM_KERNEL_NAME "AVX-512, 8x24"
enum { MR = 8, NR = 24, KC = 256, MC = 192, NC = 4080 };
#elif defined(__GNUC__) && defined(__AVX__)
#define GEMM_VL 4
#define GEMM_KERNEL_NAME "AVX2, 6x8"
enum { MR = 6, NR = 8, KC = 256, MC = 96, NC = 4080 };
#elif defined(__GNUC__)
#define GEMM_VL 2
#define GEMM_KERNEL_NAME "SSE2, 4x4"
enum { MR = 4, NR = 4, KC = 256, MC = 96, NC = 4080 };
#else
#define GEMM_KERNEL_NAME "scalar, 4x4"
enum { MR = 4, NR = 4, KC = 256, MC = 96, NC = 4080 };
#endif

/* The float instance (ag_gemm_f32): twice the lanes in the same registers,
 * so twice the columns a tile; KC, MC and NC as float64's (a float sliver of
 * B is as many bytes as a double one). */
#ifdef GEMM_VL
enum { MR32 = MR, NR32 = 2 * NR };
#else
enum { MR32 = MR, NR32 = NR };
#endif

/* Below this many multiply-adds the direct loop wins (measured: 10^3 and
 * below); packing and a full MR x NR tile cost more than they save. */
#define GEMM_SMALL 1024.0


#ifdef GEMM_VL
typedef double vd __attribute__((vector_size(GEMM_VL * sizeof(double))));

static inline vd vload(const double *p) {
    vd v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void vstore(double *p, vd v) { memcpy(p, &v, sizeof v); }
#endif

/* ======================================================================
 * ag_gemm: the direct path for small products
 * ====================================================================== */

/* y[i*incy] += a * x[i*incx] for i < n. */
static void axpy(int64_t n, double a, const double *restrict x, int64_t incx,
                 double *restrict y, int64_t incy) {
    int64_t i = 0;
    if (incx != 1 || incy != 1) {
        for (; i < n; i++) y[i * incy] += a * x[i * incx];
        return;
    }
#ifdef GEMM_VL
    vd av = a - (vd){0};
    for (; i + GEMM_VL <= n; i += GEMM_VL) vstore(y + i, vload(y + i) + av * vload(x + i));
#endif
    for (; i < n; i++) y[i] += a * x[i];
}

/* s + x[i*incx] * y[i*incy] for i < n, added in order (the reference
 * BLAS's ddot and dgemv's), and the same in float (sdot's). */
static double dot(int64_t n, double s, const double *x, int64_t incx, const double *y,
                  int64_t incy) {
    for (int64_t i = 0; i < n; i++) s += x[i * incx] * y[i * incy];
    return s;
}

static float dot_f32(int64_t n, float s, const double *x, int64_t incx, const double *y,
                     int64_t incy) {
    for (int64_t i = 0; i < n; i++) s += (float)x[i * incx] * (float)y[i * incy];
    return s;
}

/* op(X)[r][p] of an operand stored with leading dimension ld lives at
 * X[r*rs + p*cs]. */
static void op_strides(bool trans, int64_t ld, int64_t *rs, int64_t *cs) {
    *rs = trans ? 1 : ld;
    *cs = trans ? ld : 1;
}

/* C[M,N] (+)= op(A) @ op(B) as axpys or dots along whichever dimension is
 * contiguous: the path for tiny products and matrix-vector ones. */
static void gemm_direct(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
                        const double *A, int64_t lda, const double *B, int64_t ldb,
                        double *C, int64_t ldc, bool accumulate) {
    int64_t a_is, a_ps, b_js, b_ps; /* op(A)[i][p] = A[i*a_is + p*a_ps], and */
    op_strides(trans_a, lda, &a_is, &a_ps);
    op_strides(!trans_b, ldb, &b_js, &b_ps); /* op(B)[p][j] = B[j*b_js + p*b_ps] */
    if (!accumulate)
        for (int64_t i = 0; i < M; i++) memset(C + i * ldc, 0, (size_t)N * sizeof *C);
    if (b_js == 1 && N > 1) { /* rows of op(B) contiguous: C[i,:] += A[i,p] * B[p,:] */
        for (int64_t i = 0; i < M; i++)
            for (int64_t p = 0; p < K; p++)
                axpy(N, A[i * a_is + p * a_ps], B + p * b_ps, 1, C + i * ldc, 1);
    } else if (a_ps == 1) { /* rows of op(A) contiguous: C[i,j] += A[i,:] . B[:,j] */
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++)
                C[i * ldc + j] = dot(K, C[i * ldc + j], A + i * a_is, 1, B + j * b_js, b_ps);
    } else { /* A stored (K,M): C[:,j] += A[p,:] * B[p,j] */
        for (int64_t p = 0; p < K; p++)
            for (int64_t j = 0; j < N; j++)
                axpy(M, B[p * b_ps + j * b_js], A + p * a_ps, a_is, C + j, ldc);
    }
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* The pack buffers: one set per thread, grown as needed and kept (they
 * hold at most (MC + NC) * KC elements plus slack). */
static _Thread_local void *pack_buf[3]; /* A's, B's, and the threads' (gemm_threaded) */
static _Thread_local size_t pack_cap[3];

static void *pack_buffer(int which, size_t bytes) {
    if (pack_cap[which] < bytes) {
        void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
        if (!p) return NULL;
        free(pack_buf[which]);
        pack_buf[which] = p;
        pack_cap[which] = bytes;
    }
    return pack_buf[which];
}

/* The kernels' products and sums are rounded apart, as the reference
 * BLAS's (-ffp-contract=off, as in the rest of the engine); clang needs
 * telling that 512-bit vectors are wanted. */
#if defined(__clang__)
#define KERNEL_ATTR __attribute__((min_vector_width(GEMM_VL * 64)))
#else
#define KERNEL_ATTR
#endif

/* Multiply-adds per task below which a second thread costs more than it
 * saves (docs/performance.md, "Threads"). */
#define GEMM_TASK_GRAIN (1 << 18)

/* ======================================================================
 * ag_gemm: the blocked path in float64 (gemm_blocked.h)
 * ====================================================================== */

#define GK(name) name##_f64
#define GK_REAL double
#define GK_MR MR
#define GK_NR NR
#ifdef GEMM_VL
#define GK_VL GEMM_VL
#endif
#include "gemm_blocked.h"
#undef GK
#undef GK_REAL
#undef GK_MR
#undef GK_NR
#undef GK_VL

/* ... and in float (ag_gemm_f32). */
#define GK(name) name##_f32
#define GK_REAL float
#define GK_MR MR32
#define GK_NR NR32
#ifdef GEMM_VL
#define GK_VL (2 * GEMM_VL)
#endif
#include "gemm_blocked.h"
#undef GK
#undef GK_REAL
#undef GK_MR
#undef GK_NR
#undef GK_VL

/* ======================================================================
 * ag_gemm: small products, A read in place
 *
 * A product with few columns and a short inner dimension (a layer of a
 * small network: 100 x 16 @ 16 x 16) spends more in packing and in edge
 * tiles than in multiply-adds on the blocked path. Here only op(B) is
 * copied, into rows padded to whole vectors (K x N is small), and a tile
 * of MR rows by SW columns reads its rows of A where they are. Each element
 * is the same sum, in the same order, as the blocked path computes (the
 * reference BLAS's), so the choice of path changes no bit.
 * ====================================================================== */

#ifdef GEMM_VL

enum { SW = 2 * GEMM_VL,        /* columns of a tile: two vectors */
       SMALL_N = 4 * SW,         /* at most this many columns */
       SMALL_MNK = 1 << 18 };    /* and this many multiply-adds */

static bool gemm_is_thin(int64_t M, int64_t N, int64_t K) {
    return K <= KC && N <= SMALL_N && (double)M * (double)N * (double)K <= SMALL_MNK;
}

/* c (m x n corner of an MR x SW tile) (+)= the rows of A at row (and p
 * steps of a_ps) @ bp (K x SW, rows ldb apart), the sums from C's values
 * with add. Rows past m repeat the last one: computed, never stored, never
 * read out of bounds. */
KERNEL_ATTR
static void thin_kernel(int64_t K, const double *a, int64_t a_is, int64_t a_ps,
                        const double *restrict bp, int64_t ldb, double *restrict c,
                        int64_t ldc, int m, int n, bool add) {
    const double *row[MR];
    for (int i = 0; i < MR; i++) row[i] = a + (i < m ? i : m - 1) * a_is;
    vd acc[MR][2];
    bool full = m == MR && n == SW;
    if (full) {
#pragma GCC unroll 32
        for (int i = 0; i < MR; i++) {
            acc[i][0] = add ? vload(c + i * ldc) : (vd){0};
            acc[i][1] = add ? vload(c + i * ldc + GEMM_VL) : (vd){0};
        }
    } else {
        double tile[MR * SW];
        load_tile_f64(c, ldc, tile, SW, MR, m, n, add);
        memcpy(acc, tile, sizeof tile);
    }
    for (int64_t p = 0; p < K; p++) {
        vd b0 = vload(bp + p * ldb), b1 = vload(bp + p * ldb + GEMM_VL);
#pragma GCC unroll 32
        for (int i = 0; i < MR; i++) {
            vd ai = row[i][p * a_ps] - (vd){0};
            acc[i][0] += ai * b0;
            acc[i][1] += ai * b1;
        }
    }
    if (full) {
#pragma GCC unroll 32
        for (int i = 0; i < MR; i++) {
            vstore(c + i * ldc, acc[i][0]);
            vstore(c + i * ldc + GEMM_VL, acc[i][1]);
        }
        return;
    }
    double tile[MR * SW]; /* an edge tile: through memory, then the m x n corner */
    memcpy(tile, acc, sizeof tile);
    store_tile_f64(c, ldc, tile, SW, m, n);
}

/* C (+)= op(A) @ op(B) for gemm_is_thin products; false when out of memory. */
static bool gemm_thin(int64_t M, int64_t N, int64_t K, const double *A, int64_t a_is,
                      int64_t a_ps, const double *B, int64_t b_js, int64_t b_ps, double *C,
                      int64_t ldc, bool accumulate) {
    int64_t ldb = (N + SW - 1) / SW * SW;
    double *bp = pack_buffer(1, (size_t)(K * ldb) * sizeof(double));
    if (!bp) return false;
    for (int64_t p = 0; p < K; p++) {
        double *dst = bp + p * ldb;
        if (b_js == 1)
            memcpy(dst, B + p * b_ps, (size_t)N * sizeof *dst);
        else
            for (int64_t j = 0; j < N; j++) dst[j] = B[j * b_js + p * b_ps];
        for (int64_t j = N; j < ldb; j++) dst[j] = 0.0;
    }
    for (int64_t j = 0; j < N; j += SW)
        for (int64_t i = 0; i < M; i += MR)
            thin_kernel(K, A + i * a_is, a_is, a_ps, bp + j, ldb, C + i * ldc + j, ldc,
                        (int)min64(MR, M - i), (int)min64(SW, N - j), accumulate);
    return true;
}

#endif

/* The threads an M x N x K product is worth. */
static int gemm_tasks(int64_t M, int64_t N, int64_t K) {
    double madds = (double)M * (double)N * (double)K;
    return ag_parallel_tasks(madds < 0x1p62 ? (int64_t)madds : INT64_MAX, GEMM_TASK_GRAIN);
}

/* Returns false (nothing done) if the pack buffers cannot be allocated. */
static bool gemm_packed(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
                        const double *A, int64_t lda, const double *B, int64_t ldb,
                        double *C, int64_t ldc, bool accumulate) {
    int64_t a_is, a_ps, b_js, b_ps; /* strides along i, p and j, as in gemm_direct */
    op_strides(trans_a, lda, &a_is, &a_ps);
    op_strides(!trans_b, ldb, &b_js, &b_ps);
    int tasks = gemm_tasks(M, N, K);
#ifdef GEMM_VL
    if (gemm_is_thin(M, N, K) && tasks <= 1)
        return gemm_thin(M, N, K, A, a_is, a_ps, B, b_js, b_ps, C, ldc, accumulate);
#endif
    return gemm_run_f64(M, N, K, A, a_is, a_ps, B, b_js, b_ps, C, ldc, accumulate, tasks);
}

/* The direct loop takes vector operands, tiny products, and thin ones where
 * padding to whole MR x NR tiles would waste over 7/8 of the kernel. */
static bool gemm_is_small(int64_t M, int64_t N, int64_t K) {
    if (M == 1 || N == 1 || K == 0) return true;
    double tiles = (double)((M + MR - 1) / MR * MR) * (double)((N + NR - 1) / NR * NR);
    return (double)M * (double)N * (double)K < GEMM_SMALL || (double)M * (double)N * 8 < tiles;
}

/* ======================================================================
 * ag_gemm: OpenBLAS, only where it is faster
 *
 * Measured on one core (docs/performance.md): where ag's kernel is built
 * for AVX2 with FMA or for AVX-512, it matches OpenBLAS 0.3.21's dgemm at
 * its best (50-52 GFLOP/s against 46-51 at 1024^3 here), and OpenBLAS is
 * 2.7x slower than it when it takes the CPU for an older one, as 0.3.21
 * does with recent Xeons (Prescott: 19 GFLOP/s). So such a build never uses
 * OpenBLAS. A build with the narrow kernel (SSE2, NEON, scalar: a baseline
 * -march, or another architecture) uses it when libopenblas.so.0 can be
 * loaded and, on x86, when it chose an AVX2 or AVX-512 kernel (else it is no
 * faster than ag's). The choice is made once per thread, at the first large
 * product, from facts of the build and the machine, never from timing: the
 * same kernel on every run. AG_BLAS=own or AG_BLAS=openblas (if it loads)
 * overrides it (the tests run both).
 *
 * OpenBLAS is loaded with dlopen, so that libag.a needs no -lopenblas (one
 * library, linked the same everywhere) and a program that never makes a
 * large product never pays for loading it (about 1.5 ms at startup).
 * ====================================================================== */

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#define GEMM_WIDE 1
#else
#define GEMM_WIDE 0
#endif

/* cblas_dgemm of OpenBLAS's usual (32-bit integer) interface; the enum
 * values are cblas.h's. */
typedef void (*CblasDgemm)(int order, int trans_a, int trans_b, int m, int n, int k,
                           double alpha, const double *a, int lda, const double *b, int ldb,
                           double beta, double *c, int ldc);
enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112 };

static _Thread_local bool blas_chosen;
static _Thread_local CblasDgemm blas_dgemm; /* NULL: ag's own kernel */
static _Thread_local char blas_name[64];
/* OpenBLAS's openblas_set_num_threads, once it is loaded. OpenBLAS runs on
 * one thread, whatever ag's count: its results change with how a product
 * is split (its threads' shares, and its kernels for small bands: banding
 * rows across ag's pool gave other bits too), and ag's must not change with
 * the count (ENGINE.md). So where OpenBLAS multiplies (a build without
 * AVX2, or AG_BLAS=openblas) products use one thread. */
static void (*blas_set_threads)(int);

void ag_blas_set_threads(int n) {
    (void)n; /* the pool's count: OpenBLAS's own stays 1 */
    if (blas_set_threads) blas_set_threads(1);
}

/* Whether OpenBLAS's kernel for core beats ag's narrow one (see above). */
static bool openblas_core_is_faster(const char *core) {
#if defined(__x86_64__) || defined(__i386__)
    static const char *const wide[] = {"Haswell", "Zen", "SkylakeX", "Cooperlake",
                                       "SapphireRapids"};
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++)
        if (strcmp(core, wide[i]) == 0) return true;
    return false;
#else
    (void)core;
    return true;
#endif
}

static void choose_blas(void) {
    blas_chosen = true;
    snprintf(blas_name, sizeof blas_name, "ag's own kernel (%s)", GEMM_KERNEL_NAME);
    const char *want = getenv("AG_BLAS");
    bool forced = want && strcmp(want, "openblas") == 0;
    if ((want && strcmp(want, "own") == 0) || (GEMM_WIDE && !forced)) return;
    void *lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    void *dgemm = lib ? dlsym(lib, "cblas_dgemm") : NULL;
    void *corename = lib ? dlsym(lib, "openblas_get_corename") : NULL;
    const char *core = "";
    if (corename) {
        char *(*get)(void);
        memcpy(&get, &corename, sizeof get); /* POSIX: a symbol is a function's address */
        core = get();
    }
    if (!dgemm || (!forced && !openblas_core_is_faster(core))) return; /* stays loaded */
    memcpy(&blas_dgemm, &dgemm, sizeof blas_dgemm);
    void *set_threads = dlsym(lib, "openblas_set_num_threads");
    if (set_threads) {
        memcpy(&blas_set_threads, &set_threads, sizeof blas_set_threads);
        blas_set_threads(1);
    }
    snprintf(blas_name, sizeof blas_name, "OpenBLAS (%s)", core);
}

const char *ag_blas_name(void) {
    if (!blas_chosen) choose_blas();
    return blas_name;
}

/* OpenBLAS's interface takes int dimensions. */
static bool fits_int(int64_t a, int64_t b, int64_t c) {
    return a <= INT_MAX && b <= INT_MAX && c <= INT_MAX;
}

void ag_gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const double *A,
          int64_t lda, const double *B, int64_t ldb, double *C, int64_t ldc,
          bool accumulate) {
    if (M <= 0 || N <= 0) return;
    if (!gemm_is_small(M, N, K)) {
        if (!blas_chosen) choose_blas();
        if (blas_dgemm && fits_int(M, N, K) && fits_int(lda, ldb, ldc)) {
            /* one call on one thread (see blas_set_threads) */
            blas_dgemm(CBLAS_ROW_MAJOR, trans_a ? CBLAS_TRANS : CBLAS_NO_TRANS,
                       trans_b ? CBLAS_TRANS : CBLAS_NO_TRANS, (int)M, (int)N, (int)K, 1.0, A,
                       (int)lda, B, (int)ldb, accumulate ? 1.0 : 0.0, C, (int)ldc);
            return;
        }
        if (gemm_packed(trans_a, trans_b, M, N, K, A, lda, B, ldb, C, ldc, accumulate)) return;
    }
    gemm_direct(trans_a, trans_b, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

/* The direct path in float: each element the reference BLAS's sgemm sum,
 * in order, each product and sum rounded to float. */
static void gemm_direct_f32(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
                            const double *A, int64_t lda, const double *B, int64_t ldb,
                            double *C, int64_t ldc, bool accumulate) {
    int64_t a_is, a_ps, b_js, b_ps; /* as in gemm_direct */
    op_strides(trans_a, lda, &a_is, &a_ps);
    op_strides(!trans_b, ldb, &b_js, &b_ps);
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++)
            C[i * ldc + j] = dot_f32(K, accumulate ? (float)C[i * ldc + j] : 0.0f, A + i * a_is,
                                     a_ps, B + j * b_js, b_ps);
}

/* ag_gemm in float32's arithmetic, for two float32 operands: op(A) and
 * op(B) are converted to float as they are packed, each element of C is
 * the reference BLAS's sgemm sum (in K's order, each product and sum
 * rounded to float), twice the lanes a vector. Small products take
 * gemm_direct_f32, the same sums. The thin path (double only) is not
 * taken. C holds float values afterwards. */
void ag_gemm_f32(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const double *A,
                 int64_t lda, const double *B, int64_t ldb, double *C, int64_t ldc,
                 bool accumulate) {
    if (M <= 0 || N <= 0) return;
    if (!gemm_is_small(M, N, K)) {
        int64_t a_is, a_ps, b_js, b_ps; /* strides along i, p and j, as in gemm_direct */
        op_strides(trans_a, lda, &a_is, &a_ps);
        op_strides(!trans_b, ldb, &b_js, &b_ps);
        if (gemm_run_f32(M, N, K, A, a_is, a_ps, B, b_js, b_ps, C, ldc, accumulate,
                         gemm_tasks(M, N, K)))
            return;
    }
    gemm_direct_f32(trans_a, trans_b, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

/* ======================================================================
 * matmul: shapes, by torch.matmul's rules
 *
 * Every case is a batch of (M,K) @ (K,N) -> (M,N) products:
 *   1-D a (K,)  is promoted to (1,K) and M is dropped from the output;
 *   1-D b (K,)  is promoted to (K,1) and N is dropped from the output;
 *   dims before the last two are batch dims, broadcast NumPy-style, e.g.
 *   (2,1,3,4) @ (5,4,6): batch (2,1) with (5,) -> (2,5), out (2,5,3,6).
 * Operands are contiguous, so a batch entry is one matrix at a fixed step.
 * ====================================================================== */

typedef struct {
    int64_t M, K, N;
    bool a_vec, b_vec;             /* 1-D operands (promoted) */
    int nb;                        /* batch dims of the output */
    int64_t batch[AG_MAX_DIMS];    /* the broadcast batch shape */
    int64_t a_step[AG_MAX_DIMS];   /* matrices a advances per batch index; 0 if broadcast */
    int64_t b_step[AG_MAX_DIMS];
    int64_t count;                 /* batch entries (product of batch) */
    bool fold;                     /* entries, a's batch is the output's and b has one
                                      matrix: one (count*M, K) @ (K, N) does it all */
} MatmulPlan;

enum { FAIL_RANK, FAIL_INNER, FAIL_BATCH };

/* Sets the message (naming both shapes) for a failure of kind why; x and y
 * are the dimensions that disagree. Returns -1. */
static int shape_fail(int why, const Tensor *a, const Tensor *b, int64_t x, int64_t y) {
    char sa[AG_SHAPE_STR_MAX], sb[AG_SHAPE_STR_MAX];
    tensor_shape_str(a, sa, sizeof sa);
    tensor_shape_str(b, sb, sizeof sb);
    if (why == FAIL_RANK)
        ag_fail("matmul: both arguments need at least 1 dimension, got shapes %s and %s", sa,
                sb);
    else if (why == FAIL_INNER)
        ag_fail("matmul: shapes %s and %s cannot be multiplied (%lld != %lld)", sa, sb,
                (long long)x, (long long)y);
    else
        ag_fail("matmul: shapes %s and %s have batch dimensions that cannot broadcast "
                "(%lld vs %lld)", sa, sb, (long long)x, (long long)y);
    return -1;
}

/* Batch dims of a (its first na) and b (its first nbb) broadcast into p;
 * 0, or -1 with a message. */
static int plan_batch(MatmulPlan *p, const Tensor *a, int na, const Tensor *b, int nbb) {
    p->nb = na > nbb ? na : nbb;
    p->count = 1;
    int64_t sa = 1, sb = 1;
    for (int d = p->nb - 1; d >= 0; d--) {
        int ia = na - p->nb + d, ib = nbb - p->nb + d;
        int64_t da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1;
        if (da != db && da != 1 && db != 1)
            return shape_fail(FAIL_BATCH, a, b, da, db);
        p->batch[d] = da == 1 ? db : da;
        p->a_step[d] = da == 1 ? 0 : sa;
        p->b_step[d] = db == 1 ? 0 : sb;
        sa *= da;
        sb *= db;
        p->count *= p->batch[d];
    }
    p->fold = !p->a_vec && p->count > 0;
    for (int d = 0; d < p->nb; d++)
        if (p->batch[d] > 1 && (p->a_step[d] == 0 || p->b_step[d] != 0)) p->fold = false;
    return 0;
}

/* Fills p from the operands' shapes; 0, or -1 with a message naming both
 * shapes if they cannot be multiplied. */
static int plan_matmul(MatmulPlan *p, const Tensor *a, const Tensor *b) {
    if (a->ndim == 0 || b->ndim == 0) return shape_fail(FAIL_RANK, a, b, 0, 0);
    p->a_vec = a->ndim == 1;
    p->b_vec = b->ndim == 1;
    p->M = p->a_vec ? 1 : a->shape[a->ndim - 2];
    p->K = a->shape[a->ndim - 1];
    int64_t kb = p->b_vec ? b->shape[0] : b->shape[b->ndim - 2];
    p->N = p->b_vec ? 1 : b->shape[b->ndim - 1];
    if (p->K != kb) return shape_fail(FAIL_INNER, a, b, p->K, kb);
    return plan_batch(p, a, p->a_vec ? 0 : a->ndim - 2, b, p->b_vec ? 0 : b->ndim - 2);
}

/* The batch shape followed by d0 and d1 (each skipped if -1); returns ndim. */
static int batch_shape(const MatmulPlan *p, int64_t *shape, int64_t d0, int64_t d1) {
    int n = p->nb;
    memcpy(shape, p->batch, (size_t)n * sizeof *shape);
    if (d0 >= 0) shape[n++] = d0;
    if (d1 >= 0) shape[n++] = d1;
    return n;
}

/* Matrix indices into a and b of batch entry t (row-major over batch). */
static void batch_entry(const MatmulPlan *p, int64_t t, int64_t *ia, int64_t *ib) {
    *ia = *ib = 0;
    for (int d = p->nb - 1; d >= 0; d--) {
        int64_t idx = t % p->batch[d];
        t /= p->batch[d];
        *ia += idx * p->a_step[d];
        *ib += idx * p->b_step[d];
    }
}

/* Whether batch entry t is the first (in row-major order) to read its
 * matrix of an operand with the given steps: its index is 0 along every
 * dimension the operand is broadcast over (step 0). */
static bool first_reader(const MatmulPlan *p, const int64_t *step, int64_t t) {
    for (int d = p->nb - 1; d >= 0; d--) {
        int64_t idx = t % p->batch[d];
        t /= p->batch[d];
        if (step[d] == 0 && idx != 0) return false;
    }
    return true;
}

/* ======================================================================
 * matmul: forward
 *   a (batch..., M, K) @ b (batch..., K, N) -> out (batch..., M, N)
 * ====================================================================== */


/* ag_gemm's signature, and the one a product of a and b computes with. */
typedef void Gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const double *A,
                  int64_t lda, const double *B, int64_t ldb, double *C, int64_t ldc,
                  bool accumulate);

static bool both_float32(const Tensor *a, const Tensor *b) {
    return a->dtype == AG_FLOAT32 && b->dtype == AG_FLOAT32;
}

static Gemm *gemm_for(const Tensor *a, const Tensor *b) {
    return both_float32(a, b) ? ag_gemm_f32 : ag_gemm;
}

static void matmul_kernel(const MatmulPlan *p, const Tensor *at, const Tensor *bt,
                          double *out) {
    int64_t M = p->M, K = p->K, N = p->N;
    const double *a = tensor_values(at), *b = tensor_values(bt);
    if (p->a_vec && p->b_vec) {
        /* the reference BLAS's ddot (sdot), which PyTorch's dot calls
         * (torch.optim.LBFGS is made of dots) */
        out[0] = both_float32(at, bt) ? dot_f32(K, 0.0f, a, 1, b, 1) : dot(K, 0.0, a, 1, b, 1);
        return;
    }
    Gemm *gemm = gemm_for(at, bt);
    if (p->fold) { /* a (count*M, K) @ b (K, N) -> (count*M, N) */
        gemm(false, false, p->count * M, N, K, a, K, b, N, out, N, false);
        return;
    }
    for (int64_t t = 0; t < p->count; t++) {
        int64_t ia, ib;
        batch_entry(p, t, &ia, &ib);
        gemm(false, false, M, N, K, a + ia * M * K, K, b + ib * K * N, N, out + t * M * N, N,
             false);
    }
}

/* ======================================================================
 * matmul: backward (g has out's shape: (batch..., M, N) in memory)
 *   grad_a = g @ b^T    in a's shape: (a's batch..., M, K), or (K,)
 *   grad_b = a^T @ g    in b's shape: (b's batch..., K, N), or (K,)
 * Each gradient is made in its operand's own shape, not in the broadcast
 * batch shape: where an operand's matrix is read by several batch entries
 * (a broadcast batch dimension, or a 1-D operand), their products are summed
 * into it by ag_gemm's accumulate flag (ENGINE.md, version 2: a kernel may
 * sum where one input element feeds several outputs). Built in the batch
 * shape and reduced afterwards, b's gradient in (1000, 1, K) @ (K, N) would
 * take 1000 times b's memory. With no batch entries at all (a batch
 * dimension of 0), the gradients are zeros.
 * ====================================================================== */

static Tensor *matmul_grad_a(const MatmulPlan *p, const Tensor *g, const Tensor *a,
                             const Tensor *b) {
    int64_t M = p->M, K = p->K, N = p->N;
    Tensor *r = p->count == 0 ? ag_tensor_filled_like(a, 0.0) : ag_tensor_new_like(a);
    if (!r) return NULL;
    if (p->fold) { /* g (count*M, N) @ b^T (N, K) -> (count*M, K) */
        gemm_for(a, b)(false, true, p->count * M, K, N, tensor_values(g), N, tensor_values(b), N, tensor_values(r), K, false);
        return r;
    }
    for (int64_t t = 0; t < p->count; t++) {
        int64_t ia, ib; /* g[t] (M,N) @ b[ib]^T (N,K) (+)-> r[ia] (M,K) */
        batch_entry(p, t, &ia, &ib);
        gemm_for(a, b)(false, true, M, K, N, tensor_values(g) + t * M * N, N, tensor_values(b) + ib * K * N, N,
                tensor_values(r) + ia * M * K, K, !first_reader(p, p->a_step, t));
    }
    return r;
}

static Tensor *matmul_grad_b(const MatmulPlan *p, const Tensor *g, const Tensor *a,
                             const Tensor *b) {
    int64_t M = p->M, K = p->K, N = p->N;
    Tensor *r = p->count == 0 ? ag_tensor_filled_like(b, 0.0) : ag_tensor_new_like(b);
    if (!r) return NULL;
    if (p->fold) { /* b is every entry's: a^T (K, count*M) @ g (count*M, N) -> (K, N) */
        gemm_for(a, b)(true, false, K, N, p->count * M, tensor_values(a), K, tensor_values(g), N, tensor_values(r), N, false);
        return r;
    }
    for (int64_t t = 0; t < p->count; t++) {
        int64_t ia, ib; /* a[ia]^T (K,M) @ g[t] (M,N) (+)-> r[ib] (K,N) */
        batch_entry(p, t, &ia, &ib);
        gemm_for(a, b)(true, false, K, N, M, tensor_values(a) + ia * M * K, K, tensor_values(g) + t * M * N, N,
                tensor_values(r) + ib * K * N, N, !first_reader(p, p->b_step, t));
    }
    return r;
}

/* On a failed allocation it writes nothing more and returns (backward then
 * stops: the contract of every backward kernel). */
static void matmul_backward(Function *self, void *ctx, Tensor *g) {
    const MatmulPlan *p = ctx;
    Tensor *a = self->inputs[0], *b = self->inputs[1];
    if (a->requires_grad) {
        Tensor *r = matmul_grad_a(p, g, a, b);
        if (!r) return;
        ag_accumulate_grad(a, r);
    }
    if (b->requires_grad) ag_accumulate_grad(b, matmul_grad_b(p, g, a, b));
}

/* The same as recorded ops (matmul_nt and matmul_tn below run these very
 * kernels, so the same bits): grad_a = matmul_nt(g, b), grad_b =
 * matmul_tn(a, g). Shared by matmul, dot, mv and mm, as their backward is. */
static int matmul_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    Tensor *a = self->inputs[0], *b = self->inputs[1];
    if (a->ndim == 1 && b->ndim == 1) { /* a dot: g * b and g * a, as PyTorch (MulBackward) */
        if (ag_grad_wanted(self, 0)) grads[0] = ag_grad_out(&t, tensor_mul(g, b));
        if (ag_grad_wanted(self, 1)) grads[1] = ag_grad_out(&t, tensor_mul(g, a));
        return ag_grad_done(&t);
    }
    if (ag_grad_wanted(self, 0))
        grads[0] = ag_grad_out(&t, tensor_matmul_nt(g, b, a->ndim, a->shape));
    if (ag_grad_wanted(self, 1))
        grads[1] = ag_grad_out(&t, tensor_matmul_tn(a, g, b->ndim, b->shape));
    return ag_grad_done(&t);
}

/* ======================================================================
 * matmul_nt, matmul_tn: matmul's two gradient kernels as ops of their own
 * (hidden), so that create_graph records them and gradients of gradients
 * keep the first-order bits. For the plan of a (batch..., M, K) @
 * b (batch..., K, N), with g of the product's shape:
 *   matmul_nt(g, b; a's shape) = g @ b^T in a's shape (matmul_grad_a)
 *   matmul_tn(a, g; b's shape) = a^T @ g in b's shape (matmul_grad_b)
 * Linear in each operand; their gradients are made of the three ops under
 * the same plan (gg has the result's shape, a's or b's):
 *   nt: grad_g = gg @ b,              grad_b = matmul_tn(gg, g)
 *   tn: grad_a = matmul_nt(g, gg),    grad_g = a @ gg
 * Their first-order backward is the same (ag_apply_by_graph).
 * ====================================================================== */

/* A header of the given shape and no elements: the operand matmul's
 * gradient kernels read only the shape of. */
static Tensor shape_only(int ndim, const int64_t *shape) {
    Tensor t = {.ndim = ndim};
    memcpy(t.shape, shape, (size_t)ndim * sizeof *shape);
    t.numel = ag_shape_prod(shape, 0, ndim);
    return t;
}

/* Forward of matmul_nt (x = g, y = b) or matmul_tn (x = a, y = g), the
 * missing operand's shape given: checks g against the product's shape,
 * runs the kernel, records. */
static Tensor *matmul_grad_forward(int op, Tensor *x, Tensor *y, int ndim, const int64_t *shape) {
    const char *name = ag_op_at(op)->name;
    char sg[AG_SHAPE_STR_MAX], sp[AG_SHAPE_STR_MAX];
    if (!x || !y || (ndim > 0 && !shape)) return ag_fail("%s: an operand is NULL", name);
    if (ndim < 0 || ndim > AG_MAX_DIMS)
        return ag_fail("%s: tensors have at most %d dimensions, not %d", name, AG_MAX_DIMS, ndim);
    bool nt = op == AG_OP_MATMUL_NT;
    Tensor like = shape_only(ndim, shape);
    Tensor *a = nt ? &like : x, *b = nt ? y : &like, *g = nt ? x : y;
    MatmulPlan p;
    if (plan_matmul(&p, a, b) != 0) return NULL;
    int64_t out[AG_MAX_DIMS];
    int nd = batch_shape(&p, out, p.a_vec ? -1 : p.M, p.b_vec ? -1 : p.N);
    if (!ag_shape_equal(g->ndim, g->shape, nd, out))
        return ag_fail("%s: the gradient's shape %s is not the product's, %s", name,
                       tensor_shape_str(g, sg, sizeof sg), ag_shape_str(nd, out, sp, sizeof sp));
    Tensor *r = nt ? matmul_grad_a(&p, g, a, b) : matmul_grad_b(&p, g, a, b);
    return ag_graph_record(r, op, (Tensor *[]){x, y}, 2, NULL, 0);
}

Tensor *tensor_matmul_nt(Tensor *g, Tensor *b, int a_ndim, const int64_t *a_shape) {
    return matmul_grad_forward(AG_OP_MATMUL_NT, g, b, a_ndim, a_shape);
}

Tensor *tensor_matmul_tn(Tensor *a, Tensor *g, int b_ndim, const int64_t *b_shape) {
    return matmul_grad_forward(AG_OP_MATMUL_TN, a, g, b_ndim, b_shape);
}

static int matmul_nt_graph(Function *self, void *ctx, Tensor *gg, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    Tensor *g = self->inputs[0], *b = self->inputs[1];
    if (ag_grad_wanted(self, 0)) grads[0] = ag_grad_out(&t, tensor_matmul(gg, b));
    if (ag_grad_wanted(self, 1))
        grads[1] = ag_grad_out(&t, tensor_matmul_tn(gg, g, b->ndim, b->shape));
    return ag_grad_done(&t);
}

static int matmul_tn_graph(Function *self, void *ctx, Tensor *gg, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    Tensor *a = self->inputs[0], *g = self->inputs[1];
    if (ag_grad_wanted(self, 0))
        grads[0] = ag_grad_out(&t, tensor_matmul_nt(g, gg, a->ndim, a->shape));
    if (ag_grad_wanted(self, 1)) grads[1] = ag_grad_out(&t, tensor_matmul(a, gg));
    return ag_grad_done(&t);
}

static void matmul_nt_backward(Function *self, void *ctx, Tensor *gg) {
    ag_apply_by_graph(self, ctx, gg, matmul_nt_graph);
}

static void matmul_tn_backward(Function *self, void *ctx, Tensor *gg) {
    ag_apply_by_graph(self, ctx, gg, matmul_tn_graph);
}

static Tensor *matmul_nt_call(const AgOpArgs *a) {
    return tensor_matmul_nt(a->t[0], a->t[1], a->num_dims, a->dims);
}

static Tensor *matmul_tn_call(const AgOpArgs *a) {
    return tensor_matmul_tn(a->t[0], a->t[1], a->num_dims, a->dims);
}

const AgOpInfo ag_op_matmul_nt = {
    .id = AG_OP_MATMUL_NT, .name = "matmul_nt", .signature = "matmul_nt(grad, other, *shape)",
    .params = "TTD", .call = matmul_nt_call,
    .help = "grad @ other^T summed into shape: matmul's gradient for its first operand, an op "
            "so it can be differentiated",
    .rule = "grad_grad = gg @ other, grad_other = gg^T @ grad",
    .backward_name = "MatmulNtBackward", .backward = matmul_nt_backward,
    .graph_backward = matmul_nt_graph, .flags = AG_OP_HIDDEN, .dtype_rule = AG_DTYPE_SAME,
};

const AgOpInfo ag_op_matmul_tn = {
    .id = AG_OP_MATMUL_TN, .name = "matmul_tn", .signature = "matmul_tn(input, grad, *shape)",
    .params = "TTD", .call = matmul_tn_call,
    .help = "input^T @ grad summed into shape: matmul's gradient for its second operand, an op "
            "so it can be differentiated",
    .rule = "grad_input = grad @ gg^T, grad_grad = input @ gg",
    .backward_name = "MatmulTnBackward", .backward = matmul_tn_backward,
    .graph_backward = matmul_tn_graph, .flags = AG_OP_HIDDEN, .dtype_rule = AG_DTYPE_SAME,
};

/* ======================================================================
 * tensor_matmul
 *
 * The recorded name follows the case, as PyTorch 1.13's matmul names its
 * result (the last of the ops it is made of):
 *   (K,) @ (K,)                   DotBackward
 *   (M,K) @ (K,)                  MvBackward
 *   (K,) @ (K,N)                  SqueezeBackward3 (unsqueeze, mm, squeeze_)
 *   (M,K) @ (K,N)                 MmBackward
 *   (M,K) @ (batch..., K,N)       CloneBackward (transposed products, then contiguous)
 *   anything else with batch dims UnsafeViewBackward (bmm or mm, then _unsafe_view)
 * torch.bmm's own name, BmmBackward, is the shell's to give.
 * ====================================================================== */

static const char *matmul_name(const MatmulPlan *p, const Tensor *a) {
    if (p->nb > 0 || (p->fold && a->ndim > 2))
        return a->ndim == 2 ? "CloneBackward" : "UnsafeViewBackward";
    if (p->a_vec && p->b_vec) return "DotBackward";
    if (p->a_vec) return "SqueezeBackward3";
    return p->b_vec ? "MvBackward" : "MmBackward";
}

Tensor *tensor_matmul(Tensor *a, Tensor *b) {
    if (!a || !b) return ag_fail("matmul: an operand is NULL");
    MatmulPlan p;
    if (plan_matmul(&p, a, b) != 0) return NULL;
    int64_t shape[AG_MAX_DIMS];
    Tensor *out = ag_tensor_new(batch_shape(&p, shape, p.a_vec ? -1 : p.M, p.b_vec ? -1 : p.N),
                             shape);
    if (!out) return NULL;
    matmul_kernel(&p, a, b, tensor_values(out));
    void *ctx;
    out = ag_graph_record_named(out, AG_OP_MATMUL, matmul_name(&p, a), (Tensor *[]){a, b}, 2, &ctx,
                                sizeof p);
    if (ctx) memcpy(ctx, &p, sizeof p);
    return out;
}

const AgOpInfo ag_op_matmul = {
    .id = AG_OP_MATMUL, .name = "matmul", .signature = "matmul(input, other)", .params = "TT",
    .help = "matrix product, as a @ b (1-D, 2-D and batched)",
    .rule = "grad_a = g @ b^T, grad_b = a^T @ g (batch dimensions summed back)",
    .backward_name = "MmBackward", .binary = tensor_matmul, .backward = matmul_backward,
    .graph_backward = matmul_graph, .flags = AG_OP_METHOD | AG_OP_SAVES_READS,
    .grad_reads = {2, 1}, /* a's gradient reads b, b's reads a */
    .dtype_rule = AG_DTYPE_SAME,
};

/* ======================================================================
 * dot, mv, mm: matmul restricted to PyTorch's ranks for each (torch.dot
 * takes two vectors, mv a matrix and a vector, mm two matrices); recorded
 * as matmul (DotBackward, MvBackward, MmBackward)
 * ====================================================================== */

/* matmul of a and b when their ranks are ra and rb; else an error naming op. */
static Tensor *matmul_of_ranks(const char *op, Tensor *a, Tensor *b, int ra, int rb) {
    char sa[AG_SHAPE_STR_MAX], sb[AG_SHAPE_STR_MAX];
    if (!a || !b) return ag_fail("%s: an operand is NULL", op);
    if (a->ndim != ra || b->ndim != rb)
        return ag_fail("%s: expects %d-D and %d-D tensors, got %s and %s (matmul takes any)", op,
                       ra, rb, tensor_shape_str(a, sa, sizeof sa), tensor_shape_str(b, sb, sizeof sb));
    return tensor_matmul(a, b);
}

Tensor *tensor_dot(Tensor *a, Tensor *b) { return matmul_of_ranks("dot", a, b, 1, 1); }
Tensor *tensor_mv(Tensor *a, Tensor *b) { return matmul_of_ranks("mv", a, b, 2, 1); }
Tensor *tensor_mm(Tensor *a, Tensor *b) { return matmul_of_ranks("mm", a, b, 2, 2); }

const AgOpInfo ag_op_dot = {
    .id = AG_OP_DOT, .name = "dot", .alias = "vdot", .signature = "dot(input, other)", .params = "TT",
    .help = "the dot product of two vectors of one length (vdot: the same, for real tensors)",
    .rule = "grad_a = g * b, grad_b = g * a", .backward_name = "DotBackward",
    .binary = tensor_dot, .backward = matmul_backward, .graph_backward = matmul_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_READS,
    .grad_reads = {2, 1}, /* a's gradient reads b, b's reads a */
    .dtype_rule = AG_DTYPE_SAME,
};

const AgOpInfo ag_op_mv = {
    .id = AG_OP_MV, .name = "mv", .signature = "mv(input, vec)", .params = "TT",
    .help = "matrix (M, K) times vector (K,)",
    .rule = "grad_a = outer(g, b), grad_b = a^T @ g", .backward_name = "MvBackward",
    .binary = tensor_mv, .backward = matmul_backward, .graph_backward = matmul_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_READS,
    .grad_reads = {2, 1}, /* a's gradient reads b, b's reads a */
    .dtype_rule = AG_DTYPE_SAME,
};

const AgOpInfo ag_op_mm = {
    .id = AG_OP_MM, .name = "mm", .signature = "mm(input, mat2)", .params = "TT",
    .help = "matrix (M, K) times matrix (K, N)",
    .rule = "grad_a = g @ b^T, grad_b = a^T @ g", .backward_name = "MmBackward",
    .binary = tensor_mm, .backward = matmul_backward, .graph_backward = matmul_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_READS,
    .grad_reads = {2, 1}, /* a's gradient reads b, b's reads a */
    .dtype_rule = AG_DTYPE_SAME,
};

/* ======================================================================
 * linear: y = x @ w^T + b (PyTorch's F.linear): x (*, K), w (N, K),
 * b (N,) or NULL; y (*, N). One product with w read transposed (no copy
 * of w^T), the bias added to each row.
 *   dx = g @ w, dw = g^T @ x (x's leading dims as rows), db = g summed
 *   over the rows
 * Recorded under PyTorch's names: AddmmBackward (2-D x with a bias),
 * MmBackward (2-D, none), AddBackward / SqueezeBackward (1-D), ViewBackward
 * / UnsafeViewBackward (more dims).
 * ====================================================================== */

typedef struct {
    int64_t M, N, K; /* rows of x (its leading dims multiplied), outputs, inputs */
} LinearPlan;

static const char *linear_name(int ndim, bool bias) {
    if (ndim == 2) return bias ? "AddmmBackward" : "MmBackward";
    if (ndim == 1) return bias ? "AddBackward" : "SqueezeBackward";
    return bias ? "ViewBackward" : "UnsafeViewBackward";
}

static int linear_check(const Tensor *x, const Tensor *w, const Tensor *b) {
    char sx[AG_SHAPE_STR_MAX], sw[AG_SHAPE_STR_MAX], sb[AG_SHAPE_STR_MAX];
    if (x->ndim < 1 || w->ndim != 2 || x->shape[x->ndim - 1] != w->shape[1])
        return ag_fail("linear: mat1 and mat2 shapes cannot be multiplied: input %s, weight %s "
                       "(the input's last dimension must be the weight's second)",
                       tensor_shape_str(x, sx, sizeof sx), tensor_shape_str(w, sw, sizeof sw)), -1;
    if (b && (b->ndim != 1 || b->shape[0] != w->shape[0]))
        return ag_fail("linear: bias of shape %s for a weight of shape %s (it must be (%lld,))",
                       tensor_shape_str(b, sb, sizeof sb), tensor_shape_str(w, sw, sizeof sw),
                       (long long)w->shape[0]), -1;
    return 0;
}

Tensor *tensor_linear(Tensor *x, Tensor *w, Tensor *b) {
    if (!x || !w) return ag_fail("linear: an operand is NULL");
    if (linear_check(x, w, b) != 0) return NULL;
    LinearPlan p = {.N = w->shape[0], .K = w->shape[1]};
    p.M = x->numel / (p.K ? p.K : 1);
    if (p.K == 0) p.M = ag_shape_prod(x->shape, 0, x->ndim - 1);
    int64_t shape[AG_MAX_DIMS];
    memcpy(shape, x->shape, sizeof shape);
    shape[x->ndim - 1] = p.N;
    Tensor *out = ag_tensor_new(x->ndim, shape);
    if (!out) return NULL;
    if (p.M * p.N > 0) {
        if (p.K > 0) gemm_for(x, w)(false, true, p.M, p.N, p.K, tensor_values(x), p.K, tensor_values(w), p.K, tensor_values(out), p.N, false);
        else memset(tensor_values(out), 0, (size_t)(p.M * p.N) * sizeof(double));
        double *o = tensor_values(out);
        const double *bias = b ? tensor_values(b) : NULL;
        for (int64_t i = 0; bias && i < p.M; i++)
            for (int64_t j = 0; j < p.N; j++) o[i * p.N + j] += bias[j];
    }
    void *ctx;
    Tensor *in[3] = {x, w, b};
    out = ag_graph_record_named(out, AG_OP_LINEAR, linear_name(x->ndim, b != NULL), in, b ? 3 : 2,
                                &ctx, sizeof p);
    if (ctx) memcpy(ctx, &p, sizeof p);
    return out;
}

/* t's gradient op(A)[rows, cols] @ B[inner, cols] (zeros when inner is
 * 0), handed to ag_accumulate_grad. */
static void linear_grad(Gemm *gemm, Tensor *t, bool trans_a, int64_t rows, int64_t cols,
                        int64_t inner, const double *a, int64_t lda, const double *b) {
    Tensor *d = ag_tensor_new_like(t);
    if (!d) return;
    if (d->numel > 0 && inner > 0)
        gemm(trans_a, false, rows, cols, inner, a, lda, b, cols, tensor_values(d), cols, false);
    else if (d->numel > 0)
        memset(tensor_values(d), 0, (size_t)d->numel * sizeof(double));
    ag_accumulate_grad(t, d);
}

static void linear_backward(Function *self, void *ctx, Tensor *g) {
    const LinearPlan *p = ctx;
    Tensor *x = self->inputs[0], *w = self->inputs[1];
    Tensor *b = self->num_inputs > 2 ? self->inputs[2] : NULL;
    Gemm *gemm = gemm_for(x, w);
    if (x->requires_grad) linear_grad(gemm, x, false, p->M, p->K, p->N, tensor_values(g), p->N, tensor_values(w));
    if (w->requires_grad) linear_grad(gemm, w, true, p->N, p->K, p->M, tensor_values(g), p->N, tensor_values(x));
    if (b && b->requires_grad) {
        Tensor *db = ag_tensor_new_like(b);
        if (!db) return;
        if (!ag_sum_dims(tensor_values(g), 2, (int64_t[]){p->M, p->N}, 1u, tensor_values(db),
                         g->dtype == AG_FLOAT32)) {
            tensor_release(db);
            ag_alloc_failure = true;
            return;
        }
        ag_accumulate_grad(b, db);
    }
}

/* The same as recorded ops, the same kernels' calls: dx = g @ w (matmul
 * folds x's leading dims into rows, as linear_grad's one product), dw =
 * matmul_tn(g, x) (g^T @ x, x's leading dims as rows), db = g as (M, N)
 * summed over dim 0 (ag_sum_dims's sum above). */
static int linear_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    const LinearPlan *p = ctx;
    GradTemps t = {0};
    Tensor *x = self->inputs[0], *w = self->inputs[1];
    if (ag_grad_wanted(self, 0)) grads[0] = ag_grad_out(&t, tensor_matmul(g, w));
    if (ag_grad_wanted(self, 1))
        grads[1] = ag_grad_out(&t, tensor_matmul_tn(g, x, w->ndim, w->shape));
    if (self->num_inputs > 2 && ag_grad_wanted(self, 2)) {
        Tensor *rows = ag_grad_tmp(&t, tensor_reshape(g, 2, (int64_t[]){p->M, p->N}));
        grads[2] = ag_grad_out(&t, tensor_sum_dims(rows, (int64_t[]){0}, 1, false));
    }
    return ag_grad_done(&t);
}

static Tensor *linear_call(const AgOpArgs *a) { return tensor_linear(a->t[0], a->t[1], a->t[2]); }

const AgOpInfo ag_op_linear = {
    .id = AG_OP_LINEAR, .name = "linear", .signature = "linear(input, weight, bias=None)",
    .params = "TTt", .help = "input @ weight^T + bias: torch.nn.functional.linear, nn.Linear's forward",
    .rule = "grad_input = g @ weight, grad_weight = g^T @ input, grad_bias = g summed over rows",
    .backward_name = "AddmmBackward", .call = linear_call, .backward = linear_backward,
    .graph_backward = linear_graph,
    .dtype_rule = AG_DTYPE_SAME,
    .flags = AG_OP_SAVES_READS, .grad_reads = {2, 1, 0},
};
