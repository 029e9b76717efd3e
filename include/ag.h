/*
 * ag.h — the public interface of the ag autograd engine.
 *
 * A reverse-mode autograd engine: refcounted tensors of five dtypes (their
 * elements stored as doubles), a bump arena for the graph's Functions,
 * dependency-counting backward, and accumulate_grad as the one place
 * gradients are summed (docs/engine.md). Tensors may share elements
 * (detach, x.data, the reshape family's views) and change in place, with
 * PyTorch's version counters; an in-place op on an intermediate is recorded
 * by ag_rebase_in_place; retain_graph keeps a graph for another backward.
 *
 * It is deliberately NOT: thread-shared (one graph per thread), strided
 * (a transpose copies), or able to record the graph of a gradient (no
 * create_graph yet).
 *
 * Ownership, in every declaration below:
 *   "new reference"  the caller owns the result and must tensor_release it;
 *   "borrowed"       the argument stays the caller's; the call retains what
 *                    it needs to keep.
 * On a user error (bad shape, bad axis, freed graph, allocation too large,
 * NULL argument) a call returns NULL or -1, changes nothing, and leaves a
 * message readable with ag_error().
 */
#ifndef AG_H
#define AG_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AG_VERSION "0.1.0"
#define AG_MAX_DIMS 8   /* dimensions a tensor may have */
#define AG_INLINE_INPUTS 3 /* inputs a Function holds in place (where has 3); more (cat) go in the arena */
#define AG_CHECKS_OUTPUT 0x80 /* Function.checks_versions: the backward reads the output */
#define AG_CHECKS_INPUTS 0x07 /* ... the bits of its (inline) inputs */
#define AG_FN_HAS_CTX 0x40    /* ... not a check: saved non-input data follows the Function */
#define AG_FN_FREED 0x20      /* ... not a check: a backward ran it and freed what it saved */

typedef struct Tensor Tensor;
typedef struct Function Function;

/* Element types (docs/engine.md, "dtypes"). Every tensor presents its
 * elements as doubles (tensor_values); the dtype says which values they
 * hold: a float32 tensor's are float32 values (each op's result rounded to
 * float32, as a float32 kernel would), an integer tensor's are integers, a
 * bool tensor's 0 and 1. A float32 tensor that an element-wise float32
 * kernel made may hold them as floats until something reads them
 * (packed, below): the kernels read and write half the bytes.
 * Ordered as PyTorch promotes them: the common type of two is the earlier
 * one, and float64, the default, is 0 (a zeroed header is float64). */
typedef enum AgDtype {
    AG_FLOAT64,
    AG_FLOAT32,
    AG_INT64,
    AG_INT32,
    AG_BOOL,
    AG_DTYPE_COUNT
} AgDtype;

/* The apply signature of the design: self is the Function, ctx its saved
 * non-input data, grad_output the gradient of self->output (borrowed). */
typedef void (*ApplyFn)(Function *self, void *ctx, Tensor *grad_output);
/* An op's backward written in recorded engine ops (create_graph): grads[i]
 * gets the gradient of input i (a new reference; left NULL for an input
 * that does not require grad), in input i's shape or broadcast to the
 * output's, made by tensor_* calls so that it has a graph of its own.
 * Returns 0, or -1 when a call failed (its message stands). */
typedef int (*GraphApplyFn)(Function *self, void *ctx, Tensor *grad_output, Tensor **grads);

/* Fields are readable by clients; write them only through the calls below. */
struct Tensor {
    /* numel doubles, 64-byte aligned: owned, or base's. Read and write
     * them through tensor_values(t), which unpacks a packed tensor first. */
    double *values;
    int64_t shape[AG_MAX_DIMS];
    int ndim;                    /* 0 for a scalar */
    /* A float32 tensor whose elements are, for now, numel floats at the
     * start of values' buffer (which has room for the doubles): made so by
     * the float32 element-wise kernels (ag_tensor_new_packed), never a view
     * or a base of one, and unpacked to doubles, in place and for good, by
     * the first tensor_values. Sits in ndim's padding with the flags below. */
    bool packed;
    bool wrapped_number;         /* a 0-d tensor standing for a client's number
                                    (tensor_number): promotion's lowest tier */
    bool retains_grad;           /* a non-leaf that keeps its .grad (tensor_retain_grad);
                                    both flags sit in ndim's padding, so that the fields
                                    backward reads stay in the header's first two lines */
    int64_t numel;
    bool requires_grad;          /* only a floating tensor may */
    uint8_t dtype;               /* an AgDtype: AG_FLOAT64 unless made otherwise */
    /* Shared data (docs/engine.md, "Shared data and version counters"): a
     * tensor made by tensor_detach or tensor_data shares base's elements
     * (base, below, retained: always a tensor that owns its data; NULL: it
     * owns them). Every in-place change bumps a version counter: base's
     * for a detached tensor (PyTorch's detach shares it), its own
     * otherwise. These sit in requires_grad's padding. */
    bool own_version;            /* with a base: counts its own versions (x.data) */
    bool parameter;              /* a client's mark (the shell's nn.Parameter); the engine
                                    neither reads nor copies it */
    uint32_t version;
    Tensor *grad;                /* leaf gradient, NULL until backward writes it */
    Function *grad_fn;           /* creator; valid only while tensor_has_graph() */
    const char *op_name;         /* creator's name ("MulBackward"), kept after the graph is freed */
    uint64_t graph_generation;   /* arena generation grad_fn belongs to */
    int ref_count;
    /* Backward's own: a leaf's incoming gradients summed while backward
     * runs, added to grad only when it finishes (NULL otherwise). */
    Tensor *staged_grad;
    Tensor *staged_next;
    Tensor *base;                /* the tensor whose elements these are, or NULL (above) */
    struct AgHook *hooks;        /* tensor_register_hook's, in order; NULL: none */
    /* A copy made where PyTorch makes a view (a transpose, x[:, 0]): the
     * tensor (its base, retained) whose elements PyTorch's view would share,
     * else NULL. An in-place write to the copy is refused while something
     * else holds that tensor, since in PyTorch the write would change it. */
    Tensor *copy_of;
    uint32_t copy_version;       /* copy_of's version when the copy was made */
    /* Backward's own, while hooks are live: the consumers a leaf waits for
     * in the run whose count stamped leaf_epoch (its hooks run when the
     * last is applied, as PyTorch's AccumulateGrad node runs). */
    int32_t leaf_pending;
    uint64_t leaf_epoch;
};

/* A recorded operation. Lives in the arena until backward (or ag_graph_free)
 * frees it; it retains its inputs until then. */
struct Function {
    ApplyFn apply;
    const char *name;                 /* "MulBackward" */
    Tensor *output;                   /* not retained; NULL if the output was freed */
    Tensor **inputs;                  /* every operand, retained (ENGINE.md): */
    Tensor *inline_inputs[AG_INLINE_INPUTS]; /* here, or in the arena for more */
    int num_inputs;
    int pending_count;                /* consumers not yet applied (invariant 1) */
    int release_output;               /* output references handed over by applied consumers */
    uint32_t seq;                     /* order of recording in its graph (ag_graph_mark) */
    Function *arena_next;             /* the arena's list of Functions, newest first */
    uint64_t visit_mark;              /* backward's reachability stamp */
    /* The versions of the inputs (the first AG_INLINE_INPUTS, their low 16
     * bits: the Function stays 96 bytes) when recorded, and the output's
     * (low 8 bits: 0 as it was new, or what an in-place op that moved the
     * Function to a written tensor left). Backward refuses to read one
     * changed since (PyTorch's "modified by an inplace operation"). */
    uint16_t saved_versions[AG_INLINE_INPUTS];
    uint8_t checks_versions;          /* what its backward reads: bit i input i, and
                                         AG_CHECKS_OUTPUT; AG_FN_HAS_CTX: saved non-input
                                         data follows the Function in the arena
                                         (ag_function_ctx): no pointer, so a Function
                                         stays 96 bytes */
    uint8_t output_version;           /* the output's version (low 8 bits) to check */
};

/* ---- errors ------------------------------------------------------------ */

/* The message of the last failed call on this thread ("" if none). */
const char *ag_error(void);
/* Clears the message. */
void ag_clear_error(void);

/* ---- tensors: creation and ownership (src/tensor.c) ---------------------- */

/* New leaf of the given shape, copying numel doubles from data (zeros if data
 * is NULL). New reference. */
Tensor *tensor_create(int ndim, const int64_t *shape, const double *data, bool requires_grad);
Tensor *tensor_scalar(double value); /* 0-d constant. New reference. */
/* A 0-d constant standing for a number of the client's language (the
 * shell's Python 2, 2.5, True: dtype int64, float64 or bool), which
 * promotion ranks below every tensor, as PyTorch's wrapped numbers: a
 * float32 tensor, even 0-d, times 2.5 is float32, an int64 tensor times
 * 2.5 the default dtype. New reference. */
Tensor *tensor_number(double value, AgDtype dtype);
Tensor *tensor_retain(Tensor *t);    /* returns t; NULL does nothing */
void tensor_release(Tensor *t);      /* NULL does nothing, like free(NULL) */

/* Sets t->grad to NULL (PyTorch's grad = None). */
void tensor_zero_grad(Tensor *t);
/* Sets a leaf's .grad to a copy of grad's values (NULL: None), as PyTorch's
 * x.grad = g. Fails (-1) on a non-leaf or a gradient of another shape. */
int tensor_set_grad(Tensor *t, const Tensor *grad);
/* PyTorch's t.retain_grad(): a non-leaf that requires grad keeps the
 * gradient backward computes for it in t->grad (summed over backwards, as a
 * leaf's), where intermediates otherwise keep none. Nothing to do for a
 * leaf; fails (-1) on a tensor that does not require grad. */
int tensor_retain_grad(Tensor *t);
/* Marks a leaf as requiring grad (or not). Fails (-1) on a non-leaf. */
int tensor_set_requires_grad(Tensor *t, bool requires_grad);
/* Makes t, a new leaf, take old's place as a variable: t requires grad as
 * old does and holds old's .grad (retained). Fails (-1) if t is not a leaf
 * or the shapes differ. Gradient descent (w -= lr * w.grad) and optimizer
 * steps use it: old is left as it was, so a graph that holds it is intact. */
int tensor_inherit(Tensor *t, const Tensor *old);
/* In-place write of numel doubles, bumping t's version. Fails (-1) if t
 * requires grad. */
int tensor_write(Tensor *t, const double *data);
/* t takes src's shape and elements (the same count and dtype), bumping
 * its version: PyTorch's squeeze_, unsqueeze_, t_ and transpose_, which
 * change a tensor's shape in place (a tensor sharing t's elements keeps
 * its own shape). Fails (-1) if t requires grad. */
int tensor_assign_reshaped(Tensor *t, const Tensor *src);
/* t's version counter: the in-place changes made to its elements through
 * it or through a tensor sharing its counter (PyTorch's x._version). */
uint32_t tensor_version(const Tensor *t);
/* Counts one more in-place change of t (its version + 1, as every in-place
 * write counts) with nothing written: for a client that makes one write of
 * what PyTorch does as two (x[1:] += v is += on the view x[1:], then the
 * copy back into it: two changes of x's version). */
void tensor_bump_version(Tensor *t);
/* Whether t is a copy made where PyTorch makes a view (t->copy_of) whose
 * source has changed in place since: PyTorch's view would show the change,
 * t does not (the shell refuses to read it). */
bool tensor_copy_is_stale(const Tensor *t);
/* PyTorch's Function.name() for a Function named op_name, into buf:
 * "MulBackward0" for its generated Functions (names ending in Backward),
 * "torch::autograd::CopySlices" (and CopyBackwards) for its hand-written
 * C++ ones, another name as it is (RsubBackward1). A client's custom
 * Function keeps its name: the caller tells those apart. */
const char *ag_function_pytorch_name(const char *op_name, char *buf, size_t size);
/* Writes value, broadcast to t's shape, into t's elements in place
 * (PyTorch's t.copy_(value)) and bumps t's version: every tensor sharing
 * t's data sees the new values. Refused (-1, with PyTorch's message where
 * PyTorch has one, nothing changed): with grad mode on, a t that requires
 * grad ("a leaf Variable that requires grad is being used in an in-place
 * operation."; an intermediate: record it with ag_rebase_in_place) or a
 * value that requires grad; a value that does not broadcast to t's shape
 * ("output with shape [3] doesn't match the broadcast shape [2, 3]"). */
int tensor_assign(Tensor *t, const Tensor *value);

/* PyTorch's recorded in-place op (h.add_(v), h *= w) on h, an intermediate
 * or a constant (c += x, x requiring grad: c becomes an intermediate):
 * r = op(h, ...) has just been recorded from h; h takes r's values (in
 * place, its version bumped) and r's Function, and the Functions recorded
 * since h's own (r's included) are given instead of h a new tensor that
 * holds h's place in the graph before the write (docs/engine.md,
 * "Recorded in-place ops"). r is left a constant with the same values.
 * Refused (-1, nothing changed): r's Function is not the newest, h is a
 * leaf that requires grad, a view or has a view in the graph, the shapes
 * differ. */
int ag_rebase_in_place(Tensor *h, Tensor *r);
bool tensor_is_leaf(const Tensor *t);   /* no recorded creator */
bool tensor_has_graph(const Tensor *t); /* its grad_fn is still in the arena */
/* "(2, 3)", "(3,)", "()" into buf; returns buf. */
char *tensor_shape_str(const Tensor *t, char *buf, size_t size);
char *ag_shape_str(int ndim, const int64_t *shape, char *buf, size_t size);
#define AG_SHAPE_STR_MAX (AG_MAX_DIMS * 21 + 4)

/* Constructors: new leaves (new reference). */
Tensor *tensor_zeros(int ndim, const int64_t *shape, bool requires_grad);
Tensor *tensor_ones(int ndim, const int64_t *shape, bool requires_grad);
Tensor *tensor_full(double value, int ndim, const int64_t *shape, bool requires_grad);
Tensor *tensor_randn(int ndim, const int64_t *shape, bool requires_grad); /* N(0, 1) */
Tensor *tensor_rand(int ndim, const int64_t *shape, bool requires_grad);  /* U[0, 1) */
Tensor *tensor_arange(double start, double stop, double step);           /* 1-D */
Tensor *tensor_eye(int64_t n);
Tensor *tensor_linspace(double start, double stop, int64_t n);
/* The same as dtype: float32's are PyTorch's float32 kernels' points (its
 * steps in float, or in double rounded), not float64's rounded; other
 * dtypes float64's, converted. */
Tensor *tensor_arange_as(double start, double stop, double step, AgDtype dtype);
Tensor *tensor_linspace_as(double start, double stop, int64_t n, AgDtype dtype);
/* A constant copy of t's values: a leaf that does not require grad. */
/* A new leaf that shares t's elements and version counter (PyTorch's
 * detach): an in-place change through either is seen by both, and a graph
 * that saved t refuses a backward after one. New reference. */
Tensor *tensor_detach(const Tensor *t);
/* PyTorch's t.detach_(): t itself cut from its graph, a leaf that does not
 * require grad. -1 with a message, t unchanged, when t stands for a view
 * (PyTorch refuses those) or a recorded op already used it (its gradient
 * would stop there in ag, where PyTorch's consumers keep their edge). */
int tensor_detach_in_place(Tensor *t);
/* The same with a version counter of its own (PyTorch's x.data): a change
 * through it is not seen by t's graphs. New reference. */
Tensor *tensor_data(const Tensor *t);

/* t's elements as doubles (t->values), unpacking a packed float32 tensor
 * in place first: every reader and writer of the elements goes through it.
 * Not safe to call on one packed tensor from two threads at once. */
double *tensor_unpack(const Tensor *t);
static inline double *tensor_values(const Tensor *t) {
    return t->packed ? tensor_unpack(t) : t->values;
}
/* A new leaf holding a copy of t's values. New reference. */
Tensor *tensor_copy(const Tensor *t);

/* ---- dtypes (src/dtype.c) ------------------------------------------------ */

/* "float64", "float32", "int64", "int32", "bool" (PyTorch's names, without
 * "torch."); NULL for a value that is no dtype. */
const char *ag_dtype_name(AgDtype dtype);
bool ag_dtype_is_floating(AgDtype dtype);
/* PyTorch's ScalarType name, for its messages: "Double", "Float", "Long",
 * "Int", "Bool". */
const char *ag_dtype_scalar_name(AgDtype dtype);
/* PyTorch's promote_types: the type a and b both convert to. */
AgDtype ag_promote_types(AgDtype a, AgDtype b);
/* PyTorch's result_type of n operands: the common type of those with
 * dimensions; a 0-d one counts only where its category (bool < integer <
 * floating) is higher, and a number (tensor_number) only where its
 * category is higher than both, a floating one as the default dtype. So
 * an int64 tensor times 2.5 is float64, a float32 tensor times a float64
 * 0-d tensor float32, an int32 tensor plus an int64 0-d tensor int32, and a
 * float32 0-d tensor times 2.5 float32. */
AgDtype ag_result_type(Tensor *const *operands, int n);
/* PyTorch's can_cast: whether an in-place op may write a result of type
 * from into a tensor of type to (no floating into integral, no other type
 * into bool): x += 1.5 on an int64 x may not. */
bool ag_can_cast(AgDtype from, AgDtype to);
/* The default floating type (torch.get_default_dtype): float64 unless set.
 * Only a floating type may be set (-1 otherwise). Per thread. */
AgDtype ag_default_dtype(void);
int ag_set_default_dtype(AgDtype dtype);
/* value as a tensor of dtype holds it: rounded to float32; truncated toward
 * zero for the integer types and wrapped to their width (nan, infinities
 * and values past int64: INT64_MIN, as x86's conversion gives); 1 or 0 for
 * bool (nonzero is true). An int64 beyond 2^53 is the double nearest it. */
double ag_dtype_convert(double value, AgDtype dtype);
/* x's values as dtype (PyTorch's x.to(dtype)): x itself (retained) when it
 * has that dtype; else a new tensor, recorded as ToCopyBackward (the
 * gradient converted back to x's type) when x requires grad and dtype is
 * floating. New reference. */
Tensor *tensor_to(Tensor *x, AgDtype dtype);
/* Converts the elements of t, a tensor the caller has just made, to dtype
 * in place, and sets its dtype (a creation function's dtype=). Refused (-1,
 * PyTorch's message) for a t that requires grad and a dtype that is not
 * floating. */
int tensor_set_dtype(Tensor *t, AgDtype dtype);

/* Random numbers (src/random.c): PyTorch's CPU generator, an mt19937 that
 * manual_seed seeds with the seed mod 2^32, and its samplers, so that a seed
 * gives PyTorch 1.13's numbers bit for bit, in the tensor's dtype: float64,
 * float32 (its own draws: 24-bit uniforms, the AVX2 normal from 16
 * elements), int64 and int32. Every function that takes a generator uses
 * the default one, one per thread, for NULL; a new thread's default starts
 * as if ag_seed(0) had been called (PyTorch's from a nondeterministic
 * seed). Indices (randperm, multinomial) are int64 tensors, as PyTorch's;
 * random_ keeps the tensor's dtype. */
typedef struct AgGenerator AgGenerator;
AgGenerator *ag_generator_new(void); /* seeded as torch.Generator(): 67280421310721 */
void ag_generator_free(AgGenerator *g);
/* torch.manual_seed / Generator.manual_seed: reseeds, and forgets the
 * cached normal sample. ag_seed(s) is ag_generator_manual_seed(NULL, s). */
void ag_generator_manual_seed(AgGenerator *g, uint64_t seed);
void ag_seed(uint64_t seed);
uint64_t ag_generator_initial_seed(AgGenerator *g); /* the last seed given */
uint32_t ag_generator_random(AgGenerator *g);       /* one 32-bit draw */
uint64_t ag_generator_random64(AgGenerator *g);     /* two, the first the high half */
/* torch.empty((), dtype=torch.int64).random_(generator=g).item():
 * random64 mod 2^63 (DataLoader's and RandomSampler's seeds). */
int64_t ag_generator_random_int64(AgGenerator *g);

/* In-place fills, as PyTorch's x.uniform_(from, to), normal_(mean, std),
 * random_(low, high) (randint's [low, high)), bernoulli_(p) and
 * exponential_(lambd), each drawing as PyTorch does for t's dtype. Fail
 * (-1) on a tensor that requires grad or on arguments PyTorch refuses:
 * uniform_, normal_ and exponential_ of an integral tensor, random_ bounds
 * past an int32's or a bool's range. */
int tensor_uniform_(Tensor *t, double from, double to, AgGenerator *g);
int tensor_normal_(Tensor *t, double mean, double std, AgGenerator *g);
int tensor_random_(Tensor *t, int64_t low, int64_t high, AgGenerator *g);
int tensor_bernoulli_(Tensor *t, double p, AgGenerator *g);
int tensor_exponential_(Tensor *t, double lambd, AgGenerator *g);
/* New constant tensors: torch.bernoulli(p) (each element 1 with its
 * probability, in p's dtype), torch.randperm(n), torch.multinomial(p, n,
 * replacement) (p 1-D or 2-D, one row of indices per row of p; a float32
 * p's sums in float32, as PyTorch's). tensor_rand and tensor_randn make
 * the default dtype. */
Tensor *tensor_bernoulli(const Tensor *p, AgGenerator *g);
Tensor *tensor_randperm(int64_t n, AgGenerator *g);
Tensor *tensor_multinomial(const Tensor *p, int64_t n, bool replacement, AgGenerator *g);

/* ---- operations (src/ops/) ----------------------------------------------
 * Each takes borrowed operands and returns a new reference. Binary ops
 * broadcast as NumPy does. An axis may be negative (counted from the end).
 */
Tensor *tensor_add(Tensor *a, Tensor *b);
Tensor *tensor_sub(Tensor *a, Tensor *b);
/* a + alpha * b and a - alpha * b (PyTorch's add and sub with alpha), each
 * element rounded once: fma(b, alpha, a), fma(b, -alpha, a), as PyTorch's
 * CPU kernel; alpha 1 is tensor_add and tensor_sub. */
Tensor *tensor_add_scaled(Tensor *a, Tensor *b, double alpha);
Tensor *tensor_sub_scaled(Tensor *a, Tensor *b, double alpha);
Tensor *tensor_mul(Tensor *a, Tensor *b);
Tensor *tensor_div(Tensor *a, Tensor *b);
Tensor *tensor_pow(Tensor *a, Tensor *b);
Tensor *tensor_neg(Tensor *x);
Tensor *tensor_reciprocal(Tensor *x); /* 1 / x */
Tensor *tensor_exp(Tensor *x);
Tensor *tensor_log(Tensor *x);
Tensor *tensor_log10(Tensor *x); /* base 10: dx = g / (x ln 10) */
Tensor *tensor_log2(Tensor *x);  /* base 2: dx = g / (x ln 2) */
Tensor *tensor_sqrt(Tensor *x);
Tensor *tensor_tanh(Tensor *x);
Tensor *tensor_sigmoid(Tensor *x);
Tensor *tensor_relu(Tensor *x);
Tensor *tensor_abs(Tensor *x);
Tensor *tensor_clone(Tensor *x); /* a copy, recorded (CloneBackward) */
Tensor *tensor_sinh(Tensor *x);
Tensor *tensor_cosh(Tensor *x);
Tensor *tensor_sin(Tensor *x);
Tensor *tensor_cos(Tensor *x);
Tensor *tensor_tan(Tensor *x);
Tensor *tensor_atan(Tensor *x);
Tensor *tensor_asin(Tensor *x);
Tensor *tensor_acos(Tensor *x);
Tensor *tensor_erf(Tensor *x);
Tensor *tensor_log1p(Tensor *x);  /* log(1 + x), exact near 0 */
Tensor *tensor_expm1(Tensor *x);  /* exp(x) - 1, exact near 0 */
Tensor *tensor_rsqrt(Tensor *x);  /* 1 / sqrt(x) */
Tensor *tensor_sign(Tensor *x);                /* gradient 0 */
Tensor *tensor_round(Tensor *x);               /* halves to even; gradient 0 */
Tensor *tensor_floor(Tensor *x);               /* gradient 0 */
Tensor *tensor_ceil(Tensor *x);                /* gradient 0 */
Tensor *tensor_trunc(Tensor *x);               /* toward 0; gradient 0 */
/* g * (1 - y^2), 1 - y*y rounded once: tanh's gradient at y = tanh(x), an op
 * of its own so that it can be differentiated again (PyTorch's tanh_backward). */
Tensor *tensor_tanh_backward(Tensor *g, Tensor *y);
/* g where y > 0 (or y is nan), else 0: relu's gradient at its output y, an op of
 * its own so that it depends on y (PyTorch's threshold_backward). */
Tensor *tensor_threshold_backward(Tensor *g, Tensor *y);
/* leaky_relu's and relu6's gradients at their input x, ops of their own so
 * that the gradient depends on x (hidden, as threshold_backward). */
Tensor *tensor_leaky_relu_backward(Tensor *g, Tensor *x, double negative_slope);
Tensor *tensor_hardtanh_backward(Tensor *g, Tensor *x);
/* a * log(b), 0 where a is 0 (nan where b is nan): PyTorch's xlogy, hidden (kl_div's
 * gradient takes log(target) from it). */
Tensor *tensor_xlogy(Tensor *a, Tensor *b);

/* Selection, broadcasting (select.c): PyTorch's values at nan, ties and
 * bounds, and gradients that select g (an operand not chosen gets 0).
 * clamp: min or max may be NULL (not both): min(max(x, min), max), nan
 * where a bound is nan. where: a where condition != 0, else b; condition
 * gets no gradient. maximum, minimum: nan if either is; a tie sends g / 2
 * to each. */
Tensor *tensor_clamp(Tensor *x, Tensor *min, Tensor *max);
Tensor *tensor_where(Tensor *condition, Tensor *a, Tensor *b);
Tensor *tensor_maximum(Tensor *a, Tensor *b);
Tensor *tensor_minimum(Tensor *a, Tensor *b);
/* Activations (activation.c): torch.nn.functional's, with its definitions
 * (PyTorch's defaults: negative_slope 0.01, alpha 1, beta 1, threshold 20). */
Tensor *tensor_leaky_relu(Tensor *x, double negative_slope);
Tensor *tensor_elu(Tensor *x, double alpha);
Tensor *tensor_gelu(Tensor *x);                /* exact: x * Phi(x) */
Tensor *tensor_gelu_tanh(Tensor *x);           /* gelu(x, approximate='tanh') */
Tensor *tensor_silu(Tensor *x);
Tensor *tensor_relu6(Tensor *x);
Tensor *tensor_hardsigmoid(Tensor *x);
Tensor *tensor_hardswish(Tensor *x);
Tensor *tensor_softplus(Tensor *x, double beta, double threshold);
/* The gradients g * f'(x) of elu, gelu, silu and softplus, with the
 * activation's numbers, as ops of their own so that they can be
 * differentiated again (PyTorch's elu_backward, gelu_backward, ...): the
 * first-order kernels' bits. g and x have one shape. */
Tensor *tensor_elu_backward(Tensor *g, Tensor *x, double alpha);
Tensor *tensor_gelu_backward(Tensor *g, Tensor *x, bool tanh_form);
Tensor *tensor_silu_backward(Tensor *g, Tensor *x);
Tensor *tensor_softplus_backward(Tensor *g, Tensor *x, double beta, double threshold);

/* Reductions over a set of dimensions, PyTorch 1.13's: dims holds ndims
 * distinct axes (negative ones counted from the end); ndims == 0 (dims may
 * then be NULL) reduces over every axis, as PyTorch's dim=None and dim=().
 * keepdim keeps each reduced axis with size 1; without it they are removed.
 * A 0-d x takes dim 0 or -1. Sums are in PyTorch's order, with its bits. */
Tensor *tensor_sum_dims(Tensor *x, const int64_t *dims, int ndims, bool keepdim);
/* sum / n: nan over no elements */
Tensor *tensor_mean_dims(Tensor *x, const int64_t *dims, int ndims, bool keepdim);
/* sum((x - mean)^2) / (n - 1), or / n when !unbiased; nan where n - 1 <= 0 */
Tensor *tensor_var_dims(Tensor *x, const int64_t *dims, int ndims, bool unbiased, bool keepdim);
Tensor *tensor_std_dims(Tensor *x, const int64_t *dims, int ndims, bool unbiased, bool keepdim);
/* The vector p-norm (sum |x|^p)^(1/p): p = inf / -inf the largest /
 * smallest |x|, p = 0 the count of non-zeros; 0 over no elements. */
Tensor *tensor_norm_dims(Tensor *x, double p, const int64_t *dims, int ndims, bool keepdim);
/* log(sum(exp(x))), with the maximum subtracted first; -inf over nothing */
Tensor *tensor_logsumexp_dims(Tensor *x, const int64_t *dims, int ndims, bool keepdim);
/* The version 1 forms: over everything (0-d), or over one axis (removed). */
Tensor *tensor_sum(Tensor *x);
/* The product of all elements (0-d), or along dim; PyTorch's order and
 * gradient (zeros included). */
Tensor *tensor_prod(Tensor *x);
Tensor *tensor_prod_dim(Tensor *x, int dim, bool keepdim);
Tensor *tensor_sum_axis(Tensor *x, int axis);
Tensor *tensor_mean(Tensor *x);
Tensor *tensor_mean_axis(Tensor *x, int axis);

/* max and min over everything (0-d; the gradient is shared equally by the
 * tied extremes, or by the nans when the result is nan) or along one dim
 * (the gradient to the first extreme of each lane: PyTorch's index). The
 * values only: argmax and argmin give the indices. A nan is the extreme.
 * An empty tensor, or an empty dim, is an error (there is no extreme). */
Tensor *tensor_max(Tensor *x);
Tensor *tensor_max_dim(Tensor *x, int dim, bool keepdim);
Tensor *tensor_max_axis(Tensor *x, int axis);  /* tensor_max_dim(x, axis, false) */
Tensor *tensor_min(Tensor *x);
Tensor *tensor_min_dim(Tensor *x, int dim, bool keepdim);
Tensor *tensor_min_axis(Tensor *x, int axis);
/* The index of the first extreme (the first nan), as float64 constants
 * (no gradient): of x flattened (0-d), or along dim. */
Tensor *tensor_argmax(Tensor *x);
Tensor *tensor_argmax_dim(Tensor *x, int dim, bool keepdim);
Tensor *tensor_argmin(Tensor *x);
Tensor *tensor_argmin_dim(Tensor *x, int dim, bool keepdim);

/* Shapes. Copies: there are no views. Dims may be negative. */
/* One entry of shape may be -1 (inferred). */
Tensor *tensor_reshape(Tensor *x, int ndim, const int64_t *shape);
Tensor *tensor_view(Tensor *x, int ndim, const int64_t *shape); /* reshape, named ViewBackward */
/* x broadcast to sizes (PyTorch's x.expand(*sizes): -1 keeps x's size, new
 * dims lead); a copy. Its gradient is g summed back to x's shape. */
Tensor *tensor_expand(Tensor *x, int ndim, const int64_t *sizes);
/* dims start_dim..end_dim merged into one; a 0-d x becomes (1,) */
Tensor *tensor_flatten(Tensor *x, int start_dim, int end_dim);
Tensor *tensor_squeeze(Tensor *x);             /* every dim of size 1 removed */
Tensor *tensor_squeeze_dim(Tensor *x, int dim); /* that dim, if its size is 1 */
Tensor *tensor_unsqueeze(Tensor *x, int dim);  /* a dim of size 1 inserted at dim */
Tensor *tensor_transpose(Tensor *x, int axis_a, int axis_b);
/* out's axis i is x's axis dims[i]; ndims == x->ndim, each axis once */
Tensor *tensor_permute(Tensor *x, const int64_t *dims, int ndims);
/* A matrix transposed; 0-d and 1-D as they are; more dims are an error. */
Tensor *tensor_t(Tensor *x);
/* 1-D and 2-D operands by PyTorch's rules; batched (broadcast) beyond. */
Tensor *tensor_matmul(Tensor *a, Tensor *b);
/* matmul for two vectors, a matrix and a vector, two matrices (PyTorch's
 * dot, mv, mm: any other ranks are an error). */
Tensor *tensor_dot(Tensor *a, Tensor *b);
Tensor *tensor_mv(Tensor *a, Tensor *b);
Tensor *tensor_mm(Tensor *a, Tensor *b);
/* matmul's gradients as ops of their own, so that they can be
 * differentiated again (create_graph), with the first-order kernels' bits.
 * For a of shape a_shape and b, or a and b of shape b_shape, and g of
 * a @ b's shape: g @ b^T in a's shape and a^T @ g in b's, each product of
 * a batch summed into the matrix of the operand it read (a 1-D operand
 * promoted, as matmul). */
Tensor *tensor_matmul_nt(Tensor *g, Tensor *b, int a_ndim, const int64_t *a_shape);
Tensor *tensor_matmul_tn(Tensor *a, Tensor *g, int b_ndim, const int64_t *b_shape);
/* x @ w^T + b (PyTorch's F.linear, nn.Linear's layer): x (*, K), w (N, K),
 * b (N,) or NULL; the result (*, N). */
Tensor *tensor_linear(Tensor *x, Tensor *w, Tensor *b);
/* The layers that are compositions of recorded ops (src/ops/layers.c):
 * PyTorch's F.dropout: in training, each element kept with probability
 * 1 - p (the mask is PyTorch's, from g or the default stream: bernoulli_
 * then / (1 - p)) and scaled by 1 / (1 - p); not training or p = 0, x
 * itself (a new reference); p = 1, zeros. */
Tensor *tensor_dropout(Tensor *x, double p, bool training, AgGenerator *g);
/* PyTorch's F.batch_norm over (N, C) or (N, C, L): in training (or with no
 * running statistics) the batch's mean and biased variance per channel,
 * and the running ones (when given) updated in place, momentum-weighted,
 * with the unbiased variance; otherwise the running ones. Then
 * (x - mean) / sqrt(var + eps) * weight + bias (weight, bias: (C,) or NULL). */
Tensor *tensor_batch_norm(Tensor *x, Tensor *running_mean, Tensor *running_var, Tensor *weight,
                          Tensor *bias, bool training, double momentum, double eps);
/* Layer normalisation over x's last nd dims (shape, nd of them): (x - mean)
 * / sqrt(var + eps) (the biased variance), then * weight + bias (each of
 * that shape, or NULL); recorded ops, the result named NativeLayerNormBackward. */
Tensor *tensor_layer_norm(Tensor *x, int nd, const int64_t *shape, Tensor *weight, Tensor *bias,
                          double eps);
/* What computes this thread's large matrix products: "ag's own kernel
 * (AVX-512, 8x24)", or "OpenBLAS (Haswell)" (OpenBLAS's name for the CPU)
 * where OpenBLAS is faster and can be loaded; AG_BLAS=own or
 * AG_BLAS=openblas in the environment overrides the choice (see
 * docs/performance.md). The string stays valid for the thread's life. */
const char *ag_blas_name(void);

Tensor *tensor_softmax(Tensor *x, int axis);
Tensor *tensor_log_softmax(Tensor *x, int axis);
/* Their gradients at y = softmax(x) (log_softmax(x)) along axis, for g of
 * y's shape: (g - sum(g * y)) * y and g - exp(y) * sum(g), the first-order
 * kernels' bits, as ops of their own so that they can be differentiated
 * again (PyTorch's _softmax_backward_data, _log_softmax_backward_data).
 * New reference. */
Tensor *tensor_softmax_backward(Tensor *g, Tensor *y, int axis);
Tensor *tensor_log_softmax_backward(Tensor *g, Tensor *y, int axis);

/* Running sums and products along dim, each lane in order (PyTorch's CPU
 * kernel's values); an integral or bool x gives int64. */
Tensor *tensor_cumsum(Tensor *x, int64_t dim);
Tensor *tensor_cumprod(Tensor *x, int64_t dim);
/* Their gradient kernels as ops of their own, so that they can be
 * differentiated again: the reversed cumsum of g along dim, and cumprod's
 * gradient g (x's shape) at x. */
Tensor *tensor_cumsum_backward(Tensor *g, int64_t dim);
Tensor *tensor_cumprod_backward(Tensor *g, Tensor *x, int64_t dim);

/* Comparisons: 1. where true, 0. where false; constants (no gradient flows
 * through a comparison). Broadcasting. */
Tensor *tensor_eq(Tensor *a, Tensor *b);
Tensor *tensor_ne(Tensor *a, Tensor *b);
Tensor *tensor_lt(Tensor *a, Tensor *b);
Tensor *tensor_le(Tensor *a, Tensor *b);
Tensor *tensor_gt(Tensor *a, Tensor *b);
Tensor *tensor_ge(Tensor *a, Tensor *b);
/* Python's floor division (a constant: PyTorch cannot differentiate it) and
 * remainder (the divisor's sign; grad_b = -g * floor(a / b)). Broadcasting. */
Tensor *tensor_floor_divide(Tensor *a, Tensor *b);
Tensor *tensor_remainder(Tensor *a, Tensor *b);
/* Bitwise and, or, xor and not of integer or bool tensors (logical ones of
 * bool tensors: PyTorch's &, |, ^ and ~), refused for floating ones as
 * PyTorch refuses them; and the logical ones of any tensors (nonzero is
 * true), bool results. Constants. Broadcasting. */
Tensor *tensor_bitwise_and(Tensor *a, Tensor *b);
Tensor *tensor_bitwise_or(Tensor *a, Tensor *b);
Tensor *tensor_bitwise_xor(Tensor *a, Tensor *b);
Tensor *tensor_bitwise_not(Tensor *x);
Tensor *tensor_logical_and(Tensor *a, Tensor *b);
Tensor *tensor_logical_or(Tensor *a, Tensor *b);
Tensor *tensor_logical_xor(Tensor *a, Tensor *b);
Tensor *tensor_logical_not(Tensor *x);
/* The same on two numbers, for the shell's arithmetic on numbers. */
double ag_floor_divide(double a, double b);
double ag_remainder(double a, double b);
/* x[index] along dim (the dimension removed; a negative index counts from
 * the end). A copy; the gradient goes back to the selected elements. */
Tensor *tensor_select(Tensor *x, int dim, int64_t index);
/* x[items]: NumPy's and PyTorch's indexing. An item is an integer (the
 * axis removed; negative counts from the end), a slice (Python's
 * start:stop:step, clamped; a negative step walks backwards), None (a new
 * axis of 1), a tensor of integer positions, or a mask (a tensor of 0 and 1
 * over as many axes as it has). Tensors (and integers among them)
 * broadcast together into one block of axes, where they stand when they
 * are adjacent, else first. The gradient goes back to the indexed
 * elements, added where one is taken twice. A view of x's elements (sharing
 * them and x's version counter, as PyTorch's basic indexing) where they are
 * one contiguous run (x[1], x[0, 2:4], x[1:3]: no tensor, mask or step
 * other than 1 across rows) and x does not require grad or grad mode is
 * off; else a copy (x[:, 0], x[::2], x[mask], and every x[...] of a tensor
 * being differentiated: PyTorch's are views there too). */
typedef enum { AG_INDEX_INT, AG_INDEX_SLICE, AG_INDEX_NEWAXIS, AG_INDEX_TENSOR, AG_INDEX_MASK } AgIndexKind;
typedef struct {
    AgIndexKind kind;
    int64_t index;                /* INT */
    int64_t start, stop, step;    /* SLICE (step not 0) */
    bool has_start, has_stop;     /* SLICE: false for an omitted part */
    const Tensor *tensor;         /* TENSOR, MASK */
} AgIndex;
Tensor *tensor_index(Tensor *x, const AgIndex *items, int n);
/* x[items] always as a new tensor (tensor_index may return a view): what
 * x[i] op= v reads before it writes. */
Tensor *tensor_index_copy(Tensor *x, const AgIndex *items, int n);
/* A copy of x with the elements x[items] replaced by values (broadcast to
 * their shape, leading 1s beyond it dropped; where one is indexed twice,
 * the last write stays). Recorded when x or values requires grad
 * (PyTorch's CopySlices, or IndexPutBackward with a tensor or a mask among
 * the items): grad_x is g with 0 at the written elements, grad_values g
 * at them summed to values' shape. x[items] = v in place on a tensor of a
 * graph is this op, then ag_rebase_in_place(x, result). */
Tensor *tensor_index_put(Tensor *x, const AgIndex *items, int n, Tensor *values);
/* n tensors of one shape joined along a new dimension dim. A copy. */
Tensor *tensor_stack(Tensor *const *xs, int n, int dim);
/* n tensors (borrowed) joined along dim, where their sizes may differ; the
 * other sizes must agree. As PyTorch, 1-D tensors of shape (0,) are
 * skipped, and 0-d ones are refused. A copy. */
Tensor *tensor_cat(Tensor *const *xs, int n, int dim);

/* ---- losses (src/ops/loss.c) ----------------------------------------------
 * PyTorch 1.13's torch.nn.functional losses: its definitions, defaults and
 * gradients, and its argument order without the deprecated size_average
 * and reduce. Each is one node of the graph. reduction: the mean (0-d; nan
 * over no elements) or the sum (0-d; 0 over none) of the element losses,
 * or the element losses themselves; AG_REDUCTION_BATCHMEAN (kl_div only)
 * divides the sum by input's first size. Input and target broadcast where
 * PyTorch broadcasts them. Weights are constants: one that requires grad
 * is refused, as PyTorch refuses it. Operands are borrowed; results are
 * new references.
 */
typedef enum {
    AG_REDUCTION_MEAN,
    AG_REDUCTION_SUM,
    AG_REDUCTION_NONE,
    AG_REDUCTION_BATCHMEAN,
} AgReduction;

/* (x - t)^2 */
Tensor *tensor_mse_loss(Tensor *input, Tensor *target, AgReduction reduction);
Tensor *tensor_mse(Tensor *pred, Tensor *target); /* tensor_mse_loss, mean */
/* |x - t| */
Tensor *tensor_l1_loss(Tensor *input, Tensor *target, AgReduction reduction);
/* |x - t| < beta ? 0.5 (x - t)^2 / beta : |x - t| - 0.5 beta; beta >= 0 */
Tensor *tensor_smooth_l1_loss(Tensor *input, Tensor *target, AgReduction reduction,
                              double beta);
/* |x - t| < delta ? 0.5 (x - t)^2 : delta (|x - t| - 0.5 delta); delta > 0 */
Tensor *tensor_huber_loss(Tensor *input, Tensor *target, AgReduction reduction, double delta);
/* -w (t log(x) + (1 - t) log(1 - x)), each log at least -100; input in
 * [0, 1] and of target's shape; weight NULL or broadcasting to it */
Tensor *tensor_binary_cross_entropy(Tensor *input, Tensor *target, Tensor *weight,
                                    AgReduction reduction);
/* binary_cross_entropy of sigmoid(x), computed stably from the logits x;
 * pos_weight weighs the positive term; both NULL or broadcasting to x */
Tensor *tensor_binary_cross_entropy_with_logits(Tensor *input, Tensor *target, Tensor *weight,
                                                AgReduction reduction, Tensor *pos_weight);
/* -input[classes] along dimension 1: input (N, C) with classes (N,),
 * (N, C, d1, ...) with (N, d1, ...), or (C,) with (); classes hold
 * integers in [0, C) and must not require grad */
Tensor *tensor_nll_loss(Tensor *input, Tensor *classes, AgReduction reduction);
/* nll_loss of log_softmax(input) along dimension 1 (0 for a 1-D input) */
Tensor *tensor_cross_entropy_loss(Tensor *input, Tensor *classes, AgReduction reduction);
Tensor *tensor_cross_entropy(Tensor *logits, Tensor *classes); /* ..._loss, mean */
/* cross_entropy's gradient of input for the loss's gradient grad (0-d, or
 * the classes' shape for 'none'): (g / n) (softmax(input) - onehot(classes))
 * along dimension 1, the first-order kernel's bits; hidden, an op so that
 * the gradient can be differentiated again. */
Tensor *tensor_cross_entropy_backward(Tensor *grad, Tensor *input, Tensor *classes,
                                      AgReduction reduction);
/* ||v||_p along v's last dimension (1-d or more), as triplet_margin_loss's
 * distances compute it (p = 2: one fused sum in order); hidden, so that
 * the loss's gradient can be differentiated again. */
Tensor *tensor_row_norm(Tensor *v, double p);
/* row_norm's gradient: grad (v's shape without its last dimension) times
 * d||v||_p / dv, norm holding row_norm(v, p) (PyTorch's norm_backward);
 * hidden, differentiable. */
Tensor *tensor_row_norm_backward(Tensor *v, Tensor *norm, Tensor *grad, double p);
/* t (log(t) - x), or exp(t) (t - x) with log_target; 'mean' is the mean
 * over every element (PyTorch 1.13's), 'batchmean' KL divergence's */
Tensor *tensor_kl_div(Tensor *input, Tensor *target, AgReduction reduction, bool log_target);
/* (t != 1 ? max(0, margin - x) : 0) + (t != -1 ? x : 0) */
Tensor *tensor_hinge_embedding_loss(Tensor *input, Tensor *target, double margin,
                                    AgReduction reduction);
/* Rows a, b (N, D) with targets (N,), or vectors (D,) with (): 1 - cos(a, b)
 * where the target is 1, max(0, cos(a, b) - margin) where it is -1, else 0 */
Tensor *tensor_cosine_embedding_loss(Tensor *input1, Tensor *input2, Tensor *target,
                                     double margin, AgReduction reduction);
/* max(0, margin + d(a, p) - d(a, n)) per row (the last dimension),
 * d(u, v) = ||u - v + eps||_p (p > 0, or INFINITY); with swap, d(a, n) is
 * min(d(a, n), d(p, n)) */
Tensor *tensor_triplet_margin_loss(Tensor *anchor, Tensor *positive, Tensor *negative,
                                   double margin, double p, double eps, bool swap,
                                   AgReduction reduction);


/* How an op's result type follows from its operands' (PyTorch's rules;
 * src/dtype.c applies them to every op's result). */
typedef enum AgDtypeRule {
    /* float64 operands give float64 under these (with the default float64) */
    AG_DTYPE_PROMOTE,   /* their result_type (add, relu, reshape, cat) */
    AG_DTYPE_FLOATING,  /* the same, or the default dtype where it is integral (div, exp) */
    AG_DTYPE_BROADCAST, /* FLOATING of the operands as broadcast: a 0-d one beside one with
                           dimensions counts as having them (mse_loss broadcasts first) */
    AG_DTYPE_FLOAT_ONLY,/* the first operand's, which must be floating (mean) */
    AG_DTYPE_SUM,       /* int64 for an integral or bool operand, else its own (sum) */
    AG_DTYPE_FIRST,     /* the first operand's: the others are indices or targets (nll_loss) */
    AG_DTYPE_NOT_FIRST, /* the result_type of all but the first, a condition (where) */
    AG_DTYPE_TARGET,    /* the second's where it is floating, else FLOATING's: PyTorch's
                           (1 - target).mul_(input) (binary_cross_entropy_with_logits) */
    AG_DTYPE_SAME,      /* the operands' one type: PyTorch refuses two (matmul) */
    AG_DTYPE_OWN,       /* set by the op itself (to) */
    /* these make another type, or refuse float64, whatever the operands */
    AG_DTYPE_BOOL,      /* bool (the comparisons) */
    AG_DTYPE_INDEX,     /* int64 (argmax) */
    AG_DTYPE_INTEGRAL,  /* their result_type, integral or bool: PyTorch has no float kernel (&) */
} AgDtypeRule;

/* ---- the op table (src/ops/optable.c) -----------------------------------
 * Every op is registered once, in one table: its name, signature (the
 * shell's, with keywords and defaults as Python writes them), the kinds of
 * its parameters, its derivative rule (NULL: not differentiable), the name
 * of its Function, its forward and its backward. A shell builds its
 * builtins, help and completion from the table.
 */

/* An op's arguments, as a caller with named, defaulted values (the shell)
 * hands them over: by kind, each kind in the signature's order. */
typedef struct {
    Tensor *t[4];                /* tensor parameters ('T', 't'; NULL for None) */
    Tensor *const *list;         /* a list of tensors ('L': cat, stack) */
    int list_len;
    double num[4];               /* number parameters ('n') */
    bool has_num[4];             /* false: None */
    int64_t ints[4];             /* integer parameters ('i'; a dim within int) */
    bool has_int[4];             /* false: None */
    int64_t dims[AG_MAX_DIMS];   /* 'd' (None, a dim or a tuple of them), 'D' (*shape), 'P' (*dims) */
    int num_dims;
    bool has_dims;               /* 'd' given (not None) */
    bool flags[4];               /* boolean parameters ('b') */
    const char *str;             /* a string parameter ('s': reduction) */
    size_t str_len;
} AgOpArgs;

enum {
    AG_OP_METHOD = 1 << 0,      /* x.f(...) means f(x, ...) */
    /* 1 << 1 and 1 << 2 marked boolean results before dtypes (dtype_rule) */
    AG_OP_HIDDEN = 1 << 3,      /* no builtin of its own (indexing is syntax) */
    AG_OP_SAVES_NOTHING = 1 << 4, /* its backward reads no operand and not its result
                                     (add, sum, reshape): later in-place changes are harmless */
    AG_OP_SAVES_READS = 1 << 5, /* its backward reads only the operands grad_reads names for
                                   the operands that require grad, and not its result */
};

typedef struct AgOpInfo {
    int id;                      /* its place in the table */
    const char *name;            /* "exp": the builtin a shell makes of it */
    const char *alias;           /* a second name ("mse" for mse_loss), or NULL */
    const char *signature;       /* "sum(input, dim=None, keepdim=False)" */
    /* One letter per parameter of the signature: T tensor, t tensor or
     * None, n number or None, i integer or None, d dims (None, an integer
     * or a tuple of them), D integers (*shape), P axes (*dims: integers,
     * negative ones allowed, or one tuple of them), b boolean, s string,
     * L a list of tensors. */
    const char *params;
    const char *help;            /* what it does, in one line */
    const char *rule;            /* "grad_x = g * exp(x)"; NULL: no gradient flows */
    const char *backward_name;   /* "ExpBackward" */
    /* forward: unary or binary when its parameters are T or TT, else call */
    Tensor *(*unary)(Tensor *x);
    Tensor *(*binary)(Tensor *a, Tensor *b);
    Tensor *(*call)(const AgOpArgs *args);
    ApplyFn backward;
    /* The same backward as recorded ops, for create_graph (and so for
     * gradients of gradients); NULL: not yet written for this op, and a
     * create_graph backward through it is refused by name. */
    GraphApplyFn graph_backward;
    unsigned flags;              /* AG_OP_METHOD, ... */
    unsigned char dtype_rule;    /* an AgDtypeRule: the dtype of its result */
    /* With AG_OP_SAVES_READS: bit k of grad_reads[j] is set when operand j's
     * gradient reads operand k (mul: {2, 1}, each reads the other). Only
     * those an operand requiring grad reads are checked for in-place
     * changes, as PyTorch saves only them. */
    unsigned char grad_reads[AG_INLINE_INPUTS];
} AgOpInfo;

/* The table: ag_op_count() rows, in a fixed order. */
int ag_op_count(void);
const AgOpInfo *ag_op_at(int i);
/* The op named (or aliased) so, or NULL. */
const AgOpInfo *ag_op_find(const char *name);
/* "mul: grad_a = g * b, grad_b = g * a": an op's derivative rule with its
 * name, by name; NULL for an op without one or any other name. */
const char *ag_op_rule(const char *name);

/* ---- autograd (src/autograd.c) ------------------------------------------ */

/* Differentiates a one-element loss: leaf gradients accumulate into ->grad
 * (grad = old + new, once the whole graph has been differentiated), then
 * the arena (every graph built since the last backward) is freed.
 * Returns 0, or -1 with a message:
 *   - a user error (non-scalar loss, no graph, graph already freed) changes
 *     nothing;
 *   - out of memory (the limit, or malloc failing) or an interrupt (see
 *     ag_set_interrupt_flag) while differentiating frees the arena as a
 *     finished backward does, but every leaf's ->grad is as before the
 *     call (the same tensor, the same values). */
int backward(Tensor *loss);
/* The vector-Jacobian product: differentiates y (any shape) as if the loss
 * were sum(y * grad), so each leaf's ->grad accumulates grad's product with
 * y's Jacobian (PyTorch's y.backward(grad)). grad is borrowed, of y's
 * shape; only its values are used (it may require grad: it is taken as a
 * constant, and no leaf's gradient is ever grad itself). grad NULL means
 * ones, for a one-element y: backward(loss) is tensor_backward(loss, NULL).
 * Returns 0 or -1 as backward does; a grad of another shape, or none for a
 * y of several elements, is a user error naming the shapes. */
int tensor_backward(Tensor *y, Tensor *grad);
/* How a backward treats its graph (ag_backward's and ag_grad's graph_flags). */
enum {
    /* The graph stays (nothing is released, the arena is not freed), so
     * another backward can run through it and accumulates again, as
     * PyTorch's; the next backward that does not retain frees the arena
     * (every graph built since the last free) as usual. */
    AG_RETAIN_GRAPH = 1 << 0,
    /* PyTorch's create_graph=True: every Function's gradient is computed
     * by its op's graph_backward in recorded ops, so the gradients have
     * graphs of their own and can be differentiated again (to any order).
     * Implies AG_RETAIN_GRAPH (PyTorch's default retain_graph=create_graph;
     * ag keeps the graph even when told not to: the new graphs live in the
     * same arena). A seed (grads[i]) that requires grad is differentiable
     * too. A Function whose op has no graph_backward is refused by name
     * before any gradient changes. Slower than the first-order kernels,
     * which the same backward without this flag runs. */
    AG_CREATE_GRAPH = 1 << 1,
};
/* PyTorch's torch.autograd.backward(ys, grads, retain_graph, create_graph,
 * inputs=...): differentiates the n tensors ys together, as if the loss
 * were the sum of sum(ys[i] * grads[i]) (grads NULL, or grads[i] NULL:
 * ones, for a one-element ys[i]; borrowed, only their values read unless
 * AG_CREATE_GRAPH). tensor_backward is ag_backward(1, &y, &grad, 0, 0, NULL).
 *   - graph_flags: AG_RETAIN_GRAPH, AG_CREATE_GRAPH (above); with
 *     AG_CREATE_GRAPH a leaf's new ->grad is old + new as a recorded add
 *     (a tensor with a graph), as PyTorch's.
 *   - num_inputs > 0: only those leaves' ->grad accumulate (they must be
 *     leaves that require grad); others are left as they were.
 * Returns 0 or -1 as tensor_backward does; a failure while running (out of
 * memory, an interrupt) leaves every ->grad as before and frees the arena
 * unless the graph is retained (it then stays, usable). */
int ag_backward(int n, Tensor *const *ys, Tensor *const *grads, unsigned graph_flags,
                int num_inputs, Tensor *const *inputs);
/* Gradients as values (PyTorch's torch.autograd.grad(outputs, inputs,
 * grad_outputs, retain_graph, create_graph, allow_unused)): the
 * gradients of the n outputs (seeded as ag_backward seeds them, grad_outputs
 * NULL or an entry NULL: ones for a one-element output) with respect to
 * each of inputs (leaves or intermediates that require grad), stored in
 * grads[j] as new references: constants, or with AG_CREATE_GRAPH tensors
 * with graphs of their own where the gradient depends on something that
 * requires grad. No ->grad changes, neither the inputs' nor any other
 * leaf's. An input no output depends on gets NULL with allow_unused, and
 * is an error (PyTorch's message) without it. graph_flags as in
 * ag_backward. Returns 0, or -1 with every grads[j] NULL and every ->grad
 * as it was: user errors (PyTorch's messages: an output or input that does
 * not require grad, no grad_output for an output of several elements, an
 * unused input; a freed graph, as backward) change nothing; a failure while
 * running frees the arena unless the graph is retained. */
int ag_grad(int n, Tensor *const *outputs, Tensor *const *grad_outputs, int num_inputs,
            Tensor *const *inputs, unsigned graph_flags, bool allow_unused, Tensor **grads);
/* A gradient hook (PyTorch's Tensor.register_hook): called with the
 * gradient computed for the tensor it is registered on (borrowed; a leaf's
 * whole sum, once backward has it, before it reaches .grad or autograd.grad's
 * result; an intermediate's before its Function runs). Returns NULL to
 * keep the gradient, or a new reference to use instead (same shape);
 * *failed = true stops backward (every .grad as before). Grad mode is off
 * while it runs, on under AG_CREATE_GRAPH. */
typedef Tensor *(*AgHookFn)(void *ctx, Tensor *grad, bool *failed);
/* Registers fn on t (a tensor that requires grad); hooks run in the order
 * registered, each on the last one's result. release(ctx) (NULL: none)
 * when the hook is removed or t freed. Returns a handle > 0, or -1 with
 * a message (ctx released). */
int tensor_register_hook(Tensor *t, AgHookFn fn, void *ctx, void (*release)(void *ctx));
/* Removes the hook of that handle from t; false if t has none such. */
bool tensor_remove_hook(Tensor *t, int handle);
/* A client's backward for ag_custom_function: grads[i] gets the gradient
 * of input i (a new reference, or NULL for none) from grad_output, the
 * gradient of the output (borrowed). Runs with grad mode off in a
 * first-order backward and on under AG_CREATE_GRAPH, so a backward made of
 * tensor_* calls is differentiable. Returns 0, or -1 after ag_fail (or
 * with the client's own error kept by the client): backward then stops as
 * after a failed allocation. */
typedef int (*AgCustomBackward)(void *ctx, Tensor *grad_output, int n, Tensor **grads);
/* PyTorch's torch.autograd.Function: out (taken; computed by the client,
 * with no graph) recorded as made from the n inputs (borrowed) by a
 * Function named name (a string that outlives the graph), whose backward
 * is the client's. out may have been changed in place (at most 255 times:
 * its version is the one later changes are checked against). release(ctx) (NULL: none) runs when the Function is
 * freed: after the backward that frees its graph, or with the arena; at
 * once when nothing is recorded (no input requires grad, or grad mode is
 * off: out is returned as a constant). Returns out, or NULL (out released,
 * ctx released) on failure. */
Tensor *ag_custom_function(Tensor *out, Tensor *const *inputs, int n, const char *name,
                           AgCustomBackward client, void *ctx, void (*release)(void *ctx));
/* Whether the last refusal of backward or ag_grad on this thread was a
 * graph an earlier backward freed (PyTorch: "Trying to backward through
 * the graph a second time"): a shell words that one in its dialect. */
bool ag_error_freed_graph(void);

/* Makes backward poll *flag (borrowed; NULL: no polling) between Functions,
 * on this thread. When it is non-zero, backward stops and returns -1 with
 * the message "interrupted", as an allocation failure does: the graph is
 * freed and every leaf's ->grad is as before the call. backward never
 * clears the flag: it is the caller's (a SIGINT handler's, say). */
void ag_set_interrupt_flag(volatile sig_atomic_t *flag);

/* Grad mode, on by default (a shell's no_grad { } turns it off for a
 * scope): while it is off on this thread, ops record nothing and their
 * results are constants (requires_grad false, no graph), whatever their
 * operands. Creating a leaf that requires grad, and backward, work as
 * usual. Returns the previous setting, for the caller to restore. */
bool ag_set_grad_enabled(bool enabled);
bool ag_is_grad_enabled(void);

/* Grad mode, thread-local: while disabled, ops record nothing and their
 * results are constants (the shell's no_grad { }). Returns the previous
 * setting. */
bool ag_set_grad_enabled(bool enabled);
bool ag_is_grad_enabled(void);

/* Anomaly mode (PyTorch's torch.autograd.set_detect_anomaly), off by
 * default, per thread: while it is on, backward checks every gradient a
 * Function's backward produces and stops (-1, every ->grad as after a
 * failure) at the first that holds a nan, with PyTorch's message first
 * ("Function 'SqrtBackward0' returned nan values in its 0th output.") and
 * ag's words after it: the element, the op's rule evaluated at the values
 * there where the rule reads as a formula ("SqrtBackward at (0,): grad_x =
 * g / (2 sqrt(x)) = 0 / (2 sqrt(0)) = 0 / 0 = nan"; otherwise the values
 * and the rule), and where its forward ran ("its forward ran at
 * FILE:LINE", from ag_set_anomaly_location). Off, it costs one branch per
 * op recorded, per Function applied and per gradient accumulated. Returns
 * the previous setting; turning it off forgets every location. */
bool ag_set_detect_anomaly(bool enabled);
bool ag_is_anomaly_enabled(void);
/* The client's present place (a shell calls it per statement while
 * anomaly mode is on): Functions recorded from now on, under anomaly mode,
 * remember it until their graph is freed. file is copied (borrowed);
 * NULL: no place. Ignored while the mode is off. */
void ag_set_anomaly_location(const char *file, int line);

/* Frees the arena without differentiating (for a shell's :reset). Every
 * value built since the last backward loses its graph, as after backward. */
void ag_graph_free(void);

/* What a statement that fails halfway leaves behind: Functions whose
 * outputs were all released, still retaining their inputs until the next
 * backward. ag_graph_mark() names the present point of this thread's
 * recording; ag_graph_release_dead(mark) then releases, newest first, every
 * Function of the current graph recorded since the mark whose output has
 * been freed (nothing can consume it), with what it retained -- which may
 * free the outputs of older ones, released in turn. Functions whose output
 * is alive stay, and the counts backward relies on stay exact. A mark made
 * in another graph (before a backward, or across ag_graph_push/pop), and
 * mark 0, cover the whole current graph: releasing a dead Function is
 * always safe, the mark only bounds the walk. Not to be called while
 * backward runs. */
uint64_t ag_graph_mark(void);
void ag_graph_release_dead(uint64_t mark);

/* Sets the current graph aside and starts an empty one, so that a forward
 * and backward can run (as gradcheck does) without freeing the graphs the
 * caller is still building. While pushed, tensors of the outer graph count
 * as having no graph (backward through them fails); ag_graph_pop frees the
 * inner graph and brings the outer one back. Nests 8 deep; -1 past that. */
int ag_graph_push(void);
void ag_graph_pop(void);

/* ---- tracing backward (the shell's :trace) ------------------------------- */

typedef enum {
    AG_TRACE_APPLY,      /* fn was taken from the queue; grad is its output's gradient */
    AG_TRACE_ACCUMULATE, /* grad, as a backward kernel produced it, goes into tensor */
    AG_TRACE_PENDING,    /* fn's pending_count was decremented to `pending` */
} AgTraceKind;

typedef struct {
    AgTraceKind kind;
    const Function *fn;    /* APPLY, PENDING */
    const Tensor *tensor;  /* ACCUMULATE: the tensor receiving the gradient */
    const Tensor *grad;    /* APPLY: grad_output; ACCUMULATE: before any reduction */
    int pending;           /* PENDING: the count after the decrement */
    bool summed;           /* ACCUMULATE: added to a gradient already there */
} AgTraceEvent;

/* Calls fn(event, ctx) at each step of every backward on this thread; NULL
 * turns it off. The event's pointers are valid only during the call. */
typedef void (*AgTraceFn)(const AgTraceEvent *event, void *ctx);
void ag_set_trace(AgTraceFn fn, void *ctx);

/* ---- the last graph, kept for looking (src/graphsnap.c) -------------------
 * Off by default (a library pays nothing for it). When on, every backward
 * (and ag_grad) on this thread keeps a snapshot of the graph it
 * differentiated, independent of the arena: each node's op, shape, value and
 * gradient, each edge's local derivative (its Jacobian, when small) and the
 * gradient backward sent along it. It replaces the previous snapshot when the
 * backward succeeds, and counts against the memory limit. Backwards in a
 * graph set aside by ag_graph_push (gradcheck's) keep none.
 */
enum {
    AG_SNAP_MAX_NODES = 500,   /* nodes kept, nearest the loss first; the rest are cut */
    AG_SNAP_MAX_ELEMS = 64,    /* elements of a value or gradient kept; past it a summary */
    AG_SNAP_MAX_JACOBIAN = 64, /* elements of an edge's Jacobian kept (rows x columns) */
    AG_SNAP_LOCAL_NODES = 200, /* Jacobians are computed only for graphs this small */
};

/* A value or gradient: its elements when few, and always a summary. */
typedef struct {
    int64_t numel;             /* 0: none (no gradient reached the node) */
    double *values;            /* numel doubles when numel <= AG_SNAP_MAX_ELEMS, else NULL */
    double min, max, norm;     /* over every element (norm: Euclidean); nan if any is nan */
} AgSnapValues;

typedef struct {
    const char *op;            /* "MulBackward"; NULL for a leaf or a constant */
    char *name;                /* the client's name for the tensor (the namer's), or NULL */
    int ndim;
    int64_t shape[AG_MAX_DIMS];
    bool requires_grad;
    bool cut;                  /* inputs past AG_SNAP_MAX_NODES, or whose graph was freed */
    AgSnapValues value, grad;  /* grad: what this backward computed for it (for a
                                  leaf, what it added to .grad) */
    int first_edge, num_edges; /* its inputs: edges[first_edge .. first_edge + num_edges) */
} AgSnapNode;

typedef struct {
    int from, to;              /* the consumer's node and its input's */
    int input;                 /* which operand of from's op */
    AgSnapValues flow;         /* the gradient backward sent along it, in to's shape
                                  (numel 0: none; none kept for create_graph) */
    double *jacobian;          /* d from / d to, from's numel rows by to's numel columns
                                  (row-major), or NULL: too big, a constant input, a
                                  custom Function, or a graph past AG_SNAP_LOCAL_NODES */
} AgSnapEdge;

typedef struct {
    int num_nodes, num_edges;
    AgSnapNode *nodes;         /* nodes[0]: the loss (backward's first output) */
    AgSnapEdge *edges;         /* grouped by from, in operand order */
    bool truncated;            /* the graph had more than AG_SNAP_MAX_NODES nodes */
    int64_t bytes;             /* what the snapshot takes (counted against the limit) */
} AgGraphSnapshot;

/* Gives the client's name for a tensor of the graph (called while the
 * snapshot is taken, every tensor alive); the string is copied. NULL: none. */
typedef const char *(*AgNameFn)(const Tensor *t, void *ctx);
/* Turns snapshots on or off for this thread; namer may be NULL. Turning
 * them off forgets the last one. */
void ag_set_keep_graph(bool keep, AgNameFn namer, void *ctx);
/* The last backward's snapshot, or NULL (none yet, or it was forgotten).
 * Valid until the next backward or ag_forget_graph. */
const AgGraphSnapshot *ag_last_graph(void);
void ag_forget_graph(void);
/* A snapshot of the graph behind ys (n of them) as it is now, before any
 * backward: values and Jacobians, no gradients; snapshots need not be on.
 * The caller frees it with ag_graph_snapshot_free. NULL when memory runs
 * out or a backward is running. */
AgGraphSnapshot *ag_graph_take(Tensor *const *ys, int n);
void ag_graph_snapshot_free(AgGraphSnapshot *s);

/* ---- accounting ---------------------------------------------------------- */

typedef struct {
    int64_t live_tensors;       /* tensors allocated and not yet freed */
    int64_t live_bytes;         /* the memory they take: data and header */
    int64_t peak_bytes;         /* the most live_bytes has been */
    int64_t arena_functions;    /* Functions waiting for a backward */
    int64_t arena_bytes;        /* bytes in use in the arena */
    int64_t arena_capacity;     /* bytes the arena holds from the system */
    int64_t cached_bytes;       /* freed tensor memory kept for reuse (ag_trim returns it) */
    uint64_t generation;        /* the current graph's id: changes whenever it is freed */
} AgStats;

AgStats ag_stats(void);
/* ag_stats().arena_functions alone, cheaply (a shell checks it every statement). */
int64_t ag_graph_size(void);
/* Returns cached memory to the system: freed tensor blocks kept for reuse
 * and the arena's spare chunks. */
void ag_trim(void);
/* Cap on the bytes of live tensor data plus the graph waiting for a backward;
 * 0 means no cap. A creation that would pass it fails with a message, and so
 * does a backward (see backward). Default: AG_DEFAULT_MEMORY_LIMIT. */
void ag_set_memory_limit(int64_t bytes);
int64_t ag_memory_limit(void);
#define AG_DEFAULT_MEMORY_LIMIT ((int64_t)4 << 30)

/* Threads for large kernels (matrix products, element-wise ops, sums,
 * softmax, losses, optimizer updates): how many a kernel may use. The
 * default is the CPUs this process may run on (its affinity, and a
 * cgroup's cpu.max quota), or AG_NUM_THREADS when that is a positive
 * integer. Results are the same bits for every count. ag_set_num_threads
 * refuses n < 1 (-1, PyTorch's message); the threads start at the first
 * kernel that wants them. */
int ag_set_num_threads(int n);
int ag_get_num_threads(void);

/* ---- optimizers (src/optim.c) -------------------------------------------
 * PyTorch 1.13's SGD, Adam, AdamW, RMSprop, Adagrad and Adadelta, bit for bit (their
 * _single_tensor_* update rules; docs/engine.md, "Optimizers"). A step never
 * writes a parameter, which a live graph may still hold: it returns new
 * leaves that take the parameters' places.
 */
typedef enum {
    AG_OPTIM_SGD, AG_OPTIM_ADAM, AG_OPTIM_ADAMW, AG_OPTIM_RMSPROP, AG_OPTIM_ADAGRAD,
    AG_OPTIM_ADADELTA
} AgOptimKind;

/* PyTorch's keyword arguments. Each kind reads its own (SGD: lr, momentum,
 * dampening, weight_decay, nesterov; Adam, AdamW: lr, beta1, beta2, eps,
 * weight_decay, amsgrad; RMSprop: lr, alpha, eps, weight_decay, momentum,
 * centered; Adagrad: lr, lr_decay, weight_decay, initial_accumulator_value,
 * eps; Adadelta: lr, rho, eps, weight_decay; all: maximize); the others
 * must stay 0 / false. */
typedef struct {
    double lr;                      /* SGD has no default: NAN there, and ag_optim_new refuses it */
    double momentum, dampening, weight_decay;
    bool nesterov;
    double beta1, beta2, eps;
    double alpha;
    bool centered;
    double lr_decay, initial_accumulator_value;
    bool maximize, amsgrad;
    double rho;
} AgOptimConfig;
typedef struct AgOptimizer AgOptimizer;

/* PyTorch 1.13's defaults for kind (each class's __init__). */
AgOptimConfig ag_optim_defaults(AgOptimKind kind);
/* An optimizer for num_params parameters (slots 0 .. num_params-1, each with
 * its own state). config is copied; NULL means the defaults. NULL with a
 * message on a bad config (PyTorch's checks and words: "Invalid learning
 * rate: -0.1"), an option the kind does not take, or num_params < 0.
 * Free it with ag_optim_free. */
AgOptimizer *ag_optim_new(AgOptimKind kind, const AgOptimConfig *config, int num_params);
/* Replaces the options of o (a learning-rate schedule, PyTorch's
 * opt.param_groups[0]['lr'] = ...), keeping its state. -1 with nothing
 * changed on a config ag_optim_new would refuse. */
int ag_optim_configure(AgOptimizer *o, const AgOptimConfig *config);
/* Releases the optimizer and its state tensors. NULL does nothing. */
void ag_optim_free(AgOptimizer *o);
/* One step over params[0 .. num_params-1] (borrowed). For each slot i:
 * without a .grad, updated[i] is a new reference to params[i] and the slot's
 * state does not advance (PyTorch skips it); otherwise updated[i] is a new
 * reference to a new leaf holding the updated values, requiring grad as
 * params[i] does and holding the same .grad (tensor_inherit). params[i] is
 * never changed. A slot's state (momentum buffer, exp_avg, step count, ...)
 * is made at its first step, with that parameter's shape. updated may be
 * params itself if the caller keeps other references to the old values.
 * Returns 0, or -1 with nothing changed (no state advanced, no tensor made,
 * updated untouched) when a parameter is NULL, not a leaf, or of another
 * shape than its slot's state, or memory runs out. */
int ag_optim_step(AgOptimizer *o, Tensor *const *params, Tensor **updated);
/* The same step written into the parameters themselves (PyTorch's
 * optimizers): each parameter with a .grad takes its new values in place
 * and its version moves, so every tensor sharing its elements sees them,
 * and a graph that saved it refuses a later backward. The same checks and
 * failures as ag_optim_step, with nothing changed on failure. */
int ag_optim_step_in_place(AgOptimizer *o, Tensor *const *params);
/* "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta"; NULL for any other value. */
const char *ag_optim_name(AgOptimKind kind);

#endif /* AG_H */
