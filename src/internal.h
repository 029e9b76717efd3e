/*
 * internal.h — what the engine's files share and clients do not see:
 * the error funnel, raw tensor allocation, shape helpers, the broadcast
 * iterator, graph recording and ag_accumulate_grad.
 */
#ifndef AG_INTERNAL_H
#define AG_INTERNAL_H

#include "ag.h"
#include "ops/ops.h"

#include <stdio.h>
#include <stdlib.h>

/* Debug-only checks of the design's invariants (Lua's lua_assert): a failure
 * is a bug in the engine, never a user error. */
#ifdef AG_DEBUG
#define AG_ASSERT(cond, what)                                                  \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: invariant violated: %s\n", __FILE__,       \
                    __LINE__, what);                                           \
            abort();                                                           \
        }                                                                      \
    } while (0)
#else
#define AG_ASSERT(cond, what) ((void)0)
#endif

/* Vectorisation requests (-fopenmp-simd; no threads): SIMD_LOOP for a loop
 * whose iterations are independent (it may call libmvec's functions),
 * SIMD_SUM(v) for a loop summing into v, lanes summed in any order. gcc
 * only: clang cannot vectorise libm calls, and warns where it cannot honour
 * the request. */
#if defined(__GNUC__) && !defined(__clang__)
#define AG_PRAGMA(text) _Pragma(#text)
#define SIMD_LOOP _Pragma("omp simd")
#define SIMD_SUM(v) AG_PRAGMA(omp simd reduction(+ : v))
#else
#define SIMD_LOOP
#define SIMD_SUM(v)
#endif

#if defined(__GNUC__)
#define AG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define AG_PRINTF(f, a)
#endif

/* ---- errors (tensor.c) ---- */
/* Sets the message ag_error() returns. Always returns NULL, so an op can
 * `return ag_fail(...)`. */
void *ag_fail(const char *fmt, ...) AG_PRINTF(1, 2);

/* ---- allocation (tensor.c): the one path for tensor memory ---- */
/* New tensor with uninitialised data, ref_count 1, no grad; NULL with a
 * message if the element count overflows, the memory limit would be passed
 * or malloc fails. Every allocation counts against the limit, backward's
 * too. */
Tensor *ag_tensor_new(int ndim, const int64_t *shape);
Tensor *ag_tensor_new_like(const Tensor *t);
/* A float32 tensor of shape held packed (Tensor.packed): the caller writes
 * its numel floats at ag_floats(t), which the first tensor_values turns
 * into doubles. */
Tensor *ag_tensor_new_packed(int ndim, const int64_t *shape);
static inline float *ag_floats(const Tensor *t) { return (float *)t->values; }
/* The fewest elements a float32 element-wise result is packed at: below,
 * the doubles path is as fast (the tensor fits in cache), and a result
 * read at once (an item, a print) would pay the unpacking's lock. */
enum { AG_PACK_MIN = 4096 };
/* The threshold the kernels use: AG_PACK_MIN, which the tests lower to
 * pack every float32 result (AG_TEST_PACK_MIN=1: tests/engine/harness.c). */
extern int64_t ag_pack_min;
/* A header-only tensor of shape (ndim) sharing t's elements and version
 * counter (t's numel elements in the new shape): reshape's view. New
 * reference; NULL when the header cannot be allocated. */
Tensor *ag_tensor_view(const Tensor *t, int ndim, const int64_t *shape);
/* Whether t's elements are this holder's alone, so a kernel may write them
 * in place: one reference, and no shared elements (a view's are its
 * base's, and a base with views has their references). */
static inline bool ag_exclusive(const Tensor *t) { return t->ref_count == 1 && !t->base; }
/* Counts an in-place change of t's elements (its version counter's owner's). */
void ag_bump_version(Tensor *t);
/* copy (returned) marked as made where PyTorch makes a view of x
 * (Tensor.copy_of: x's base, or what x is a copy of, retained). */
Tensor *ag_mark_copy_of(Tensor *copy, const Tensor *x);
/* 0 when t (or the tensor t shares elements with) may be written in place;
 * -1 with a message when it is such a copy and another holder can still
 * see the tensor it came from. Every in-place write asks. */
int ag_copy_write_allowed(const Tensor *t);
/* In-place writes on this thread so far (ag_bump_version's): a graph with
 * none since it was recorded needs no version check. */
extern _Thread_local uint64_t ag_inplace_writes;
/* tensor_version, inline: graph recording and backward read it for every
 * operand, on the op_overhead path. */
static inline uint32_t ag_version_of(const Tensor *t) {
    return (t->base && !t->own_version ? t->base : t)->version;
}
/* ---- dtypes (dtype.c) ---- */
/* Gives out, an op's result (taken), the dtype its row's rule makes of the
 * operands, its values converted; or refuses (NULL, PyTorch's message, out
 * released) an operand type PyTorch refuses (-x of a bool, mean of an
 * integer). */
Tensor *ag_apply_dtype(Tensor *out, int op, Tensor *const *in, int n);
/* n values of type from converted in place to type to: an integer to a
 * narrower one wraps (C's and PyTorch's int64 -> int32), a float past an
 * integer's range gives its minimum (x86's conversion: PyTorch's there). */
void ag_convert_from(double *v, int64_t n, AgDtype from, AgDtype to);
/* Whether ag_apply_dtype has anything to do: every operand float64 and a
 * rule that keeps it is the common case, and costs one pass over the
 * operands' dtypes (op_overhead). The default dtype decides nothing there:
 * a float64 operand's result stays float64 whatever the default (only
 * Python numbers alone would take it, and the shell computes those as
 * numbers). */
static inline bool ag_dtype_needed(const AgOpInfo *info, Tensor *const *in, int n) {
    unsigned any = 0;
    for (int i = 0; i < n; i++) any |= in[i] ? in[i]->dtype : 0u;
    return any != 0 || info->dtype_rule >= AG_DTYPE_BOOL;
}

/* The operands an element-wise op computes with, in *ca and *cb: a and b,
 * or where their common type is float32 and one is of another type (a
 * float64 0-d tensor or Python number beside float32 ones, an int64
 * tensor), a float32 copy of that one:
 * PyTorch's TensorIterator casts every operand to the common type first
 * (x32 + 0.1 adds 0.1's float32, x32 == t64 compares t64's float32). The
 * op records a and b. -1 when a copy cannot be made. ag_common_release
 * frees what this made. */
int ag_common_float32(Tensor *a, Tensor *b, Tensor **ca, Tensor **cb);
static inline int ag_common_operands(Tensor *a, Tensor *b, Tensor **ca, Tensor **cb) {
    *ca = a, *cb = b;
    bool float32 = a->dtype != b->dtype && (a->dtype == AG_FLOAT32 || b->dtype == AG_FLOAT32);
    return float32 ? ag_common_float32(a, b, ca, cb) : 0; /* only float32 converts */
}
static inline void ag_common_release(Tensor *c, const Tensor *given) {
    if (c != given) tensor_release(c);
}

/* out, a constant an op made without recording, typed as ag_graph_record
 * types a recorded one. */
static inline Tensor *ag_typed_constant(Tensor *out, int op, Tensor *const *in, int n) {
    return out && ag_dtype_needed(ag_op_at(op), in, n) ? ag_apply_dtype(out, op, in, n) : out;
}

/* Same shape as t, filled with value. */
Tensor *ag_tensor_filled_like(const Tensor *t, double value);
/* A failed ag_tensor_new also raises a flag, so that backward can stop
 * after the apply in which it happened (a backward kernel that gets NULL
 * writes nothing and returns: the contract of every kernel). */
extern _Thread_local bool ag_alloc_failure; /* read once per apply: no call */
static inline void ag_alloc_clear_failure(void) { ag_alloc_failure = false; }
static inline bool ag_alloc_failed(void) { return ag_alloc_failure; }
/* Test hook: the allocation `after` allocations from now fails as if malloc
 * had returned NULL (0: the next one); negative turns it off. */
void ag_alloc_fail_after(int64_t after);
/* Test hook (debug builds: AG_DEBUG): called with every tensor whose last
 * reference goes, before it is freed (the engine tests hash their
 * elements: tests/threads.sh); while it is set, new tensors' elements
 * start as a fixed pattern. */
extern void (*ag_test_freed)(const Tensor *t);
/* Hands memory the C library keeps after free back to the system. */
void ag_heap_trim(void);
/* Frees the arena's spare chunks (ag_trim). */
void ag_arena_trim(void);
/* Bytes the arena's Functions use now (counted against the memory limit). */
int64_t ag_arena_bytes_in_use(void);
/* Fills the tensor counters of s (ag_stats in autograd.c adds the arena's). */
void ag_stats_tensors(AgStats *s);

/* ---- threads (parallel.c) ---- */
/* A job's task t, for t < the job's tasks; task 0 runs on the caller. */
typedef void (*AgTaskFn)(void *ctx, int task);
/* Elements [begin, end) of a range. */
typedef void (*AgRangeFn)(void *ctx, int64_t begin, int64_t end);
/* Runs fn(ctx, t) for every t < tasks, on the pool's threads, and returns
 * when all are done; inline (in order) for one task, inside a task, or
 * while another thread runs a job. A task must not allocate, fail or
 * call ag_fail: what it needs is made before. */
void ag_parallel_run(int tasks, AgTaskFn fn, void *ctx);
/* How many tasks work units split into with at least grain units each
 * (1 below 2 * grain: the kernel runs inline), at most the thread count. */
int ag_parallel_tasks(int64_t work, int64_t grain);
/* fn over [0, n) in contiguous pieces of at least grain, one per task (no
 * synchronisation, no pool, below 2 * grain). */
void ag_parallel_for(int64_t n, int64_t grain, AgRangeFn fn, void *ctx);
/* Test hook: every grain multiplied by scale (1: as measured), so that the
 * tests' small tensors take the threaded paths. */
void ag_parallel_set_grain_scale(double scale);
extern double ag_parallel_grain_scale; /* the scale set: 1 but in tests */
/* Whether work units at grain per task may take threads: a kernel's own
 * inline path is kept below (no call, no indirection: op_overhead). */
static inline bool ag_parallel_worth(int64_t work, int64_t grain) {
    return work >= 2 * grain ||
           (ag_parallel_grain_scale != 1.0 && work > 1 &&
            (double)work >= 2.0 * (double)grain * ag_parallel_grain_scale);
}
/* Elements per task of a memory-bound element-wise loop (an add, a
 * multiply, a gradient's sum), and of one that computes a function per
 * element (exp, tanh): measured, docs/performance.md "Threads". */
enum { AG_GRAIN_COPY = 16384, AG_GRAIN_MATH = 2048 };
/* OpenBLAS's threads, when it is loaded: kept at 1 whatever ag's count, as
 * ag's pool bands its products (matmul.c). */
void ag_blas_set_threads(int n);

/* ---- shapes (shape.c) ---- */
/* Inline: every gradient accumulated and most ops compare shapes. */
static inline bool ag_shape_equal(int na, const int64_t *a, int nb, const int64_t *b) {
    if (na != nb) return false;
    for (int i = 0; i < na; i++)
        if (a[i] != b[i]) return false;
    return true;
}
/* NumPy broadcast of a and b into out (ndim *out_ndim); -1 with a message
 * naming op and both shapes if they cannot broadcast. */
int ag_broadcast_shapes(const char *op, const Tensor *a, const Tensor *b,
                     int64_t *out, int *out_ndim);
/* The same for n (at most AG_BROADCAST_MAX) tensors; the message names
 * every shape ("where: shapes (2,), (3,) and () cannot broadcast ..."). */
int ag_broadcast_shapes_n(const char *op, const Tensor *const *ts, int n, int64_t *out,
                          int *out_ndim);
/* axis in [-ndim, ndim) to [0, ndim); -1 with a message otherwise. */
int ag_normalize_axis(const char *op, int64_t axis, int ndim);
/* The dims a reduction of x runs over, as a bit mask of x's axes (bit i:
 * axis i): ndims distinct axes of dims, negative ones counted from the end;
 * ndims == 0 means every axis (PyTorch's dim=None, and its dim=()). A 0-d x
 * takes dim 0 or -1 and gives mask 0 (its one element). 0, or -1 with a
 * message naming op (an axis out of range, one given twice). */
int ag_reduce_mask(const char *op, const Tensor *x, const int64_t *dims, int ndims,
                   unsigned *mask);
/* The result of reducing x over mask: x's shape without those axes, or with
 * size 1 there when keepdim. Uninitialised, as ag_tensor_new. Either way
 * its elements lie in the order of x's kept axes. */
Tensor *ag_reduced_new(const Tensor *x, unsigned mask, bool keepdim);
/* Product of dims [from, to). */
int64_t ag_shape_prod(const int64_t *shape, int from, int to);

/* Walks a big contiguous shape row by row (rows of its last dimension) and
 * gives, for each row, the offset into each smaller tensor broadcast to it
 * and its stride (0 or 1) along the row. */
enum { AG_BROADCAST_MAX = 4 }; /* operands one walk follows (clamp's backward: g, x, min, max) */
typedef struct {
    int ndim;                      /* of the big shape */
    int count;                     /* operands followed */
    int64_t shape[AG_MAX_DIMS];
    int64_t index[AG_MAX_DIMS];
    int64_t stride[AG_BROADCAST_MAX][AG_MAX_DIMS]; /* per small operand, 0 on broadcast dims */
    int64_t offset[AG_BROADCAST_MAX];
    int64_t row_len, rows, row;
} BroadcastIter;
/* small1 may be NULL (one operand). Both smalls must broadcast to shape.
 * Returns false when the shape has no elements (no rows to visit). */
bool ag_broadcast_iter_init(BroadcastIter *it, int ndim, const int64_t *shape,
                         const Tensor *small0, const Tensor *small1);
/* The same for n operands (at most AG_BROADCAST_MAX), each broadcasting to
 * shape: operand k's offsets and strides are offset[k] and stride[k]. */
bool ag_broadcast_iter_init_n(BroadcastIter *it, int ndim, const int64_t *shape,
                              const Tensor *const *smalls, int n);
/* Advances to the next row; false when done. Offsets of the first row are
 * set by init. */
bool ag_broadcast_iter_next(BroadcastIter *it);

/* ---- graph recording and gradients (autograd.c) ---- */
/* A Function's bytes in the arena, rounded to 16, its ctx (when it has
 * one) right after them. */
#define AG_FUNCTION_BYTES ((sizeof(Function) + 15) & ~(size_t)15)
/* fn's saved non-input data (the ctx its op asked for), or NULL. */
static inline void *ag_function_ctx(Function *fn) {
    return (fn->checks_versions & AG_FN_HAS_CTX) ? (unsigned char *)fn + AG_FUNCTION_BYTES : NULL;
}
bool ag_any_requires_grad(Tensor *const *inputs, int n);
/* When any input requires grad (and grad mode is on): allocates out's
 * Function for op (an id of ops.h: its backward and name come from the op
 * table) from the arena, with ctx_size zeroed bytes of ctx, retains the
 * inputs, counts pending consumers and marks out as requiring grad (the
 * design's graph construction steps). *ctx (if ctx is not NULL) gets the
 * ctx, or NULL when nothing was recorded. Returns out, or NULL with out
 * released and nothing recorded on failure. */
Tensor *ag_graph_record(Tensor *out, int op, Tensor *const *inputs, int n, void **ctx,
                        size_t ctx_size);
/* The same with a Function name of its own (matmul: DotBackward, MvBackward...). */
Tensor *ag_graph_record_named(Tensor *out, int op, const char *name, Tensor *const *inputs,
                              int n, void **ctx, size_t ctx_size);
/* t (made by a recorded op) is being freed: its Function, if still in the
 * current graph or one set aside by ag_graph_push, must not read it again. */
void ag_graph_output_freed(const Tensor *t);
/* Functions of the current graph that nothing consumes (for tests: backward
 * reuses the construction counts when the loss is the only one). */
int64_t ag_arena_sinks(void);
/* Takes ownership of grad (in some broadcast of t's shape), reduces it to
 * t's shape and adds it into t->grad: the one place gradients are summed.
 * Does nothing (but release) when t does not require grad. */
void ag_accumulate_grad(Tensor *t, Tensor *grad);

/* ---- anomaly mode's words (anomaly.c; the mode and checks: autograd.c) ----
 * Where each Function's forward ran is kept only while anomaly mode is on,
 * beside the arena (a Function has no room), by (Function, seq, generation). */
/* Notes fn, just recorded in the graph of generation, at the client's
 * present location (ag_set_anomaly_location); nothing without one. */
void ag_anomaly_note(const Function *fn, uint64_t generation);
/* The graph of generation is freed: its notes go. */
void ag_anomaly_forget(uint64_t generation);
/* Anomaly mode is off: every note and file name goes. */
void ag_anomaly_clear(void);
/* The message for a nan in grad (a gradient fn's backward produced for
 * input input, element element its first nan), fn's op row row (NULL:
 * none), grad_output the gradient fn received: PyTorch's sentence, then
 * ag's: the element, the rule's arithmetic there, the forward's place. */
void ag_anomaly_words(const Function *fn, const AgOpInfo *row, int input, const Tensor *grad,
                      int64_t element, const Tensor *grad_output, uint64_t generation,
                      char *buf, size_t size);

/* ---- writing a graph_backward (an op's backward in recorded ops) ----
 * Temporaries are kept in a GradTemps and released together at the end.
 * A failed call (NULL, its message standing) marks the whole failed; the
 * calls given its NULL fail too (every op refuses a NULL operand), and
 * ag_grad_done reports the first message. So a graph_backward reads as its
 * formula:
 *     GradTemps t = {0};
 *     Tensor *y = fn->output;
 *     grads[0] = ag_grad_out(&t, tensor_mul(g, ag_grad_tmp(&t, tensor_neg(y))));
 *     return ag_grad_done(&t);
 */
enum { AG_GRAD_TEMPS = 24 };
typedef struct {
    Tensor *held[AG_GRAD_TEMPS];
    int n;
    bool failed;
    char first_error[160];
} GradTemps;

static inline void ag_grad_note(GradTemps *s, const Tensor *t) {
    if (t || s->failed) return;
    s->failed = true;
    snprintf(s->first_error, sizeof s->first_error, "%s", ag_error());
}
/* t, kept for release by ag_grad_done. */
static inline Tensor *ag_grad_tmp(GradTemps *s, Tensor *t) {
    ag_grad_note(s, t);
    AG_ASSERT(s->n < AG_GRAD_TEMPS, "a graph_backward keeps at most AG_GRAD_TEMPS temporaries");
    if (t) s->held[s->n++] = t;
    return t;
}
/* t, a gradient handed to the engine (not released here). */
static inline Tensor *ag_grad_out(GradTemps *s, Tensor *t) {
    ag_grad_note(s, t);
    return t;
}
/* Releases the temporaries: 0, or -1 with the first failure's message. */
static inline int ag_grad_done(GradTemps *s) {
    for (int i = 0; i < s->n; i++) tensor_release(s->held[i]);
    if (!s->failed) return 0;
    ag_fail("%s", s->first_error);
    return -1;
}
/* A 0-d number like x's dtype's (a wrapped number: it never promotes). */
static inline Tensor *ag_grad_num(GradTemps *s, double v) {
    return ag_grad_tmp(s, tensor_number(v, AG_FLOAT64));
}
/* The first-order backward of an op written only as a graph_backward
 * (tanh_backward): runs graph (grad mode off unless creating a graph) and
 * hands its gradients to ag_accumulate_grad. An op's own backward function
 * calls it, so that each row keeps a backward of its own (the engine finds
 * a Function's row by it). */
void ag_apply_by_graph(Function *fn, void *ctx, Tensor *grad_output, GraphApplyFn graph);
/* A registered gradient hook (tensor_register_hook), one of a tensor's list. */
typedef struct AgHook {
    AgHookFn fn;
    void *ctx;
    void (*release)(void *ctx);
    int handle;
    struct AgHook *next;
} AgHook;
/* Hooks registered and not removed, on this thread: backward reads a
 * tensor's hooks only when there are some (its header's third line). */
extern _Thread_local int64_t ag_hooks_live;
/* Runs t's hooks on *grad (taken; replaced by their result). Returns 0,
 * or -1 (*grad released and NULL) when one failed. (autograd.c) */
int ag_run_hooks(const Tensor *t, Tensor **grad);
/* Releases a custom Function's client ctx (ops/custom.c; nothing for any
 * other Function): when its graph is freed. */
void ag_custom_release(Function *fn);
/* Whether input i of fn wants a gradient. */
static inline bool ag_grad_wanted(const Function *fn, int i) {
    return fn->inputs[i] && fn->inputs[i]->requires_grad;
}

/* ---- kernels shared by ops ---- */
/* The sum of n values at stride, as PyTorch sums a 1-D tensor (its order:
 * cascaded accumulators, the error growing like n^(1/4), and PyTorch's
 * bits). (ops/reduce.c) */
double ag_sum(const double *x, int64_t n, int64_t stride);
/* The same for float32 values: PyTorch's float sum, in float vectors of 8
 * with every addition rounded to float. */
double ag_sum_f32(const double *x, int64_t n, int64_t stride);
/* out = x (of shape) summed over the dims of mask (bit i: dim i), in x's
 * order with those dims kept at size 1: PyTorch's x.sum(dims, keepdim=True),
 * bit for bit; f32: x holds float32 values, summed as float32's are.
 * false (with a message) when a temporary cannot be allocated.
 * (ops/reduce.c) */
bool ag_sum_dims(const double *x, int ndim, const int64_t *shape, unsigned mask, double *out,
                 bool f32);
/* max and log(sum(exp(v - max))) of n values at stride s (the max taken
 * out first, so large values do not overflow); tmp, n values at the same
 * stride, receives exp(v - max); kind: which of PyTorch's kernels' lanes
 * it is (along the last axis, contiguous; along another, in a vector of
 * inner elements or in the scalar rest). (ops/nn.c: softmax; loss.c) */
/* y = sigmoid(x) for n values as PyTorch's sigmoid kernel computes them,
 * its scalar tail included (ops/unary.c; loss.c). y may be x. */
void ag_sigmoid_values(const double *x, double *y, int64_t n);
/* o[i] = x[i] ** e for i < n by PyTorch's pow_tensor_scalar kernels (exact
 * products and roots for e in {0, +-0.5, +-1, 2, 3, -2}, else SLEEF's pow on
 * whole vectors and libm's on the tail): x ** e with a one-element exponent,
 * and PyTorch's x.pow(e) in a backward formula. o must not be x.
 * (ops/binary.c; reduce.c) */
void ag_pow_scalar(const double *restrict x, double e, double *restrict o, int64_t n);
/* y = exp(x), log(x) on n values as PyTorch's whole-tensor kernels (SLEEF's
 * on every element where it is loaded; ops/vecmath.c). y may be x. */
void ag_exp_all(const double *x, double *y, int64_t n);
void ag_log_all(const double *x, double *y, int64_t n);
typedef enum { AG_LANE_LAST, AG_LANE_VEC, AG_LANE_SCALAR } AgLane;
void ag_lane_logsumexp(const double *v, int64_t n, int64_t s, AgLane kind, double *tmp,
                       double *max, double *lse);
/* exp(y[k]) for k < n as PyTorch's log_softmax backward has it in a lane
 * of that kind: SLEEF's, libm's in a scalar lane. (ops/nn.c; loss.c) */
void ag_lane_exp(const double *y, int64_t n, AgLane kind, double *out);
/* "[2, 3]": a shape as PyTorch's C++ messages write it (ag_shape_str is
 * Python's tuple). Returns buf. (tensor.c) */
char *ag_shape_list_str(int ndim, const int64_t *shape, char *buf, size_t size);
/* A new tensor of shape (ndim) holding zeros, with g's element k put at
 * offset off[k] (each within the shape), added (accumulate: twice put,
 * twice added) or copied: index's and select's gradient, recorded as the
 * hidden op index_scatter so that it can be differentiated (create_graph).
 * off is copied. (ops/index.c) */
Tensor *ag_index_scatter(Tensor *g, const int64_t *off, bool accumulate, int ndim,
                         const int64_t *shape);
/* Copies x broadcast to shape (ndim) into a new tensor (used by backward
 * kernels that need an operand in output shape space). */
Tensor *ag_broadcast_to(const Tensor *x, int ndim, const int64_t *shape);
/* out[M,N] = op(A)[M,K] @ op(B)[K,N] (+ out if accumulate); row-major with
 * leading dimensions; op transposes when the flag is set. (ops/matmul.c) */
void ag_gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
          const double *A, int64_t lda, const double *B, int64_t ldb,
          double *C, int64_t ldc, bool accumulate);
/* The same in float32's arithmetic (float sums; C's values floats), for
 * float32 operands. (ops/matmul.c) */
void ag_gemm_f32(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
                 const double *A, int64_t lda, const double *B, int64_t ldb,
                 double *C, int64_t ldc, bool accumulate);

/* ---- the graph snapshot (graphsnap.c), fed by backward (autograd.c) ---- */
/* Snapshots are on (ag_set_keep_graph). */
extern _Thread_local bool ag_snap_keeping;
/* What watches backward: one word, so that backward's hot paths test once
 * for the trace hook and the snapshot being taken together. (autograd.c) */
enum { AG_OBSERVE_TRACE = 1, AG_OBSERVE_SNAPSHOT = 2 };
extern _Thread_local unsigned ag_observers;
/* ys (n of them, alive with their graph): the walk, the values, the
 * Jacobians, before anything is applied. */
void ag_snap_begin(Tensor *const *ys, int n);
/* fn is applied next with grad_output (its node's gradient). */
void ag_snap_apply(const Function *fn, const Tensor *grad_output);
/* grad, in t's shape, goes into t from the Function being applied. */
void ag_snap_flow(const Tensor *t, const Tensor *grad);
/* The backward ends (ok: it succeeded): the staged leaves (a list through
 * staged_next) give the leaves' gradients, and the snapshot becomes the last. */
void ag_snap_end(bool ok, const Tensor *staged);
/* Bytes the last snapshot and the one being taken hold (the memory limit's):
 * read inline by every allocation. */
extern _Thread_local int64_t ag_snap_bytes;
/* Whether bytes more fit under the memory limit now. (tensor.c) */
bool ag_memory_allows(int64_t bytes);
/* fn's backward given seed (in its output's shape), by the op's recorded
 * backward with grad mode off: grads[i] (fn->num_inputs of them) get input
 * i's gradient in its shape, or NULL. -1 (every grads[i] NULL) for a custom
 * Function, an op without one, or a failure. Before fn is applied only.
 * (autograd.c) */
int ag_function_vjp(Function *fn, Tensor *seed, Tensor **grads);

#endif /* AG_INTERNAL_H */
