/*
 * index.c — taking parts of a tensor: select (x[i] along one dimension,
 * the dimension removed) and index (x[items]). A copy (ag has no views);
 * backward puts g back at the selected places of a zero gradient in x's
 * shape. And index_scatter, that gradient as an op (create_graph), whose
 * own gradient gathers again.
 */
#include "../internal.h"

#include <math.h>
#include <string.h>

typedef struct {
    int dim;
    int64_t index;
} SelectCtx;

/* x viewed as (outer, n, inner) around dim: out[o, i] = x[o, index, i]. */
static void select_copy(const Tensor *x, int dim, int64_t index, double *out) {
    if (x->numel == 0) return; /* no lanes: (10^18, 2, 0) must not loop 10^18 times */
    int64_t outer = ag_shape_prod(x->shape, 0, dim), n = x->shape[dim];
    int64_t inner = ag_shape_prod(x->shape, dim + 1, x->ndim);
    for (int64_t o = 0; o < outer; o++)
        memcpy(out + o * inner, tensor_values(x) + (o * n + index) * inner, (size_t)inner * sizeof *out);
}

static void select_backward(Function *self, void *ctx, Tensor *g) {
    SelectCtx *c = ctx;
    Tensor *x = self->inputs[0];
    Tensor *dx = ag_tensor_filled_like(x, 0.0);
    if (!dx) return;
    if (x->numel == 0) {
        ag_accumulate_grad(x, dx);
        return;
    }
    int64_t outer = ag_shape_prod(x->shape, 0, c->dim), n = x->shape[c->dim];
    int64_t inner = ag_shape_prod(x->shape, c->dim + 1, x->ndim);
    for (int64_t o = 0; o < outer; o++)
        memcpy(tensor_values(dx) + (o * n + c->index) * inner, tensor_values(g) + o * inner,
               (size_t)inner * sizeof(double));
    ag_accumulate_grad(x, dx);
}

/* The same as a recorded op: g put at x's offsets of the slice, a copy
 * (index_scatter without accumulating, as the memcpy above). */
static int select_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    SelectCtx *c = ctx;
    Tensor *x = self->inputs[0];
    int64_t n = g->numel > 0 ? g->numel : 1;
    Tensor *scratch = ag_tensor_new(1, &n); /* the offsets, counted as tensor memory */
    if (!scratch) return -1;
    int64_t *off = (int64_t *)(void *)tensor_values(scratch); /* only ever read as int64 */
    int64_t outer = ag_shape_prod(x->shape, 0, c->dim);
    int64_t inner = ag_shape_prod(x->shape, c->dim + 1, x->ndim);
    for (int64_t o = 0; g->numel > 0 && o < outer; o++)
        for (int64_t i = 0; i < inner; i++)
            off[o * inner + i] = (o * x->shape[c->dim] + c->index) * inner + i;
    grads[0] = ag_index_scatter(g, off, false, x->ndim, x->shape);
    tensor_release(scratch);
    return grads[0] ? 0 : -1;
}

Tensor *tensor_select(Tensor *x, int dim, int64_t index) {
    if (!x) return ag_fail("select: argument is NULL");
    if (x->ndim == 0) return ag_fail("select: a 0-d tensor cannot be indexed");
    if ((dim = ag_normalize_axis("select", dim, x->ndim)) < 0) return NULL;
    int64_t n = x->shape[dim];
    if (index < -n || index >= n)
        return ag_fail("index %lld is out of range for dimension %d of size %lld", (long long)index,
                       dim, (long long)n);
    if (index < 0) index += n;
    int64_t shape[AG_MAX_DIMS];
    int ndim = 0;
    for (int i = 0; i < x->ndim; i++)
        if (i != dim) shape[ndim++] = x->shape[i];
    Tensor *out = ag_tensor_new(ndim, shape);
    if (!out) return NULL;
    select_copy(x, dim, index, tensor_values(out));
    SelectCtx *c;
    out = ag_graph_record(out, AG_OP_SELECT, &x, 1, (void **)&c, sizeof *c);
    if (c) *c = (SelectCtx){dim, index};
    return ag_mark_copy_of(out, x); /* PyTorch's select is a view */
}

static Tensor *select_call(const AgOpArgs *a) {
    return tensor_select(a->t[0], (int)a->ints[0], a->ints[1]);
}

const AgOpInfo ag_op_select = {
    .id = AG_OP_SELECT, .name = "select", .signature = "select(input, dim, index)",
    .params = "Tii", .help = "the slice at index along dim (removed): x[index] for dim 0",
    .rule = "grad_x = g at the selected index, 0 elsewhere", .backward_name = "SelectBackward",
    .call = select_call, .backward = select_backward, .graph_backward = select_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_NOTHING,
};

/* ======================================================================
 * index: x[items], NumPy's and PyTorch's rules, as one gather
 *
 * Integers and slices (basic indexing) pick along one axis each (an
 * integer removes it); None adds an axis of 1; integer tensors and masks
 * (advanced indexing) broadcast together into one block of result axes,
 * placed where they stand when they are adjacent, else first. Every case
 * comes down to one offset into x per result element: the forward gathers
 * x at the offsets, the backward scatters g back to them, adding where an
 * element was taken twice (the one place a backward kernel sums: invariant
 * 3's exception for a repeated index).
 * ====================================================================== */

/* One axis the result's elements walk: a step through x, or (the advanced
 * block) a table of offsets. */
typedef struct {
    int64_t size, step;
    const int64_t *table;
} IndexDim;

/* An integer tensor, a mask's coordinates along one axis, or (among
 * tensors) an integer: positions along axis, normalised, of a shape. */
typedef struct {
    int axis, ndim;
    int64_t shape[AG_MAX_DIMS];
    const int64_t *pos;
} Advanced;

enum { MAX_SCRATCH = 2 * AG_MAX_DIMS + 2 };

typedef struct {
    int ndim;                          /* the result's shape */
    int64_t shape[AG_MAX_DIMS];
    int64_t base;                      /* x's offset of the result's first element */
    int num_dims;
    IndexDim dims[AG_MAX_DIMS];
    int num_adv;
    Advanced adv[AG_MAX_DIMS];
    Tensor *scratch[MAX_SCRATCH];      /* int64 buffers, released with the plan */
    int num_scratch;
    const char *name;                  /* the Function's, as PyTorch names it */
} IndexPlan;

static void plan_free(IndexPlan *p) {
    for (int i = 0; i < p->num_scratch; i++) tensor_release(p->scratch[i]);
    p->num_scratch = 0;
}

/* A buffer of n int64 values, counted as tensor memory, freed with p. */
static int64_t *plan_ints(IndexPlan *p, int64_t n) {
    int64_t len = n > 0 ? n : 1;
    Tensor *t = p->num_scratch < MAX_SCRATCH ? ag_tensor_new(1, &len) : NULL;
    if (!t) return p->num_scratch < MAX_SCRATCH ? NULL : ag_fail("index: too many index tensors");
    p->scratch[p->num_scratch++] = t;
    return (int64_t *)(void *)tensor_values(t); /* only ever read as int64 */
}

static int64_t axis_stride(const Tensor *x, int axis) {
    return ag_shape_prod(x->shape, axis + 1, x->ndim);
}

/* i along axis (negative counts from the end) into [0, size). */
static int position(int64_t i, int axis, int64_t size, int64_t *out) {
    if (i < -size || i >= size)
        return ag_fail("index %lld is out of range for dimension %d of size %lld", (long long)i,
                       axis, (long long)size), -1;
    *out = i < 0 ? i + size : i;
    return 0;
}

/* Python's slice.indices: the first position and the count. */
static void slice_span(const AgIndex *s, int64_t size, int64_t *first, int64_t *count) {
    int64_t step = s->step, start, stop;
    if (step > 0) {
        start = !s->has_start ? 0 : s->start < 0 ? s->start + size : s->start;
        stop = !s->has_stop ? size : s->stop < 0 ? s->stop + size : s->stop;
        start = start < 0 ? 0 : start > size ? size : start;
        stop = stop < 0 ? 0 : stop > size ? size : stop;
        *count = stop > start ? (stop - start + step - 1) / step : 0;
    } else {
        start = !s->has_start ? size - 1 : s->start < 0 ? s->start + size : s->start;
        stop = !s->has_stop ? -1 : s->stop < 0 ? s->stop + size : s->stop;
        start = start < -1 ? -1 : start > size - 1 ? size - 1 : start;
        stop = stop < -1 ? -1 : stop > size - 1 ? size - 1 : stop;
        *count = start > stop ? (start - stop - step - 1) / -step : 0;
    }
    *first = start;
}

/* An integer tensor's values as positions along axis. */
static int add_tensor_index(IndexPlan *p, const Tensor *t, int axis, int64_t size) {
    int64_t *pos = plan_ints(p, t->numel);
    if (!pos) return -1;
    for (int64_t k = 0; k < t->numel; k++) {
        double v = tensor_values(t)[k];
        if (v != floor(v) || !(fabs(v) < 0x1p62))
            return ag_fail("an index tensor must hold integers, not %g", v), -1;
        if (position((int64_t)v, axis, size, &pos[k]) != 0) return -1;
    }
    Advanced *a = &p->adv[p->num_adv++];
    *a = (Advanced){.axis = axis, .ndim = t->ndim, .pos = pos};
    memcpy(a->shape, t->shape, (size_t)t->ndim * sizeof *a->shape);
    return 0;
}

/* A mask over axes axis.. of x: one advanced index per axis, the
 * coordinates of its true elements in order. */
static int add_mask(IndexPlan *p, const Tensor *x, const Tensor *m, int axis) {
    char sm[AG_SHAPE_STR_MAX], sx[AG_SHAPE_STR_MAX];
    if (m->ndim == 0) return ag_fail("a 0-d mask cannot index (write the condition as if)"), -1;
    if (axis + m->ndim > x->ndim ||
        !ag_shape_equal(m->ndim, m->shape, m->ndim, x->shape + axis))
        return ag_fail("the mask's shape %s does not match the indexed dimensions %s "
                       "(from dimension %d)", tensor_shape_str(m, sm, sizeof sm),
                       ag_shape_str(x->ndim - axis < m->ndim ? x->ndim - axis : m->ndim,
                                    x->shape + axis, sx, sizeof sx), axis), -1;
    int64_t count = 0;
    for (int64_t k = 0; k < m->numel; k++) count += tensor_values(m)[k] != 0;
    int64_t *coords = plan_ints(p, count * m->ndim);
    if (!coords) return -1;
    int64_t at = 0;
    for (int64_t k = 0; k < m->numel; k++) {
        if (tensor_values(m)[k] == 0) continue;
        int64_t r = k; /* k's coordinates, last dimension fastest */
        for (int d = m->ndim - 1; d >= 0; d--) {
            coords[d * count + at] = r % m->shape[d];
            r /= m->shape[d];
        }
        at++;
    }
    for (int d = 0; d < m->ndim; d++)
        p->adv[p->num_adv++] =
            (Advanced){.axis = axis + d, .ndim = 1, .shape = {count}, .pos = coords + d * count};
    return 0;
}

/* The advanced indices broadcast together (NumPy's rule) into shape. */
static int broadcast_advanced(const IndexPlan *p, int *ndim, int64_t *shape) {
    *ndim = 0;
    for (int i = 0; i < p->num_adv; i++) {
        const Advanced *a = &p->adv[i];
        int nd = a->ndim > *ndim ? a->ndim : *ndim;
        int64_t out[AG_MAX_DIMS];
        for (int d = 0; d < nd; d++) {
            int da = d - (nd - a->ndim), ds = d - (nd - *ndim);
            int64_t sa = da >= 0 ? a->shape[da] : 1, ss = ds >= 0 ? shape[ds] : 1;
            if (sa != ss && sa != 1 && ss != 1) {
                char s1[AG_SHAPE_STR_MAX], s2[AG_SHAPE_STR_MAX];
                return ag_fail("the index tensors cannot broadcast together: %s and %s",
                               ag_shape_str(*ndim, shape, s1, sizeof s1),
                               ag_shape_str(a->ndim, a->shape, s2, sizeof s2)), -1;
            }
            out[d] = sa == 1 ? ss : sa;
        }
        *ndim = nd;
        memcpy(shape, out, (size_t)nd * sizeof *shape);
    }
    return 0;
}

/* The offsets into x of the advanced block's elements (shape ndim):
 * sum over the advanced indices of position * the stride of its axis. */
static int64_t *advanced_table(IndexPlan *p, const Tensor *x, int ndim, const int64_t *shape) {
    int64_t n = ag_shape_prod(shape, 0, ndim);
    int64_t *table = plan_ints(p, n);
    if (!table || n == 0) return table;
    memset(table, 0, (size_t)n * sizeof *table);
    for (int i = 0; i < p->num_adv; i++) {
        const Advanced *a = &p->adv[i];
        int64_t stride = axis_stride(x, a->axis), step[AG_MAX_DIMS], index[AG_MAX_DIMS] = {0};
        int64_t s = 1; /* a's step per block dimension: 0 where it broadcasts */
        for (int d = ndim - 1, da = a->ndim - 1; d >= 0; d--, da--) {
            step[d] = da >= 0 && a->shape[da] != 1 ? s : 0;
            if (da >= 0) s *= a->shape[da];
        }
        int64_t at = 0;
        for (int64_t k = 0; k < n; k++) {
            table[k] += a->pos[at] * stride;
            for (int d = ndim - 1; d >= 0; d--) { /* next block element */
                at += step[d];
                if (++index[d] < shape[d]) break;
                at -= step[d] * shape[d];
                index[d] = 0;
            }
        }
    }
    return table;
}

/* Appends a result axis walking x by step. */
static int add_dim(IndexPlan *p, int64_t size, int64_t step) {
    if (p->num_dims == AG_MAX_DIMS || p->ndim == AG_MAX_DIMS)
        return ag_fail("indexing: the result would have more than %d dimensions", AG_MAX_DIMS), -1;
    p->dims[p->num_dims++] = (IndexDim){size, step, NULL};
    p->shape[p->ndim++] = size;
    return 0;
}

/* Appends the advanced block: its axes to the shape, one walking dim. */
static int add_advanced_block(IndexPlan *p, const Tensor *x) {
    int ndim;
    int64_t shape[AG_MAX_DIMS];
    if (broadcast_advanced(p, &ndim, shape) != 0) return -1;
    if (p->ndim + ndim > AG_MAX_DIMS || p->num_dims == AG_MAX_DIMS)
        return ag_fail("indexing: the result would have more than %d dimensions", AG_MAX_DIMS), -1;
    const int64_t *table = advanced_table(p, x, ndim, shape);
    if (!table) return -1;
    p->dims[p->num_dims++] = (IndexDim){ag_shape_prod(shape, 0, ndim), 0, table};
    memcpy(p->shape + p->ndim, shape, (size_t)ndim * sizeof *shape);
    p->ndim += ndim;
    return 0;
}

/* The axes of x an item uses: none for None, a mask's dimensions. */
static int items_axes(const AgIndex *it) {
    if (it->kind == AG_INDEX_NEWAXIS) return 0;
    if (it->kind == AG_INDEX_MASK) return it->tensor->ndim ? it->tensor->ndim : 1;
    return 1;
}

/* The dimensions of x that the items consume; -1 with a message when they
 * are more than x has. */
static int consumed_dims(const Tensor *x, const AgIndex *items, int n) {
    int used = 0;
    for (int i = 0; i < n; i++) used += items_axes(&items[i]);
    if (used <= x->ndim) return used;
    if (x->ndim == 0) return ag_fail("a 0-d tensor cannot be indexed (it has no dimensions)"), -1;
    return ag_fail("too many indices: %d for a tensor of %d dimension%s", used, x->ndim,
                   x->ndim == 1 ? "" : "s"), -1;
}

/* Tensors and masks; integers are basic, as in PyTorch (a select applied
 * first), where NumPy would count them with the tensors. */
static bool is_advanced(const AgIndex *it) {
    return it->kind == AG_INDEX_TENSOR || it->kind == AG_INDEX_MASK;
}

/* Whether the advanced items stand next to each other once the integers
 * are gone (then their block takes their place; else it comes first). */
static bool advanced_adjacent(const AgIndex *items, int n) {
    int runs = 0;
    bool inside = false;
    for (int i = 0; i < n; i++) {
        if (items[i].kind == AG_INDEX_INT) continue;
        if (is_advanced(&items[i]) && !inside) runs++;
        inside = is_advanced(&items[i]);
    }
    return runs <= 1;
}

/* PyTorch's name for the Function: IndexBackward with tensors, else the
 * last basic step's (x[1:, 0] selects last: SelectBackward). */
static const char *index_name(const AgIndex *items, int n, bool any_tensor) {
    if (any_tensor) return "IndexBackward";
    for (int i = n - 1; i >= 0; i--) {
        if (items[i].kind == AG_INDEX_INT) return "SelectBackward";
        if (items[i].kind == AG_INDEX_NEWAXIS) return "UnsqueezeBackward";
        if (items[i].has_start || items[i].has_stop || items[i].step != 1) return "SliceBackward";
    }
    return "SliceBackward";
}

/* One item of basic or advanced indexing at x's axis *axis. */
static int plan_item(IndexPlan *p, const Tensor *x, const AgIndex *it, int *axis) {
    int64_t size = x->ndim > *axis ? x->shape[*axis] : 1, stride = axis_stride(x, *axis);
    switch (it->kind) {
    case AG_INDEX_NEWAXIS: return add_dim(p, 1, 0);
    case AG_INDEX_SLICE: {
        if (it->step == 0) return ag_fail("a slice step cannot be zero"), -1;
        int64_t first, count;
        slice_span(it, size, &first, &count);
        if (count > 0) p->base += first * stride;
        (*axis)++;
        return add_dim(p, count, it->step * stride);
    }
    case AG_INDEX_INT: {
        int64_t at;
        if (position(it->index, *axis, size, &at) != 0) return -1;
        p->base += at * stride;
        (*axis)++;
        return 0;
    }
    case AG_INDEX_TENSOR: (*axis)++; return add_tensor_index(p, it->tensor, *axis - 1, size);
    case AG_INDEX_MASK: {
        int at = *axis;
        *axis += items_axes(it);
        return add_mask(p, x, it->tensor, at);
    }
    }
    return ag_fail("index: an unknown kind of index"), -1;
}

/* The plan of x[items]: the result's shape and how to walk x for it. */
static int plan_index(IndexPlan *p, const Tensor *x, const AgIndex *items, int n) {
    memset(p, 0, sizeof *p);
    if (n < 0 || (n > 0 && !items)) return ag_fail("index: no index"), -1;
    if (consumed_dims(x, items, n) < 0) return -1;
    bool any_tensor = false;
    for (int i = 0; i < n; i++) any_tensor |= is_advanced(&items[i]);
    bool adjacent = advanced_adjacent(items, n);
    p->name = index_name(items, n, any_tensor);
    if (!adjacent) { /* the block first: the advanced items, then the rest */
        for (int i = 0, axis = 0; i < n; i++) {
            int at = axis;
            axis += items_axes(&items[i]);
            if (is_advanced(&items[i]) && plan_item(p, x, &items[i], &at) != 0) return -1;
        }
        if (add_advanced_block(p, x) != 0) return -1;
    }
    int axis = 0, left = 0; /* advanced items still to plan, when adjacent */
    for (int i = 0; adjacent && i < n; i++) left += is_advanced(&items[i]);
    for (int i = 0; i < n; i++) {
        if (!adjacent && is_advanced(&items[i])) { /* planned above: only its axes */
            axis += items_axes(&items[i]);
            continue;
        }
        if (plan_item(p, x, &items[i], &axis) != 0) return -1;
        if (adjacent && is_advanced(&items[i]) && --left == 0 && add_advanced_block(p, x) != 0)
            return -1;
    }
    for (; axis < x->ndim; axis++) /* the rest taken whole */
        if (add_dim(p, x->shape[axis], axis_stride(x, axis)) != 0) return -1;
    return 0;
}

/* off[k] = x's offset of the result's element k. */
static void fill_offsets(const IndexPlan *p, int64_t numel, int64_t *off) {
    if (numel == 0) return;
    if (p->num_dims == 0) {
        off[0] = p->base;
        return;
    }
    int outer = p->num_dims - 1;
    const IndexDim *last = &p->dims[outer];
    int64_t index[AG_MAX_DIMS] = {0};
    for (;;) {
        int64_t row = p->base;
        for (int d = 0; d < outer; d++)
            row += p->dims[d].table ? p->dims[d].table[index[d]] : index[d] * p->dims[d].step;
        if (last->table)
            for (int64_t j = 0; j < last->size; j++) *off++ = row + last->table[j];
        else
            for (int64_t j = 0; j < last->size; j++) *off++ = row + j * last->step;
        int d = outer - 1;
        while (d >= 0 && ++index[d] == p->dims[d].size) index[d--] = 0;
        if (d < 0) return;
    }
}

/* dx = 0 in x's shape, g added at the offsets (ctx: one per element of
 * the result; twice taken, twice added). */
static void index_backward(Function *self, void *ctx, Tensor *g) {
    const int64_t *off = ctx;
    Tensor *x = self->inputs[0];
    Tensor *dx = ag_tensor_filled_like(x, 0.0);
    if (!dx) return;
    for (int64_t k = 0; k < g->numel; k++) tensor_values(dx)[off[k]] += tensor_values(g)[k];
    ag_accumulate_grad(x, dx);
}

/* The same as a recorded op: index_scatter of g to the offsets, added. */
static int index_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    Tensor *x = self->inputs[0];
    grads[0] = ag_index_scatter(g, ctx, true, x->ndim, x->shape);
    return grads[0] ? 0 : -1;
}

/* Whether the plan's elements are one contiguous run of x, in order: basic
 * items only (no tables), each axis of more than one element stepping by
 * the size of those inside it (x[1], x[0, 2:4], x[1:3] of a matrix; not
 * x[:, 0] or x[::2]). Those results are views, as PyTorch's are. */
static bool plan_contiguous(const IndexPlan *p, int64_t numel) {
    if (p->num_adv > 0 || numel == 0) return false;
    int64_t inner = 1;
    for (int d = p->num_dims - 1; d >= 0; d--) {
        if (p->dims[d].table) return false;
        if (p->dims[d].size == 1) continue;
        if (p->dims[d].step != inner) return false;
        inner *= p->dims[d].size;
    }
    return true;
}

/* x[items] as a view of x's elements from the plan's base offset: it
 * shares x's elements and version counter (docs/engine.md, "Views"). */
static Tensor *index_view(Tensor *x, const IndexPlan *p, int64_t numel) {
    Tensor *v = ag_tensor_view(x, p->ndim, p->shape);
    if (!v) return NULL;
    v->values = tensor_values(x) + p->base;
    v->numel = numel;
    void *ctx = NULL; /* the offsets, for index's backward */
    v = ag_graph_record_named(v, AG_OP_INDEX, p->name, &x, 1, &ctx,
                              (size_t)numel * sizeof(int64_t));
    if (ctx) fill_offsets(p, numel, ctx);
    return v;
}

/* x[items]: a view where the elements are one contiguous run and no graph
 * is being recorded through x (a view of a tensor of a graph would make
 * later in-place writes of x refuse: ag does not regenerate a view's
 * Function, docs/engine.md), else a copy. */
static Tensor *index_impl(Tensor *x, const AgIndex *items, int n, bool view_ok) {
    if (!x) return ag_fail("index: argument is NULL");
    IndexPlan p;
    if (plan_index(&p, x, items, n) != 0) return plan_free(&p), NULL;
    int64_t numel = ag_shape_prod(p.shape, 0, p.ndim);
    bool may_view = view_ok && (!x->requires_grad || !ag_is_grad_enabled());
    if (may_view && plan_contiguous(&p, numel)) {
        Tensor *v = index_view(x, &p, numel);
        plan_free(&p);
        return v;
    }
    Tensor *out = ag_tensor_new(p.ndim, p.shape);
    void *ctx = NULL;
    if (out && x->dtype != AG_FLOAT64) /* recording converts them to the dtype: defined first */
        memset(tensor_values(out), 0, (size_t)out->numel * sizeof(double));
    if (out)
        out = ag_graph_record_named(out, AG_OP_INDEX, p.name, &x, 1, &ctx,
                                    (size_t)(out->numel > 0 ? out->numel : 1) * sizeof(int64_t));
    int64_t *off = !out ? NULL : ctx ? ctx : plan_ints(&p, out->numel);
    if (out && !off) { /* a constant's scratch could not be had */
        tensor_release(out);
        out = NULL;
    }
    if (out) {
        fill_offsets(&p, out->numel, off);
        for (int64_t k = 0; k < out->numel; k++) tensor_values(out)[k] = tensor_values(x)[off[k]];
    }
    bool pytorch_view = p.num_adv == 0; /* basic items only: a view there */
    plan_free(&p);
    return view_ok && pytorch_view ? ag_mark_copy_of(out, x) : out;
}

Tensor *tensor_index(Tensor *x, const AgIndex *items, int n) {
    return index_impl(x, items, n, true);
}

Tensor *tensor_index_copy(Tensor *x, const AgIndex *items, int n) {
    return index_impl(x, items, n, false);
}

const AgOpInfo ag_op_index = {
    .id = AG_OP_INDEX, .name = "index", .signature = "index(input, indices)", .params = "TT",
    .help = "x[...]: integers, slices, None, integer tensors and masks (syntax only)",
    .rule = "grad_x = g scattered back to the indexed elements (added where one is taken twice)",
    .backward_name = "IndexBackward", .backward = index_backward, .graph_backward = index_graph,
    .flags = AG_OP_HIDDEN | AG_OP_SAVES_NOTHING,
};

/* ======================================================================
 * index_scatter: out = zeros of a shape with g's element k put at offset
 * off[k], added (index's gradient: PyTorch's index_put_ of g on zeros
 * with accumulate) or copied (select's: a copy into the slice). An op of
 * its own so that those gradients can be differentiated again; it is
 * linear in g:
 *   grad_g = gg gathered at the offsets (an index Function, the offsets
 *   its ctx as its own: twice put, twice gathered; added or copied alike)
 * Its first-order backward is the same (ag_apply_by_graph).
 * ====================================================================== */

/* x's elements at off (one per element of shape, each within x), recorded
 * as index (name: its Function's) with the offsets as its ctx. */
static Tensor *gather_at(Tensor *x, const int64_t *off, int ndim, const int64_t *shape,
                         const char *name) {
    Tensor *out = ag_tensor_new(ndim, shape);
    if (!out) return NULL;
    for (int64_t k = 0; k < out->numel; k++) tensor_values(out)[k] = tensor_values(x)[off[k]];
    int64_t n = out->numel;
    void *ctx;
    out = ag_graph_record_named(out, AG_OP_INDEX, name, &x, 1, &ctx,
                                (size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    if (ctx) memcpy(ctx, off, (size_t)n * sizeof *off);
    return out;
}

/* ctx: the offsets, one per element of g (index's ctx too). */
static int scatter_graph(Function *self, void *ctx, Tensor *gg, Tensor **grads) {
    Tensor *g = self->inputs[0];
    grads[0] = gather_at(gg, ctx, g->ndim, g->shape, "IndexBackward");
    return grads[0] ? 0 : -1;
}

static void scatter_backward(Function *self, void *ctx, Tensor *gg) {
    ag_apply_by_graph(self, ctx, gg, scatter_graph);
}

Tensor *ag_index_scatter(Tensor *g, const int64_t *off, bool accumulate, int ndim,
                         const int64_t *shape) {
    if (!g) return ag_fail("index_scatter: argument is NULL");
    Tensor *out = ag_tensor_new(ndim, shape);
    if (!out) return NULL;
    memset(tensor_values(out), 0, (size_t)out->numel * sizeof(double));
    for (int64_t k = 0; k < g->numel; k++) {
        AG_ASSERT(off[k] >= 0 && off[k] < out->numel, "index_scatter: an offset is in the shape");
        if (accumulate) tensor_values(out)[off[k]] += tensor_values(g)[k];
        else tensor_values(out)[off[k]] = tensor_values(g)[k];
    }
    void *ctx;
    int64_t n = g->numel;
    out = ag_graph_record(out, AG_OP_INDEX_SCATTER, &g, 1, &ctx,
                          (size_t)(n > 0 ? n : 1) * sizeof *off);
    if (ctx) memcpy(ctx, off, (size_t)n * sizeof *off);
    return out;
}

const AgOpInfo ag_op_index_scatter = {
    .id = AG_OP_INDEX_SCATTER, .name = "index_scatter",
    .signature = "index_scatter(grad, indices)", .params = "TT",
    .help = "grad put at the indexed elements of zeros: x[...]'s gradient, an op so it can be "
            "differentiated",
    .rule = "grad_grad = gg at the indexed elements", .backward_name = "IndexPutBackward",
    .backward = scatter_backward, .graph_backward = scatter_graph,
    .flags = AG_OP_HIDDEN | AG_OP_SAVES_NOTHING,
};

/* Whether values (shape) broadcast to the shape (ndim) without growing. */
static bool broadcasts_to(const Tensor *v, int ndim, const int64_t *shape) {
    if (v->ndim > ndim) return false;
    for (int d = 0; d < v->ndim; d++) {
        int64_t sv = v->shape[v->ndim - 1 - d], s = shape[ndim - 1 - d];
        if (sv != s && sv != 1) return false;
    }
    return true;
}

/* values without the leading dimensions of size 1 beyond ndim: PyTorch's
 * x[0] = v of a (3,) x[0] and a (1, 3) v writes v's one row. A header on
 * the stack, borrowing values' data (only read, by ag_broadcast_to):
 * unpacked first, since the copy's tensor_values would otherwise widen the
 * shared elements and leave values marked packed. */
static Tensor drop_leading_ones(const Tensor *values, int ndim) {
    (void)tensor_values(values);
    Tensor v = *values;
    int lead = 0;
    while (v.ndim - lead > ndim && v.shape[lead] == 1) lead++;
    v.ndim -= lead;
    memmove(v.shape, v.shape + lead, (size_t)v.ndim * sizeof v.shape[0]);
    return v;
}

/* ======================================================================
 * index_put: x[items] = v as a recorded op (x an intermediate, or v a
 * tensor that requires grad): a copy of x with v written at the indexed
 * elements. PyTorch's CopySlices, or IndexPutBackward with a tensor or a
 * mask among the items; the shell writes the copy back into x
 * (ag_rebase_in_place), so x's history continues through it:
 *   grad_x = g, 0 at the written elements
 *   grad_v = g gathered at them (each, where one is written twice), summed
 *            to v's shape by the engine
 * Both are recorded ops (where and index), so it differentiates again.
 * ====================================================================== */

typedef struct {
    int ndim;                   /* the written block's shape, with v's leading 1s */
    int64_t shape[AG_MAX_DIMS];
    int64_t off[];              /* x's offset of each element of the block */
} PutCtx;

static int put_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    const PutCtx *c = ctx;
    GradTemps t = {0};
    int64_t numel = ag_shape_prod(c->shape, 0, c->ndim);
    if (ag_grad_wanted(self, 0)) {
        Tensor *written = ag_grad_tmp(&t, ag_tensor_new_like(g)); /* a constant mask */
        if (written) {
            memset(tensor_values(written), 0, (size_t)written->numel * sizeof(double));
            for (int64_t k = 0; k < numel; k++) tensor_values(written)[c->off[k]] = 1.0;
            written->dtype = AG_BOOL;
        }
        grads[0] = ag_grad_out(&t, tensor_where(written, ag_grad_num(&t, 0.0), g));
    }
    if (ag_grad_wanted(self, 1))
        grads[1] = ag_grad_out(&t, gather_at(g, c->off, c->ndim, c->shape, "IndexBackward"));
    return ag_grad_done(&t);
}

static void put_backward(Function *self, void *ctx, Tensor *g) {
    ag_apply_by_graph(self, ctx, g, put_graph);
}

/* The Function's name: PyTorch's CopySlices writes a slice of basic items;
 * a tensor or a mask among them makes an index_put_. */
static const char *put_name(const AgIndex *items, int n) {
    for (int i = 0; i < n; i++)
        if (items[i].kind == AG_INDEX_TENSOR || items[i].kind == AG_INDEX_MASK)
            return "IndexPutBackward";
    return "CopySlices";
}

/* out (a copy of x) recorded as index_put of x and given, with its ctx;
 * the offsets: the ctx's, or (a constant) a scratch buffer of the plan. */
static Tensor *record_put(Tensor *out, Tensor *x, Tensor *given, const AgIndex *items, int n,
                          IndexPlan *p, int64_t numel, int64_t **off) {
    PutCtx *c = NULL;
    size_t size = sizeof *c + (size_t)(numel > 0 ? numel : 1) * sizeof(int64_t);
    out = ag_graph_record_named(out, AG_OP_INDEX_PUT, put_name(items, n), (Tensor *[]){x, given},
                                2, (void **)&c, size);
    if (c) { /* the block's shape as v's gradient has it: v's leading 1s kept */
        int lead = given->ndim > p->ndim ? given->ndim - p->ndim : 0;
        c->ndim = lead + p->ndim;
        for (int d = 0; d < c->ndim; d++) c->shape[d] = d < lead ? 1 : p->shape[d - lead];
    }
    *off = !out ? NULL : c ? c->off : plan_ints(p, numel);
    return out;
}

Tensor *tensor_index_put(Tensor *x, const AgIndex *items, int n, Tensor *given) {
    if (!x || !given) return ag_fail("index: argument is NULL");
    IndexPlan p;
    if (plan_index(&p, x, items, n) != 0) return plan_free(&p), NULL;
    Tensor stripped = drop_leading_ones(given, p.ndim);
    const Tensor *values = &stripped;
    char sv[AG_SHAPE_STR_MAX], sp[AG_SHAPE_STR_MAX];
    Tensor *out = NULL, *v = NULL;
    int64_t numel = ag_shape_prod(p.shape, 0, p.ndim);
    int64_t *off = NULL;
    if (!broadcasts_to(values, p.ndim, p.shape))
        ag_fail("shape mismatch: a value of shape %s cannot be broadcast to the indexed "
                "elements' shape %s", tensor_shape_str(values, sv, sizeof sv),
                ag_shape_str(p.ndim, p.shape, sp, sizeof sp));
    else if ((v = ag_broadcast_to(values, p.ndim, p.shape)) && (out = ag_tensor_new_like(x))) {
        memcpy(tensor_values(out), tensor_values(x), (size_t)x->numel * sizeof *tensor_values(out));
        out = record_put(out, x, given, items, n, &p, numel, &off);
    }
    if (off) {
        if (values->dtype != x->dtype) /* v is ours: its values as x's dtype holds them */
            ag_convert_from(tensor_values(v), numel, (AgDtype)values->dtype, (AgDtype)x->dtype);
        fill_offsets(&p, numel, off);
        for (int64_t k = 0; k < numel; k++) tensor_values(out)[off[k]] = tensor_values(v)[k];
    } else if (out) { /* a constant's scratch could not be had */
        tensor_release(out);
        out = NULL;
    }
    tensor_release(v);
    plan_free(&p);
    return out;
}

const AgOpInfo ag_op_index_put = {
    .id = AG_OP_INDEX_PUT, .name = "index_put", .signature = "index_put(input, indices, values)",
    .params = "TTT", .help = "x[...] = v on a tensor of the graph (syntax only)",
    .rule = "grad_x = g, 0 at the written elements; grad_v = g at them, summed to v's shape",
    .backward_name = "IndexPutBackward", .backward = put_backward, .graph_backward = put_graph,
    .dtype_rule = AG_DTYPE_FIRST, .flags = AG_OP_HIDDEN | AG_OP_SAVES_NOTHING,
};
