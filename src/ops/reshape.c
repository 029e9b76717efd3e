/*
 * reshape.c — reshape (view), flatten, squeeze and unsqueeze: the same
 * elements in a new shape, as views of x's elements (PyTorch's: every ag
 * tensor is contiguous, so a reshape always can be one): a write through
 * the result is a write to x. reshape's shape may have one -1, inferred
 * from the element count; the others compute theirs by PyTorch's rules.
 * Backward copies g back into x's shape. And expand: x broadcast to a
 * shape (a copy), whose backward sums g back to x's shape.
 */
#include "../internal.h"

#include <string.h>

/* Copies a same-numel tensor's data into a new tensor of shape (ndim). */
static Tensor *copy_as(const Tensor *src, int ndim, const int64_t *shape) {
    Tensor *r = ag_tensor_new(ndim, shape);
    if (r) memcpy(tensor_values(r), tensor_values(src), (size_t)src->numel * sizeof(double));
    return r;
}

/* x (..) -> out (shape); dx = g in x's shape */
static void reshape_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    Tensor *x = self->inputs[0];
    Tensor *dx = copy_as(g, x->ndim, x->shape);
    if (dx) ag_accumulate_grad(x, dx);
}

/* reshape, flatten, squeeze, unsqueeze as a recorded op: g reshaped back. */
static int reshape_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    Tensor *x = self->inputs[0];
    grads[0] = tensor_reshape(g, x->ndim, x->shape);
    return grads[0] ? 0 : -1;
}

/* Resolves one -1 in shape against numel; -1 with a message when the shape
 * cannot hold exactly numel elements. */
static int resolve_shape(const Tensor *x, int ndim, const int64_t *req, int64_t *shape) {
    char sx[AG_SHAPE_STR_MAX], sr[AG_SHAPE_STR_MAX];
    int infer = -1;
    int64_t known = 1;
    for (int i = 0; i < ndim; i++) {
        shape[i] = req[i];
        if (req[i] == -1 && infer < 0) {
            infer = i;
        } else if (req[i] < 0) {
            ag_fail("reshape: invalid dimension %lld in %s (only one -1 may be inferred)",
                    (long long)req[i], ag_shape_str(ndim, req, sr, sizeof sr));
            return -1;
        } else if (req[i] != 0 && known > INT64_MAX / req[i]) {
            known = -1; /* overflow: cannot match any real element count */
            break;
        } else {
            known *= req[i];
        }
    }
    if (infer >= 0 && known > 0 && x->numel % known == 0) shape[infer] = x->numel / known;
    bool ok = known >= 0 && (infer >= 0 ? known > 0 && x->numel % known == 0 : known == x->numel);
    if (!ok) {
        ag_fail("reshape: cannot reshape %s (%lld elements) to %s", tensor_shape_str(x, sx, sizeof sx),
                (long long)x->numel, ag_shape_str(ndim, req, sr, sizeof sr));
        return -1;
    }
    return 0;
}

/* reshape and view: the same view, each with its Function's name. */
static Tensor *reshape_forward(int op, Tensor *x, int ndim, const int64_t *req) {
    if (!x || (ndim > 0 && !req)) return ag_fail("reshape: argument is NULL");
    if (ndim < 0 || ndim > AG_MAX_DIMS)
        return ag_fail("reshape: tensors have at most %d dimensions, not %d", AG_MAX_DIMS, ndim);
    int64_t shape[AG_MAX_DIMS];
    if (resolve_shape(x, ndim, req, shape) != 0) return NULL;
    Tensor *out = ag_tensor_view(x, ndim, shape);
    return ag_graph_record(out, op, &x, 1, NULL, 0);
}

Tensor *tensor_reshape(Tensor *x, int ndim, const int64_t *req) {
    return reshape_forward(AG_OP_RESHAPE, x, ndim, req);
}

Tensor *tensor_view(Tensor *x, int ndim, const int64_t *req) {
    return reshape_forward(AG_OP_VIEW, x, ndim, req);
}

static Tensor *reshape_call(const AgOpArgs *a) {
    return tensor_reshape(a->t[0], a->num_dims, a->dims);
}

static Tensor *view_call(const AgOpArgs *a) { return tensor_view(a->t[0], a->num_dims, a->dims); }

const AgOpInfo ag_op_reshape = {
    .id = AG_OP_RESHAPE, .name = "reshape", .signature = "reshape(input, *shape)",
    .params = "TD", .help = "the same elements in shape (d...); one d can be -1",
    .rule = "grad_x = g reshaped back to x's shape", .backward_name = "ReshapeBackward",
    .call = reshape_call, .backward = reshape_backward, .graph_backward = reshape_graph, .flags = AG_OP_METHOD | AG_OP_SAVES_NOTHING,
};

/* view: reshape under PyTorch's other name, its Function ViewBackward (as
 * PyTorch names it). */
const AgOpInfo ag_op_view = {
    .id = AG_OP_VIEW, .name = "view", .signature = "view(input, *shape)",
    .params = "TD", .help = "the same elements in shape (d...), sharing them; one d can be -1",
    .rule = "grad_x = g reshaped back to x's shape", .backward_name = "ViewBackward",
    .call = view_call, .backward = reshape_backward, .graph_backward = reshape_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_NOTHING,
};

/* ======================================================================
 * flatten, squeeze, unsqueeze: reshapes with PyTorch's rules for the new
 * shape, each with its own Function name; backward as reshape's.
 * ====================================================================== */

/* x's elements in shape (ndim), a view, recorded as op. */
static Tensor *reshaped(Tensor *x, int op, int ndim, const int64_t *shape) {
    return ag_graph_record(ag_tensor_view(x, ndim, shape), op, &x, 1, NULL, 0);
}

/* flatten(x, start_dim, end_dim): dims start..end (negative from the end)
 * merged into one. A 0-d x becomes (1,) (its dims 0 and -1 are allowed). */
Tensor *tensor_flatten(Tensor *x, int start_dim, int end_dim) {
    if (!x) return ag_fail("flatten: argument is NULL");
    int nd = x->ndim > 0 ? x->ndim : 1, start, end;
    if ((start = ag_normalize_axis("flatten", start_dim, nd)) < 0 ||
        (end = ag_normalize_axis("flatten", end_dim, nd)) < 0)
        return NULL;
    if (start > end)
        return ag_fail("flatten: start_dim %d comes after end_dim %d", start_dim, end_dim);
    int64_t shape[AG_MAX_DIMS];
    int ndim = 0;
    if (x->ndim == 0) shape[ndim++] = 1;
    for (int i = 0; i < x->ndim; i++) {
        if (i <= start || i > end) shape[ndim++] = x->shape[i];
        else shape[ndim - 1] *= x->shape[i];
    }
    return reshaped(x, AG_OP_FLATTEN, ndim, shape);
}

static Tensor *flatten_call(const AgOpArgs *a) {
    return tensor_flatten(a->t[0], (int)a->ints[0], (int)a->ints[1]);
}

const AgOpInfo ag_op_flatten = {
    .id = AG_OP_FLATTEN, .name = "flatten", .signature = "flatten(input, start_dim=0, end_dim=-1)",
    .params = "Tii", .help = "dims start_dim to end_dim merged into one (all: a 1-D copy)",
    .rule = "grad_x = g reshaped back to x's shape", .backward_name = "FlattenBackward",
    .call = flatten_call, .backward = reshape_backward, .graph_backward = reshape_graph, .flags = AG_OP_METHOD | AG_OP_SAVES_NOTHING,
};

/* squeeze(x): every dim of size 1 removed; squeeze_dim(x, dim): that one,
 * if its size is 1 (else the same shape, as PyTorch). */
static Tensor *squeeze_forward(Tensor *x, bool has_dim, int64_t dim) {
    if (!x) return ag_fail("squeeze: argument is NULL");
    int axis = -1;
    if (has_dim && x->ndim == 0 && dim != 0 && dim != -1)
        return ag_normalize_axis("squeeze", dim, 0), NULL;
    if (has_dim && x->ndim > 0 && (axis = ag_normalize_axis("squeeze", dim, x->ndim)) < 0)
        return NULL;
    int64_t shape[AG_MAX_DIMS];
    int ndim = 0;
    for (int i = 0; i < x->ndim; i++)
        if (x->shape[i] != 1 || (has_dim && i != axis)) shape[ndim++] = x->shape[i];
    return reshaped(x, AG_OP_SQUEEZE, ndim, shape);
}

Tensor *tensor_squeeze(Tensor *x) { return squeeze_forward(x, false, 0); }
Tensor *tensor_squeeze_dim(Tensor *x, int dim) { return squeeze_forward(x, true, dim); }

static Tensor *squeeze_call(const AgOpArgs *a) {
    return squeeze_forward(a->t[0], a->has_int[0], a->ints[0]);
}

const AgOpInfo ag_op_squeeze = {
    .id = AG_OP_SQUEEZE, .name = "squeeze", .signature = "squeeze(input, dim=None)",
    .params = "Ti", .help = "dims of size 1 removed (only dim, if given and of size 1)",
    .rule = "grad_x = g reshaped back to x's shape", .backward_name = "SqueezeBackward",
    .call = squeeze_call, .backward = reshape_backward, .graph_backward = reshape_graph, .flags = AG_OP_METHOD | AG_OP_SAVES_NOTHING,
};

/* unsqueeze(x, dim): a dim of size 1 inserted at dim, in [-ndim-1, ndim]. */
Tensor *tensor_unsqueeze(Tensor *x, int dim) {
    if (!x) return ag_fail("unsqueeze: argument is NULL");
    if (x->ndim >= AG_MAX_DIMS)
        return ag_fail("unsqueeze: tensors have at most %d dimensions", AG_MAX_DIMS);
    int axis = ag_normalize_axis("unsqueeze", dim, x->ndim + 1);
    if (axis < 0) return NULL;
    int64_t shape[AG_MAX_DIMS];
    int ndim = 0;
    for (int i = 0; i <= x->ndim; i++) {
        if (i == axis) shape[ndim++] = 1;
        if (i < x->ndim) shape[ndim++] = x->shape[i];
    }
    return reshaped(x, AG_OP_UNSQUEEZE, ndim, shape);
}

static Tensor *unsqueeze_call(const AgOpArgs *a) {
    return tensor_unsqueeze(a->t[0], (int)a->ints[0]);
}

const AgOpInfo ag_op_unsqueeze = {
    .id = AG_OP_UNSQUEEZE, .name = "unsqueeze", .signature = "unsqueeze(input, dim)",
    .params = "Ti", .help = "a dim of size 1 inserted at dim",
    .rule = "grad_x = g reshaped back to x's shape", .backward_name = "UnsqueezeBackward",
    .call = unsqueeze_call, .backward = reshape_backward, .graph_backward = reshape_graph, .flags = AG_OP_METHOD | AG_OP_SAVES_NOTHING,
};

/* ======================================================================
 * expand: x broadcast to sizes, PyTorch's x.expand(*sizes): -1 keeps x's
 * size, a dim of size 1 is repeated, new dims lead. A copy (ag's tensors
 * are contiguous), not PyTorch's view. dx = g summed back to x's shape:
 * the engine's own reduction of a broadcast gradient (ag_accumulate_grad).
 * ====================================================================== */

/* The expanded shape of x, or -1 with PyTorch's message. */
static int expand_shape(const Tensor *x, int ndim, const int64_t *sizes, int64_t *shape) {
    char sx[AG_SHAPE_STR_MAX], ss[AG_SHAPE_STR_MAX];
    if (ndim < x->ndim)
        return ag_fail("expand(torch.%sTensor{%s}, size=%s): the number of sizes provided (%d) "
                       "must be greater or equal to the number of dimensions in the tensor (%d)",
                       ag_dtype_scalar_name((AgDtype)x->dtype),
                       ag_shape_list_str(x->ndim, x->shape, sx, sizeof sx),
                       ag_shape_list_str(ndim, sizes, ss, sizeof ss),
                       ndim, x->ndim), -1;
    int lead = ndim - x->ndim;
    for (int d = 0; d < ndim; d++) {
        int64_t have = d < lead ? 1 : x->shape[d - lead];
        if (sizes[d] == -1 && d < lead)
            return ag_fail("The expanded size of the tensor (-1) isn't allowed in a leading, "
                           "non-existing dimension %d", d), -1;
        shape[d] = sizes[d] == -1 ? have : sizes[d];
        if (shape[d] < 0 || (have != 1 && shape[d] != have))
            return ag_fail("The expanded size of the tensor (%lld) must match the existing size "
                           "(%lld) at non-singleton dimension %d.  Target sizes: %s.  Tensor "
                           "sizes: %s", (long long)shape[d], (long long)have, d,
                           ag_shape_list_str(ndim, sizes, ss, sizeof ss),
                           ag_shape_list_str(x->ndim, x->shape, sx, sizeof sx)), -1;
    }
    return 0;
}

static void expand_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    ag_accumulate_grad(self->inputs[0], tensor_retain(g));
}

static int expand_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)self, (void)ctx;
    grads[0] = tensor_retain(g); /* summed to x's shape by the engine, recorded */
    return 0;
}

Tensor *tensor_expand(Tensor *x, int ndim, const int64_t *sizes) {
    if (!x || (ndim > 0 && !sizes)) return ag_fail("expand: argument is NULL");
    if (ndim < 0 || ndim > AG_MAX_DIMS)
        return ag_fail("expand: tensors have at most %d dimensions, not %d", AG_MAX_DIMS, ndim);
    int64_t shape[AG_MAX_DIMS];
    if (expand_shape(x, ndim, sizes, shape) != 0) return NULL;
    Tensor *out = ag_broadcast_to(x, ndim, shape);
    return ag_graph_record(out, AG_OP_EXPAND, &x, 1, NULL, 0);
}

static Tensor *expand_call(const AgOpArgs *a) {
    return tensor_expand(a->t[0], a->num_dims, a->dims);
}

const AgOpInfo ag_op_expand = {
    .id = AG_OP_EXPAND, .name = "expand", .signature = "expand(input, *sizes)",
    .params = "TD", .help = "x repeated along its dims of size 1 (and new leading dims) to sizes; "
                            "-1 keeps a dim (a copy, not a view)",
    .rule = "grad_x = g summed back to x's shape", .backward_name = "ExpandBackward",
    .call = expand_call, .backward = expand_backward, .graph_backward = expand_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_NOTHING, .dtype_rule = AG_DTYPE_FIRST,
};
