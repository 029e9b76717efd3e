/*
 * builtins_ops.c — the builtins that are engine ops: each reads its bound
 * arguments and makes one engine call, named in its table row.
 */
#include <string.h>

#include "builtins.h"

/* f(x) */
BUILTIN(bi_unary) {
    Tensor *x = NULL;
    return arg_tensor(s, a, 0, &x) && result_tensor(s, a, a->b->engine.unary(x), out);
}

/* f(a, b) */
BUILTIN(bi_binary) {
    Tensor *x = NULL, *y = NULL;
    return arg_tensor(s, a, 0, &x) && arg_tensor(s, a, 1, &y) &&
           result_tensor(s, a, a->b->engine.binary(x, y), out);
}

BUILTIN(bi_loss) { return bi_binary(s, a, out); }

/* f(x) over everything, or f(x, dim) along one dimension. */
BUILTIN(bi_reduce) {
    Tensor *x = NULL;
    int dim;
    if (!arg_tensor(s, a, 0, &x)) return false;
    if (!arg_present(a, 1)) return result_tensor(s, a, a->b->engine.unary(x), out);
    return arg_axis(s, a, 1, &dim) && result_tensor(s, a, a->b->engine.axis(x, dim), out);
}

/* softmax(x, dim=-1), log_softmax(x, dim=-1) */
BUILTIN(bi_softmax) {
    Tensor *x = NULL;
    int dim;
    return arg_tensor(s, a, 0, &x) && arg_axis(s, a, 1, &dim) &&
           result_tensor(s, a, a->b->engine.axis(x, dim), out);
}

BUILTIN(bi_reshape) {
    Tensor *x = NULL;
    int ndim;
    int64_t shape[AG_MAX_DIMS];
    return arg_tensor(s, a, 0, &x) && arg_dims(s, a, true, &ndim, shape) &&
           result_tensor(s, a, tensor_reshape(x, ndim, shape), out);
}

/* transpose(x, dim0, dim1); with neither dim, the last two (x.T). */
BUILTIN(bi_transpose) {
    Tensor *x = NULL;
    int d0 = -2, d1 = -1;
    if (!arg_tensor(s, a, 0, &x)) return false;
    if (arg_present(a, 1) != arg_present(a, 2))
        return arg_error(s, a, arg_present(a, 1) ? 1 : 2, "give both dims, or neither");
    if (arg_present(a, 1) && !(arg_axis(s, a, 1, &d0) && arg_axis(s, a, 2, &d1))) return false;
    return result_tensor(s, a, tensor_transpose(x, d0, d1), out);
}
