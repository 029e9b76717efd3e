/*
 * tensor.c — Tensor: allocation (the one path, with its counters and memory
 * limit), refcounting, creation, zero_grad, and the error message funnel.
 * Not here: anything about graphs (autograd.c) or arithmetic (ops/).
 */
#include "internal.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#endif

/* ======================================================================
 * Errors
 * ====================================================================== */

static _Thread_local char error_message[512];

void *ag_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error_message, sizeof error_message, fmt, ap);
    va_end(ap);
    return NULL;
}

const char *ag_error(void) { return error_message; }
void ag_clear_error(void) { error_message[0] = '\0'; }

/* ======================================================================
 * Allocation: header and data in one block, data 64-byte aligned
 * ====================================================================== */

enum { HEADER_BYTES = (sizeof(Tensor) + 63) / 64 * 64 };

static _Thread_local int64_t live_tensors, live_bytes, peak_bytes;
static _Thread_local int64_t memory_limit = AG_DEFAULT_MEMORY_LIMIT;
_Thread_local bool ag_alloc_failure;             /* since ag_alloc_clear_failure */
static _Thread_local int64_t fail_countdown = -1; /* the test hook below; -1: off */

void ag_set_memory_limit(int64_t bytes) { memory_limit = bytes < 0 ? 0 : bytes; }
int64_t ag_memory_limit(void) { return memory_limit; }

bool ag_memory_allows(int64_t bytes) {
    return memory_limit <= 0 ||
           live_bytes + ag_arena_bytes_in_use() + ag_snap_bytes + bytes <= memory_limit;
}
void ag_alloc_fail_after(int64_t after) { fail_countdown = after < 0 ? -1 : after; }

/* True for the allocation ag_alloc_fail_after chose. */
static bool injected_failure(void) {
    return fail_countdown >= 0 && fail_countdown-- == 0;
}


/* Element count of shape, or -1 with a message if a dimension is negative
 * or the dimensions are too large. The bound (INT64_MAX / 8 elements, so
 * that the byte count fits) applies to the product of the non-zero
 * dimensions, not only to the element count: (2^62, 0) and (0, 2^62) are
 * then refused alike, and no product of any of a tensor's dimensions, which
 * the ops form freely (strides, outer and inner counts), can overflow. */
static int64_t checked_numel(int ndim, const int64_t *shape) {
    char buf[AG_SHAPE_STR_MAX];
    int64_t nonzero = 1;
    bool empty = false;
    if (ndim < 0 || ndim > AG_MAX_DIMS) {
        ag_fail("tensors have at most %d dimensions, not %d", AG_MAX_DIMS, ndim);
        return -1;
    }
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0) {
            ag_fail("negative dimension %lld in shape %s", (long long)shape[i],
                    ag_shape_str(ndim, shape, buf, sizeof buf));
            return -1;
        }
        empty = empty || shape[i] == 0;
    }
    for (int i = 0; i < ndim; i++) {
        if (shape[i] == 0) continue;
        /* Both below 2^30: the product is below 2^60, no division needed
         * (a division per dimension is a tenth of a small op's cost). */
        bool small = ((uint64_t)nonzero | (uint64_t)shape[i]) < ((uint64_t)1 << 30);
        if (!small && nonzero > INT64_MAX / 8 / shape[i]) {
            ag_shape_str(ndim, shape, buf, sizeof buf);
            if (empty)
                ag_fail("shape %s is too large: even with no elements, its non-zero "
                        "dimensions may multiply to at most %lld", buf, (long long)(INT64_MAX / 8));
            else
                ag_fail("shape %s has too many elements to allocate", buf);
            return -1;
        }
        nonzero *= shape[i];
    }
    return empty ? 0 : nonzero;
}

/* ======================================================================
 * The block cache: freed tensor blocks kept for the next tensor of the same
 * size. A training step frees and allocates the same sizes every time;
 * reusing them skips malloc, the kernel's page faults on fresh memory and
 * cold caches (PyTorch's caching allocator does the same). Bounded: small
 * blocks (a graph of scalars frees thousands at once) up to
 * SMALL_CACHE_BYTES, LARGE_KEEP large ones up to LARGE_CACHE_BYTES, each at
 * most a quarter of the memory limit.
 * ====================================================================== */

enum {
    SMALL_MAX = 1024,      /* block bytes (header and data) kept in small lists */
    LARGE_KEEP = 16,       /* large blocks */
};
#define SMALL_CACHE_BYTES ((size_t)8 << 20)
#define LARGE_CACHE_BYTES ((size_t)64 << 20)

typedef struct SmallBlock {
    struct SmallBlock *next;
} SmallBlock;

static _Thread_local SmallBlock *small_free[SMALL_MAX / 64];
static _Thread_local size_t small_cached;
static _Thread_local struct {
    void *block;
    size_t size;
} large_free[LARGE_KEEP];
static _Thread_local int large_count;
static _Thread_local size_t cached_bytes;

static size_t cache_cap(size_t cap) {
    if (memory_limit > 0 && (size_t)memory_limit / 4 < cap) cap = (size_t)memory_limit / 4;
    return cap;
}

/* A block of exactly `size` bytes (a multiple of 64): a cached one if any. */
static void *block_alloc(size_t size) {
    if (size <= SMALL_MAX) {
        SmallBlock **list = &small_free[size / 64 - 1];
        if (*list) {
            SmallBlock *b = *list;
            *list = b->next;
            small_cached -= size;
            cached_bytes -= size;
            return b;
        }
    } else {
        for (int i = large_count - 1; i >= 0; i--)
            if (large_free[i].size == size) {
                void *b = large_free[i].block;
                memmove(&large_free[i], &large_free[i + 1],
                        (size_t)(large_count - 1 - i) * sizeof large_free[0]);
                large_count--;
                cached_bytes -= size;
                return b;
            }
    }
    return aligned_alloc(64, size);
}

static void large_evict_oldest(void) {
    free(large_free[0].block);
    cached_bytes -= large_free[0].size;
    memmove(&large_free[0], &large_free[1], (size_t)(large_count - 1) * sizeof large_free[0]);
    large_count--;
}

/* Keeps a freed block for reuse, or frees it. */
static void block_free(void *block, size_t size) {
    if (size <= SMALL_MAX) {
        if (small_cached + size <= cache_cap(SMALL_CACHE_BYTES)) {
            SmallBlock *b = block;
            b->next = small_free[size / 64 - 1];
            small_free[size / 64 - 1] = b;
            small_cached += size;
            cached_bytes += size;
            return;
        }
    } else if (size <= cache_cap(LARGE_CACHE_BYTES)) {
        while (large_count > 0 && (large_count == LARGE_KEEP ||
                                   cached_bytes - small_cached + size > cache_cap(LARGE_CACHE_BYTES)))
            large_evict_oldest();
        large_free[large_count].block = block;
        large_free[large_count++].size = size;
        cached_bytes += size;
        return;
    }
    free(block);
}

void ag_trim(void) {
    for (int c = 0; c < SMALL_MAX / 64; c++) {
        while (small_free[c]) {
            SmallBlock *b = small_free[c];
            small_free[c] = b->next;
            free(b);
        }
    }
    small_cached = 0;
    while (large_count > 0) large_evict_oldest();
    cached_bytes = 0;
    ag_arena_trim();
    ag_heap_trim();
}

void ag_heap_trim(void) {
#ifdef __GLIBC__
    malloc_trim(0); /* glibc keeps freed heap pages unless asked */
#endif
}

void ag_stats_tensors(AgStats *s) {
    s->live_tensors = live_tensors;
    s->live_bytes = live_bytes;
    s->peak_bytes = peak_bytes;
    s->cached_bytes = (int64_t)cached_bytes;
}

static size_t block_size(int64_t bytes) { return (size_t)HEADER_BYTES + ((size_t)bytes + 63) / 64 * 64; }

/* Every failure of ag_tensor_new goes through here: backward learns of it
 * from the flag (a kernel that gets NULL just returns). */
static Tensor *alloc_failure(void) {
    ag_alloc_failure = true;
    return NULL;
}

Tensor *ag_tensor_new(int ndim, const int64_t *shape) {
    int64_t numel = checked_numel(ndim, shape);
    if (numel < 0) return alloc_failure();
    int64_t bytes = numel * (int64_t)sizeof(double);
    /* The limit covers the tensors and the graph waiting for a backward, so
     * that forward passes without backward end in this message, not in
     * swapping. The check and the message use the same figures: the whole
     * block (header and padded data) against what the limit leaves free. */
    int64_t graph = ag_arena_bytes_in_use();
    size_t size = block_size(bytes); /* < 2^64: bytes < 2^63 (checked_numel) */
    int64_t free_bytes = memory_limit - live_bytes - graph - ag_snap_bytes;
    if (free_bytes < 0) free_bytes = 0; /* the limit was lowered under live tensors */
    if (memory_limit > 0 && size > (size_t)free_bytes) {
        char buf[AG_SHAPE_STR_MAX], held[160] = "";
        if (graph > 0)
            snprintf(held, sizeof held, " (%lld bytes hold graphs waiting for a backward, "
                     "which backward or :reset frees)", (long long)graph);
        ag_fail("allocation too large: shape %s needs %llu bytes, %lld of the "
                "%lld-byte memory limit are free%s",
                ag_shape_str(ndim, shape, buf, sizeof buf), (unsigned long long)size,
                (long long)free_bytes, (long long)memory_limit, held);
        return alloc_failure();
    }
    char *block = injected_failure() ? NULL : block_alloc(size);
    if (!block) {
        ag_fail("out of memory allocating %llu bytes", (unsigned long long)size);
        return alloc_failure();
    }
    Tensor *t = (Tensor *)block;
    memset(t, 0, sizeof *t);
    t->values = (double *)(block + HEADER_BYTES);
    /* Under the test hook, elements never written hash the same in every
     * run (a backward stopped by the memory limit frees such a buffer). */
#ifdef AG_DEBUG
    if (ag_test_freed) memset(t->values, 0xa5, (size_t)bytes);
#endif
    t->ndim = ndim;
    /* Element by element, not memcpy: gcc inlines a variable-length memcpy
     * as `rep movs`, whose start-up cost was half of this function's time
     * on op_overhead's one-element tensors (perf, AMD EPYC). */
    for (int d = 0; d < ndim; d++) t->shape[d] = shape[d];
    t->numel = numel;
    t->ref_count = 1;
    live_tensors++;
    live_bytes += (int64_t)size; /* header included: a million scalars are not free */
    if (live_bytes > peak_bytes) peak_bytes = live_bytes;
    return t;
}

Tensor *ag_tensor_new_like(const Tensor *t) { return ag_tensor_new(t->ndim, t->shape); }

int64_t ag_pack_min = AG_PACK_MIN;

Tensor *ag_tensor_new_packed(int ndim, const int64_t *shape) {
    Tensor *t = ag_tensor_new(ndim, shape);
    if (t) {
        t->dtype = AG_FLOAT32;
        t->packed = true;
    }
    return t;
}

/* Packed floats to doubles in the same buffer, from the end a block at a
 * time: double i's bytes [8i, 8i + 8) start at or after float i's [4i, 4i
 * + 4), so the floats not yet read, [0, start), lie below every double
 * written. A lock makes a second thread that finds t packed wait, then
 * find it unpacked. */
static pthread_mutex_t unpack_lock = PTHREAD_MUTEX_INITIALIZER;

double *tensor_unpack(const Tensor *t) {
    Tensor *w = (Tensor *)t; /* its values stay the same: only how they are held changes */
    pthread_mutex_lock(&unpack_lock);
    if (atomic_load_explicit((_Atomic bool *)&w->packed, memory_order_acquire)) {
        const float *f = (const float *)w->values;
        double *d = w->values;
        for (int64_t end = w->numel; end > 0;) {
            int64_t start = end > 16 ? end - 16 : 0;
            float block[16];
            memcpy(block, f + start, (size_t)(end - start) * sizeof *block);
            for (int64_t i = start; i < end; i++) d[i] = block[i - start];
            end = start;
        }
        atomic_store_explicit((_Atomic bool *)&w->packed, false, memory_order_release);
    }
    pthread_mutex_unlock(&unpack_lock);
    return w->values;
}

Tensor *ag_tensor_filled_like(const Tensor *t, double value) {
    Tensor *r = ag_tensor_new_like(t);
    if (!r) return NULL;
    double *v = tensor_values(r);
    for (int64_t i = 0; i < r->numel; i++) v[i] = value;
    return r;
}

/* ======================================================================
 * Refcounting
 * ====================================================================== */

Tensor *tensor_retain(Tensor *t) {
    if (t) t->ref_count++;
    return t;
}

void (*ag_test_freed)(const Tensor *t);

/* The last reference is gone. Out of line, so that tensor_release's
 * common case (another holder remains) costs a decrement and a compare
 * (op_overhead: every op releases its operands). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void tensor_free(Tensor *t) {
#ifdef AG_DEBUG /* not on the op_overhead path of a release build */
    if (ag_test_freed) ag_test_freed(t);
#endif
    /* The Function may outlive its output (it lives until the arena is freed):
     * tell it, so nothing reads the freed tensor through fn->output. */
    if (t->grad_fn) ag_graph_output_freed(t);
    tensor_release(t->grad);
    while (t->hooks) tensor_remove_hook(t, t->hooks->handle);
    live_tensors--;
    Tensor *base = t->base, *copy_of = t->copy_of;
    size_t size = base ? HEADER_BYTES : block_size(t->numel * (int64_t)sizeof(double));
    live_bytes -= (int64_t)size;
    block_free(t, size);
    if (base) tensor_release(base);
    tensor_release(copy_of);
}

/* ======================================================================
 * Copies where PyTorch has views
 * ====================================================================== */

Tensor *ag_mark_copy_of(Tensor *copy, const Tensor *x) {
    if (!copy || !x || copy == x) return copy;
    Tensor *root = x->base ? x->base : (Tensor *)x;
    copy->copy_of = tensor_retain(root->copy_of ? root->copy_of : root);
    copy->copy_version = tensor_version(copy->copy_of);
    return copy;
}

bool tensor_copy_is_stale(const Tensor *t) {
    const Tensor *owner = t && t->base ? t->base : t;
    return owner && owner->copy_of && tensor_version(owner->copy_of) != owner->copy_version;
}

int ag_copy_write_allowed(const Tensor *t) {
    const Tensor *owner = t->base ? t->base : t;
    if (!owner->copy_of || owner->copy_of->ref_count == 1) return 0;
    return ag_fail("ag's x.T, x[:, j] and x[::2] (and x[i] of a tensor being "
                   "differentiated) are copies where PyTorch's are views, so this in-place "
                   "write would not reach the tensor they came from: write into that tensor "
                   "(x[:, j] = v), or clone() first to change the copy alone"), -1;
}

void tensor_release(Tensor *t) {
    if (!t) return;
    AG_ASSERT(t->ref_count > 0, "released a tensor with ref_count <= 0");
    if (--t->ref_count > 0) return;
    tensor_free(t);
}

/* ======================================================================
 * Shared data and version counters
 * ====================================================================== */

/* The tensor whose counter t's in-place changes bump. */
static Tensor *version_owner(const Tensor *t) {
    return (Tensor *)(t->base && !t->own_version ? t->base : t);
}

uint32_t tensor_version(const Tensor *t) { return version_owner(t)->version; }

_Thread_local uint64_t ag_inplace_writes;

void ag_bump_version(Tensor *t) {
    version_owner(t)->version++;
    ag_inplace_writes++;
}

void tensor_bump_version(Tensor *t) {
    if (t) ag_bump_version(t);
}

/* A header-only leaf sharing t's elements (t's base when t shares them). */
static Tensor *alias(const Tensor *t, bool own_version) {
    if (!t) return ag_fail("detach: tensor is NULL");
    if (memory_limit > 0 && live_bytes + ag_arena_bytes_in_use() + ag_snap_bytes + HEADER_BYTES > memory_limit)
        return ag_fail("allocation too large: %d bytes for a tensor's header, the "
                       "memory limit is full", (int)HEADER_BYTES), alloc_failure();
    Tensor *a = injected_failure() ? NULL : block_alloc(HEADER_BYTES);
    if (!a) return ag_fail("out of memory allocating a tensor"), alloc_failure();
    memset(a, 0, sizeof *a);
    Tensor *base = t->base ? t->base : (Tensor *)t;
    a->values = tensor_values(t);
    a->ndim = t->ndim;
    memcpy(a->shape, t->shape, sizeof a->shape);
    a->numel = t->numel;
    a->dtype = t->dtype;
    a->ref_count = 1;
    a->base = tensor_retain(base);
    a->own_version = own_version;
    live_tensors++;
    live_bytes += HEADER_BYTES;
    if (live_bytes > peak_bytes) peak_bytes = live_bytes;
    return a;
}

Tensor *tensor_detach(const Tensor *t) { return alias(t, false); }

Tensor *ag_tensor_view(const Tensor *t, int ndim, const int64_t *shape) {
    Tensor *v = alias(t, false);
    if (!v) return NULL;
    memset(v->shape, 0, sizeof v->shape);
    v->ndim = ndim;
    if (ndim > 0) memcpy(v->shape, shape, (size_t)ndim * sizeof *shape);
    return v;
}

Tensor *tensor_data(const Tensor *t) { return alias(t, true); }

Tensor *tensor_copy(const Tensor *t) {
    if (!t) return ag_fail("copy: tensor is NULL");
    Tensor *c = tensor_create(t->ndim, t->shape, tensor_values(t), false);
    if (c) c->dtype = t->dtype;
    return c;
}

/* PyTorch's "[2, 3]" for a shape. */
static void bracket_shape(int ndim, const int64_t *shape, char *buf, size_t size) {
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < ndim && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, i ? ", %lld" : "%lld",
                                 (long long)shape[i]);
    if (used < size) snprintf(buf + used, size - used, "]");
}

/* 0, or -1 with PyTorch's message: value broadcast with t must keep t's shape. */
static int check_assign_shape(const Tensor *t, const Tensor *value) {
    int64_t shape[AG_MAX_DIMS];
    int ndim;
    if (ag_broadcast_shapes("copy_", t, value, shape, &ndim) != 0) return -1;
    if (ag_shape_equal(ndim, shape, t->ndim, t->shape)) return 0;
    char st[AG_SHAPE_STR_MAX], sb[AG_SHAPE_STR_MAX];
    bracket_shape(t->ndim, t->shape, st, sizeof st);
    bracket_shape(ndim, shape, sb, sizeof sb);
    return ag_fail("output with shape %s doesn't match the broadcast shape %s", st, sb), -1;
}

int tensor_assign(Tensor *t, const Tensor *value) {
    if (!t || !value) return ag_fail("assign: tensor is NULL"), -1;
    if (ag_is_grad_enabled() && t->requires_grad && tensor_is_leaf(t))
        return ag_fail("a leaf Variable that requires grad is being used in an in-place "
                       "operation."), -1;
    if (ag_is_grad_enabled() && (t->requires_grad || value->requires_grad))
        return ag_fail("ag does not record in-place operations on tensors that require "
                       "grad: write x = x + ... (a new tensor) instead"), -1;
    if (check_assign_shape(t, value) != 0 || ag_copy_write_allowed(t) != 0) return -1;
    if (tensor_values(value) != tensor_values(t)) {
        bool same = ag_shape_equal(t->ndim, t->shape, value->ndim, value->shape);
        Tensor *b = same ? NULL : ag_broadcast_to(value, t->ndim, t->shape);
        if (!same && !b) return -1;
        memmove(tensor_values(t), same ? tensor_values(value) : tensor_values(b), (size_t)t->numel * sizeof(double));
        tensor_release(b);
        if (t->dtype != value->dtype) /* its values: an int64 result wraps into an int32 t */
            ag_convert_from(tensor_values(t), t->numel, (AgDtype)value->dtype, (AgDtype)t->dtype);
    }
    ag_bump_version(t);
    return 0;
}

/* ======================================================================
 * Creation
 * ====================================================================== */

Tensor *tensor_create(int ndim, const int64_t *shape, const double *data, bool requires_grad) {
    if (ndim > 0 && !shape) return ag_fail("tensor_create: shape is NULL");
    Tensor *t = ag_tensor_new(ndim, shape);
    if (!t) return NULL;
    if (data)
        memcpy(tensor_values(t), data, (size_t)t->numel * sizeof(double));
    else
        memset(tensor_values(t), 0, (size_t)t->numel * sizeof(double));
    t->requires_grad = requires_grad;
    return t;
}

Tensor *tensor_scalar(double value) {
    return tensor_create(0, NULL, &value, false);
}

Tensor *tensor_number(double value, AgDtype dtype) {
    if ((unsigned)dtype >= AG_DTYPE_COUNT) return ag_fail("tensor_number: no such dtype");
    Tensor *t = ag_tensor_new(0, NULL); /* every Python number of a loop: no more than this */
    if (!t) return NULL;
    tensor_values(t)[0] = ag_dtype_convert(value, dtype);
    t->dtype = (uint8_t)dtype;
    t->wrapped_number = true;
    return t;
}

Tensor *tensor_full(double value, int ndim, const int64_t *shape, bool requires_grad) {
    if (ndim > 0 && !shape) return ag_fail("full: shape is NULL");
    Tensor *t = ag_tensor_new(ndim, shape);
    if (!t) return NULL;
    double *v = tensor_values(t);
    for (int64_t i = 0; i < t->numel; i++) v[i] = value;
    t->requires_grad = requires_grad;
    return t;
}

Tensor *tensor_zeros(int ndim, const int64_t *shape, bool requires_grad) {
    return tensor_full(0.0, ndim, shape, requires_grad);
}

Tensor *tensor_ones(int ndim, const int64_t *shape, bool requires_grad) {
    return tensor_full(1.0, ndim, shape, requires_grad);
}

/* PyTorch's arange, bit for bit (its RangeFactoriesKernel): each point
 * start + step*i with one rounding, except inside its vector loop, which
 * runs two 4-wide vectors at a time, each vector's first point computed so
 * and the next three as first + j*step, also with one rounding (unlike
 * linspace's, below); the last n % 8 points are scalar. */
Tensor *tensor_arange(double start, double stop, double step) {
    if (!isfinite(start) || !isfinite(stop) || !isfinite(step))
        return ag_fail("arange: start, stop and step must be finite");
    if (step == 0) return ag_fail("arange: step must be nonzero");
    double count = ceil((stop - start) / step);
    if (count < 0) count = 0;
    if (count > (double)(INT64_MAX / 8))
        return ag_fail("arange: %g elements are too many to allocate", count);
    int64_t n = (int64_t)count;
    Tensor *t = ag_tensor_new(1, &n);
    if (!t) return NULL;
    int64_t i = 0;
    double *p = tensor_values(t);
    for (; n - i >= 8; i += 8) /* two vectors of 4, as linspace's */
        for (int64_t v = i; v < i + 8; v += 4) {
            double first = fma(step, (double)v, start);
            for (int j = 0; j < 4; j++) p[v + j] = fma((double)j, step, first);
        }
    for (; i < n; i++) p[i] = fma(step, (double)i, start);
    return t;
}

/* PyTorch's float32 arange: each point start + step*i in double (float's
 * accumulate type) rounded to float; in its vector loop, two vectors of 8
 * floats, each vector's first point so, and the next seven that float plus
 * j*step in double, rounded. (float64's points rounded differ by an ulp.) */
static void arange_float32(double start, double step, int64_t n, double *out) {
    int64_t i = 0;
    for (; n - i >= 16; i += 16)
        for (int64_t v = i; v < i + 16; v += 8) {
            float first = (float)fma(step, (double)v, start);
            out[v] = first;
            for (int j = 1; j < 8; j++) out[v + j] = (float)fma((double)j, step, (double)first);
        }
    for (; i < n; i++) out[i] = (float)fma(step, (double)i, start);
}

Tensor *tensor_arange_as(double start, double stop, double step, AgDtype dtype) {
    Tensor *t = tensor_arange(start, stop, step);
    if (t && dtype == AG_FLOAT32) arange_float32(start, step, t->numel, tensor_values(t));
    if (t && tensor_set_dtype(t, dtype) != 0) return tensor_release(t), NULL;
    return t;
}

Tensor *tensor_eye(int64_t n) {
    if (n < 0) return ag_fail("eye: size must be non-negative, not %lld", (long long)n);
    Tensor *t = tensor_zeros(2, (int64_t[]){n, n}, false);
    if (!t) return NULL;
    double *v = tensor_values(t);
    for (int64_t i = 0; i < n; i++) v[i * n + i] = 1.0;
    return t;
}

/* Matches torch.linspace: the first half steps up from start, the second
 * half steps down from stop, so both ends are exact. */
/* PyTorch's linspace, bit for bit: the first half counted up from start,
 * the second down from stop, each point start + step*i (or stop - step*k)
 * with one rounding (its build fuses the multiply-add), except inside its
 * vector loop: two 4-wide vectors at a time, whose first point is computed
 * so and the next three as first + step*j. The last n % 8 points are scalar. */
static double linspace_point(double start, double stop, double step, int64_t n, int64_t i) {
    return i < (n == 1 ? 1 : n / 2) ? fma(step, (double)i, start)
                                    : fma(-step, (double)(n - 1 - i), stop);
}

Tensor *tensor_linspace(double start, double stop, int64_t n) {
    if (n < 0) return ag_fail("linspace: number of points must be non-negative, not %lld",
                              (long long)n);
    Tensor *t = ag_tensor_new(1, &n);
    if (!t) return NULL;
    double step = n > 1 ? (stop - start) / (double)(n - 1) : 0.0;
    int64_t i = 0;
    double *p = tensor_values(t);
    for (; n - i >= 8; i += 8) /* two vectors of 4 */
        for (int64_t v = i; v < i + 8; v += 4) {
            double first = linspace_point(start, stop, step, n, v);
            for (int j = 0; j < 4; j++) p[v + j] = j ? first + step * (double)j : first;
        }
    for (; i < n; i++) p[i] = linspace_point(start, stop, step, n, i);
    return t;
}

/* PyTorch's float32 linspace: as float64's, but every step in float
 * (start, stop and the step rounded to float first, each point one fused
 * multiply-add in float, the vector loop's two vectors of 8 floats each
 * first + step*j in float). */
static float linspace_point32(float start, float stop, float step, int64_t n, int64_t i) {
    return i < (n == 1 ? 1 : n / 2) ? fmaf(step, (float)i, start)
                                    : fmaf(-step, (float)(n - 1 - i), stop);
}

static void linspace_float32(double start, double stop, int64_t n, double *out) {
    float s = (float)start, e = (float)stop, step = n > 1 ? (e - s) / (float)(n - 1) : 0.0f;
    int64_t i = 0;
    for (; n - i >= 16; i += 16)
        for (int64_t v = i; v < i + 16; v += 8) {
            float first = linspace_point32(s, e, step, n, v);
            out[v] = first;
            for (int j = 1; j < 8; j++) out[v + j] = first + step * (float)j;
        }
    for (; i < n; i++) out[i] = linspace_point32(s, e, step, n, i);
}

Tensor *tensor_linspace_as(double start, double stop, int64_t n, AgDtype dtype) {
    Tensor *t = tensor_linspace(start, stop, n);
    if (t && dtype == AG_FLOAT32) linspace_float32(start, stop, n, tensor_values(t));
    if (t && tensor_set_dtype(t, dtype) != 0) return tensor_release(t), NULL;
    return t;
}

/* ======================================================================
 * Gradients and flags
 * ====================================================================== */

void tensor_zero_grad(Tensor *t) {
    if (!t) return;
    tensor_release(t->grad);
    t->grad = NULL;
}

bool tensor_is_leaf(const Tensor *t) { return t->grad_fn == NULL; }

int tensor_retain_grad(Tensor *t) {
    if (!t) return ag_fail("retain_grad: tensor is NULL"), -1;
    if (!t->requires_grad)
        return ag_fail("can't retain_grad on Tensor that has requires_grad=False"), -1;
    if (!tensor_is_leaf(t)) t->retains_grad = true;
    return 0;
}

int tensor_set_requires_grad(Tensor *t, bool requires_grad) {
    if (!t) return ag_fail("requires_grad: tensor is NULL"), -1;
    if (!tensor_is_leaf(t))
        return ag_fail("requires_grad can only be changed on a leaf, not on the result of %s",
                       t->op_name), -1;
    if (requires_grad && !ag_dtype_is_floating((AgDtype)t->dtype))
        return ag_fail("only Tensors of floating point dtype can require gradients"), -1;
    t->requires_grad = requires_grad;
    return 0;
}

int tensor_write(Tensor *t, const double *data) {
    if (!t || !data) return ag_fail("write: tensor or data is NULL"), -1;
    if (t->requires_grad)
        return ag_fail("in-place write to a tensor that requires grad is not allowed "
                       "(backward may need its values); make a new tensor instead"), -1;
    if (ag_copy_write_allowed(t) != 0) return -1;
    memcpy(tensor_values(t), data, (size_t)t->numel * sizeof(double));
    ag_bump_version(t);
    return 0;
}

int tensor_assign_reshaped(Tensor *t, const Tensor *src) {
    if (!t || !src) return ag_fail("assign_reshaped: tensor is NULL"), -1;
    if (src->numel != t->numel || src->dtype != t->dtype)
        return ag_fail("assign_reshaped: %lld elements of one dtype needed, got %lld",
                       (long long)t->numel, (long long)src->numel), -1;
    if (t->requires_grad)
        return ag_fail("in-place change of the shape of a tensor that requires grad is not "
                       "recorded; make a new tensor instead"), -1;
    if (ag_copy_write_allowed(t) != 0) return -1;
    memmove(tensor_values(t), tensor_values(src), (size_t)t->numel * sizeof(double));
    t->ndim = src->ndim;
    memcpy(t->shape, src->shape, sizeof t->shape);
    ag_bump_version(t);
    return 0;
}

char *ag_shape_str(int ndim, const int64_t *shape, char *buf, size_t size) {
    size_t used = 0;
    used += (size_t)snprintf(buf, size, "(");
    for (int i = 0; i < ndim && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, i ? ", %lld" : "%lld",
                                 (long long)shape[i]);
    if (used < size) snprintf(buf + used, size - used, ndim == 1 ? ",)" : ")");
    return buf;
}

char *ag_shape_list_str(int ndim, const int64_t *shape, char *buf, size_t size) {
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < ndim && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, i ? ", %lld" : "%lld",
                                 (long long)shape[i]);
    if (used < size) snprintf(buf + used, size - used, "]");
    return buf;
}

char *tensor_shape_str(const Tensor *t, char *buf, size_t size) {
    return ag_shape_str(t->ndim, t->shape, buf, size);
}

/* ======================================================================
 * Taking a variable's place (w -= lr * w.grad, optimizer steps)
 * ====================================================================== */

int tensor_inherit(Tensor *t, const Tensor *old) {
    char st[AG_SHAPE_STR_MAX], so[AG_SHAPE_STR_MAX];
    if (!t || !old) return ag_fail("inherit: tensor is NULL"), -1;
    if (!tensor_is_leaf(t))
        return ag_fail("inherit: the new value must be a leaf, not the result of %s",
                       t->op_name), -1;
    if (!ag_shape_equal(t->ndim, t->shape, old->ndim, old->shape))
        return ag_fail("the new value has shape %s, the variable has shape %s",
                       tensor_shape_str(t, st, sizeof st), tensor_shape_str(old, so, sizeof so)),
               -1;
    t->requires_grad = old->requires_grad;
    if (t->grad != old->grad) {
        tensor_release(t->grad);
        t->grad = tensor_retain(old->grad);
    }
    return 0;
}

int tensor_set_grad(Tensor *t, const Tensor *grad) {
    char st[AG_SHAPE_STR_MAX], sg[AG_SHAPE_STR_MAX];
    if (!t) return ag_fail("set_grad: tensor is NULL"), -1;
    if (!tensor_is_leaf(t) && !t->retains_grad)
        return ag_fail("only a leaf keeps a gradient; this is the result of %s", t->op_name), -1;
    if (grad && !ag_shape_equal(t->ndim, t->shape, grad->ndim, grad->shape))
        return ag_fail("a gradient of shape %s for a tensor of shape %s",
                       tensor_shape_str(grad, sg, sizeof sg), tensor_shape_str(t, st, sizeof st)),
               -1;
    Tensor *copy = grad ? tensor_copy(grad) : NULL; /* never shares its values */
    if (grad && !copy) return -1;
    tensor_release(t->grad);
    t->grad = copy;
    return 0;
}

/* ======================================================================
 * Gradient hooks (run by backward: autograd.c)
 * ====================================================================== */

_Thread_local int64_t ag_hooks_live;

int tensor_register_hook(Tensor *t, AgHookFn fn, void *ctx, void (*release)(void *ctx)) {
    static int last_handle;
    const char *why = !t || !fn ? "register_hook: tensor or hook is NULL"
                      : !t->requires_grad ? "cannot register a hook on a tensor that doesn't "
                                            "require gradient"
                                          : NULL;
    AgHook *h = why ? NULL : malloc(sizeof *h);
    if (!h) {
        if (release) release(ctx);
        ag_fail("%s", why ? why : "register_hook: out of memory");
        return -1;
    }
    *h = (AgHook){.fn = fn, .ctx = ctx, .release = release, .handle = ++last_handle};
    ag_hooks_live++;
    AgHook **end = &t->hooks;
    while (*end) end = &(*end)->next;
    *end = h;
    return h->handle;
}

bool tensor_remove_hook(Tensor *t, int handle) {
    for (AgHook **link = t ? &t->hooks : NULL; link && *link; link = &(*link)->next) {
        AgHook *h = *link;
        if (h->handle != handle) continue;
        *link = h->next;
        ag_hooks_live--;
        if (h->release) h->release(h->ctx);
        free(h);
        return true;
    }
    return false;
}
