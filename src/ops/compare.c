/*
 * compare.c — element-wise comparisons (== != < <= > >=), the bitwise and
 * logical ops (& | ^ ~), floor division and remainder, with NumPy
 * broadcasting. Comparisons, bitwise ops and floor division record nothing: their results are constants (no gradient flows through a
 * comparison, and PyTorch cannot differentiate floor division). remainder
 * is differentiable, with PyTorch's gradients.
 */
#include "../internal.h"

#include <math.h>

/* out = f(a, b) element-wise over the broadcast shape of a and b. */
typedef double (*ElementFn)(double x, double y);

/* f over a and b as given (their common type already). */
static Tensor *map_rows(ElementFn f, const Tensor *a, const Tensor *b, int ndim,
                        const int64_t *shape) {
    Tensor *out = ag_tensor_new(ndim, shape);
    if (!out) return NULL;
    BroadcastIter it;
    double *o = tensor_values(out);
    for (bool more = ag_broadcast_iter_init(&it, ndim, shape, a, b); more;
         more = ag_broadcast_iter_next(&it)) {
        int last = it.ndim - 1;
        const double *x = tensor_values(a) + it.offset[0], *y = tensor_values(b) + it.offset[1];
        int64_t sx = it.stride[0][last], sy = it.stride[1][last];
        for (int64_t j = 0; j < it.row_len; j++) o[j] = f(x[j * sx], y[j * sy]);
        o += it.row_len;
    }
    return out;
}

static Tensor *broadcast_map(int id, ElementFn f, Tensor *a, Tensor *b) {
    const AgOpInfo *info = ag_op_at(id);
    const char *op = info->name;
    if (!a || !b) return ag_fail("%s: an operand is NULL", op);
    int64_t shape[AG_MAX_DIMS];
    int ndim;
    Tensor *ca, *cb; /* as their common type: x32 == t64 compares t64's float32 */
    if (ag_broadcast_shapes(op, a, b, shape, &ndim) != 0 ||
        ag_common_operands(a, b, &ca, &cb) != 0)
        return NULL;
    Tensor *out = map_rows(f, ca, cb, ndim, shape);
    ag_common_release(ca, a);
    ag_common_release(cb, b);
    Tensor *in[] = {a, b};
    return out && ag_dtype_needed(info, in, 2) ? ag_apply_dtype(out, id, in, 2) : out;
}

/* ======================================================================
 * Comparisons: 1. where true, 0. where false (nan compares unequal)
 * ====================================================================== */

static double eq(double x, double y) { return x == y; }
static double ne(double x, double y) { return x != y; }
static double lt(double x, double y) { return x < y; }
static double le(double x, double y) { return x <= y; }
static double gt(double x, double y) { return x > y; }
static double ge(double x, double y) { return x >= y; }

Tensor *tensor_eq(Tensor *a, Tensor *b) { return broadcast_map(AG_OP_EQ, eq, a, b); }
Tensor *tensor_ne(Tensor *a, Tensor *b) { return broadcast_map(AG_OP_NE, ne, a, b); }
Tensor *tensor_lt(Tensor *a, Tensor *b) { return broadcast_map(AG_OP_LT, lt, a, b); }
Tensor *tensor_le(Tensor *a, Tensor *b) { return broadcast_map(AG_OP_LE, le, a, b); }
Tensor *tensor_gt(Tensor *a, Tensor *b) { return broadcast_map(AG_OP_GT, gt, a, b); }
Tensor *tensor_ge(Tensor *a, Tensor *b) { return broadcast_map(AG_OP_GE, ge, a, b); }

/* The comparisons' rows: constants, printed as booleans; no gradient. */
#define COMPARISON_ROW(ID, NAME, SYMBOL)                                          \
    const AgOpInfo ag_op_##NAME = {                                             \
        .id = AG_OP_##ID, .name = #NAME, .signature = #NAME "(input, other)",   \
        .params = "TT", .help = "a " SYMBOL " b element-wise (booleans), broadcasting", \
        .binary = tensor_##NAME, .flags = AG_OP_METHOD,    \
        .dtype_rule = AG_DTYPE_BOOL,                                            \
    };
COMPARISON_ROW(EQ, eq, "==")
COMPARISON_ROW(NE, ne, "!=")
COMPARISON_ROW(LT, lt, "<")
COMPARISON_ROW(LE, le, "<=")
COMPARISON_ROW(GT, gt, ">")
COMPARISON_ROW(GE, ge, ">=")

/* ======================================================================
 * Bitwise ops of integers and booleans (a bool's are logical), and the
 * logical ops of anything; the dtype rules refuse a float's bitwise op
 * ====================================================================== */

static int64_t as_int(double v) { return (int64_t)v; }
static double and_bits(double x, double y) { return (double)(as_int(x) & as_int(y)); }
static double or_bits(double x, double y) { return (double)(as_int(x) | as_int(y)); }
static double xor_bits(double x, double y) { return (double)(as_int(x) ^ as_int(y)); }
static double logical_and(double x, double y) { return x != 0 && y != 0; }
static double logical_or(double x, double y) { return x != 0 || y != 0; }
static double logical_xor(double x, double y) { return (x != 0) != (y != 0); }

Tensor *tensor_bitwise_and(Tensor *a, Tensor *b) { return broadcast_map(AG_OP_BITWISE_AND, and_bits, a, b); }
Tensor *tensor_bitwise_or(Tensor *a, Tensor *b) { return broadcast_map(AG_OP_BITWISE_OR, or_bits, a, b); }
Tensor *tensor_bitwise_xor(Tensor *a, Tensor *b) { return broadcast_map(AG_OP_BITWISE_XOR, xor_bits, a, b); }
Tensor *tensor_logical_and(Tensor *a, Tensor *b) { return broadcast_map(AG_OP_LOGICAL_AND, logical_and, a, b); }
Tensor *tensor_logical_or(Tensor *a, Tensor *b) { return broadcast_map(AG_OP_LOGICAL_OR, logical_or, a, b); }
Tensor *tensor_logical_xor(Tensor *a, Tensor *b) { return broadcast_map(AG_OP_LOGICAL_XOR, logical_xor, a, b); }

/* out = f(x) element-wise, typed by op's rule. */
static Tensor *unary_map(int op, double (*f)(double), Tensor *x) {
    if (!x) return ag_fail("%s: the operand is NULL", ag_op_at(op)->name);
    Tensor *out = ag_tensor_new_like(x);
    if (!out) return NULL;
    double *o = tensor_values(out);
    const double *xv = tensor_values(x);
    for (int64_t i = 0; i < x->numel; i++) o[i] = f(xv[i]);
    return ag_apply_dtype(out, op, &x, 1);
}

/* ~x: a bool's negation, an integer's complement (~5 is -6) */
static double not_bits(double x) { return (double)~as_int(x); }
static double not_bool(double x) { return x == 0; }

Tensor *tensor_bitwise_not(Tensor *x) {
    return unary_map(AG_OP_BITWISE_NOT, x && x->dtype == AG_BOOL ? not_bool : not_bits, x);
}
Tensor *tensor_logical_not(Tensor *x) { return unary_map(AG_OP_LOGICAL_NOT, not_bool, x); }

#define BITWISE_ROW(ID, NAME, SYMBOL, RULE)                                        \
    const AgOpInfo ag_op_##NAME = {                                             \
        .id = AG_OP_##ID, .name = #NAME, .signature = #NAME "(input, other)",   \
        .params = "TT", .help = SYMBOL " element-wise, broadcasting (a constant)", \
        .binary = tensor_##NAME, .flags = AG_OP_METHOD, .dtype_rule = RULE,     \
    };
BITWISE_ROW(BITWISE_AND, bitwise_and, "a & b: bitwise and of integers or booleans",
            AG_DTYPE_INTEGRAL)
BITWISE_ROW(BITWISE_OR, bitwise_or, "a | b: bitwise or of integers or booleans", AG_DTYPE_INTEGRAL)
BITWISE_ROW(BITWISE_XOR, bitwise_xor, "a ^ b: bitwise xor of integers or booleans",
            AG_DTYPE_INTEGRAL)
BITWISE_ROW(LOGICAL_AND, logical_and, "a and b (nonzero is true), booleans", AG_DTYPE_BOOL)
BITWISE_ROW(LOGICAL_OR, logical_or, "a or b (nonzero is true), booleans", AG_DTYPE_BOOL)
BITWISE_ROW(LOGICAL_XOR, logical_xor, "a xor b (nonzero is true), booleans", AG_DTYPE_BOOL)

const AgOpInfo ag_op_bitwise_not = {
    .id = AG_OP_BITWISE_NOT, .name = "bitwise_not", .signature = "bitwise_not(input)",
    .params = "T", .help = "~x: a bool's negation, an integer's complement (a constant)",
    .unary = tensor_bitwise_not, .flags = AG_OP_METHOD, .dtype_rule = AG_DTYPE_INTEGRAL,
};
const AgOpInfo ag_op_logical_not = {
    .id = AG_OP_LOGICAL_NOT, .name = "logical_not", .signature = "logical_not(input)",
    .params = "T", .help = "not x (nonzero is true), booleans (a constant)",
    .unary = tensor_logical_not, .flags = AG_OP_METHOD, .dtype_rule = AG_DTYPE_BOOL,
};

/* ======================================================================
 * Floor division and remainder: Python's, whose remainder takes the
 * divisor's sign (PyTorch 1.13's div_floor and remainder kernels)
 * ====================================================================== */

double ag_floor_divide(double a, double b) {
    if (b == 0) return a / b;
    double mod = fmod(a, b), div = (a - mod) / b;
    if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;
    if (div == 0) return copysign(0.0, a / b);
    double floordiv = floor(div);
    if (div - floordiv > 0.5) floordiv += 1;
    return floordiv;
}

double ag_remainder(double a, double b) {
    double mod = fmod(a, b);
    if (mod != 0 && (b < 0) != (mod < 0)) mod += b;
    return mod;
}

Tensor *tensor_floor_divide(Tensor *a, Tensor *b) {
    return broadcast_map(AG_OP_FLOOR_DIVIDE, ag_floor_divide, a, b);
}

const AgOpInfo ag_op_floor_divide = {
    .id = AG_OP_FLOOR_DIVIDE, .name = "floor_divide", .signature = "floor_divide(input, other)",
    .params = "TT", .help = "a // b: Python's floor division (a constant: no gradient)",
    .binary = tensor_floor_divide, .flags = AG_OP_METHOD,
};

/* remainder: out = a - b * floor(a / b)
 *   grad_a = g, grad_b = -g * floor_divide(a, b)   (PyTorch's rule) */

static double neg_floor_divide(double a, double b) { return -ag_floor_divide(a, b); }

static void remainder_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    Tensor *a = self->inputs[0], *b = self->inputs[1];
    ag_accumulate_grad(a, tensor_retain(g));
    if (!b->requires_grad) return;
    Tensor *q = broadcast_map(AG_OP_REMAINDER, neg_floor_divide, a, b);
    if (!q) return;
    double *qv = tensor_values(q);
    const double *gv = tensor_values(g);
    for (int64_t i = 0; i < q->numel; i++) qv[i] *= gv[i];
    ag_accumulate_grad(b, q);
}

/* grad_a = g, grad_b = -floor_divide(a, b) * g (the kernel's order) */
static int remainder_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    Tensor *a = self->inputs[0], *b = self->inputs[1];
    if (ag_grad_wanted(self, 0)) grads[0] = tensor_retain(g);
    if (ag_grad_wanted(self, 1)) {
        Tensor *q = ag_grad_tmp(&t, tensor_neg(ag_grad_tmp(&t, tensor_floor_divide(a, b))));
        grads[1] = ag_grad_out(&t, tensor_mul(q, g));
    }
    return ag_grad_done(&t);
}

/* PyTorch's name tells its overloads apart: remainder.Scalar (x % 2) is
 * RemainderBackward0, remainder.Tensor RemainderBackward1. */
Tensor *tensor_remainder(Tensor *a, Tensor *b) {
    Tensor *out = broadcast_map(AG_OP_REMAINDER, ag_remainder, a, b);
    const char *name = b && !b->wrapped_number ? "RemainderBackward1" : "RemainderBackward";
    return ag_graph_record_named(out, AG_OP_REMAINDER, name, (Tensor *[]){a, b}, 2, NULL, 0);
}

const AgOpInfo ag_op_remainder = {
    .id = AG_OP_REMAINDER, .name = "remainder", .signature = "remainder(input, other)",
    .params = "TT", .help = "a % b: Python's remainder, with the divisor's sign",
    .rule = "grad_a = g, grad_b = -g * floor(a / b)", .backward_name = "RemainderBackward",
    .binary = tensor_remainder, .backward = remainder_backward, .graph_backward = remainder_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_READS, .grad_reads = {0, 3}, /* a's reads nothing */
};
