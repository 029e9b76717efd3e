/*
 * graphsnap.c — the last graph, kept for looking: a snapshot of the graph a
 * backward differentiated (nodes, values, gradients, each edge's Jacobian and
 * the gradient sent along it), taken while the arena still holds the graph
 * and kept after the arena is freed, for a shell's :dot and :why. Off by
 * default; backward feeds it through four calls (internal.h), each behind one
 * flag, so a backward without it pays a branch.
 */
#include "internal.h"

#include <math.h>
#include <string.h>

_Thread_local bool ag_snap_keeping;
_Thread_local int64_t ag_snap_bytes;

static _Thread_local AgNameFn namer;
static _Thread_local void *namer_ctx;
static _Thread_local AgGraphSnapshot *last;

/* The snapshot being taken, and what it needs only while the graph lives:
 * each node's tensor and Function, and a map from both to the node. */
static _Thread_local struct {
    AgGraphSnapshot *snap;
    int cap_nodes, cap_edges;
    const Tensor **tensors;
    Function **fns;
    const void **keys;   /* open addressing: a Tensor or a Function */
    int *slots;          /* the node of keys[i] */
    int cap_keys;        /* a power of two, at least twice the keys */
    int applying;        /* the node whose Function is being applied, or -1 */
} taking;

/* ======================================================================
 * Memory: every allocation counted, and refused past the memory limit
 * ====================================================================== */

static void *snap_alloc(size_t size) {
    AgGraphSnapshot *s = taking.snap;
    if (!ag_memory_allows((int64_t)size)) return NULL;
    void *p = calloc(1, size);
    if (p && s) s->bytes += (int64_t)size, ag_snap_bytes += (int64_t)size;
    return p;
}

static void values_free(AgSnapValues *v) { free(v->values); }

static void snapshot_free(AgGraphSnapshot *s) {
    if (!s) return;
    for (int i = 0; i < s->num_nodes; i++) {
        free(s->nodes[i].name);
        values_free(&s->nodes[i].value);
        values_free(&s->nodes[i].grad);
    }
    for (int i = 0; i < s->num_edges; i++) {
        values_free(&s->edges[i].flow);
        free(s->edges[i].jacobian);
    }
    free(s->nodes);
    free(s->edges);
    free(s);
}

/* ag_snap_bytes, after a snapshot is made, grown or freed. */
static void bytes_recount(void) {
    ag_snap_bytes = (last ? last->bytes : 0) + (taking.snap ? taking.snap->bytes : 0);
}

/* ======================================================================
 * The map from tensors and Functions to nodes
 * ====================================================================== */

static size_t key_hash(const void *key, int cap) {
    uintptr_t h = (uintptr_t)key >> 4;
    h *= (uintptr_t)0x9E3779B97F4A7C15u;
    return (size_t)(h >> 7) & (size_t)(cap - 1);
}

static int key_find(const void *key) {
    if (!taking.keys) return -1;
    for (size_t i = key_hash(key, taking.cap_keys);; i = (i + 1) & (size_t)(taking.cap_keys - 1)) {
        if (!taking.keys[i]) return -1;
        if (taking.keys[i] == key) return taking.slots[i];
    }
}

/* Room is made beforehand (nodes_reserve): at most two keys per node. */
static void key_put(const void *key, int node) {
    size_t i = key_hash(key, taking.cap_keys);
    while (taking.keys[i]) i = (i + 1) & (size_t)(taking.cap_keys - 1);
    taking.keys[i] = key;
    taking.slots[i] = node;
}

/* ======================================================================
 * Taking it: the walk, nearest the loss first
 * ====================================================================== */

/* v describes n doubles: a summary, and the values when few. */
static void values_take(AgSnapValues *v, const double *x, int64_t n) {
    values_free(v);
    *v = (AgSnapValues){.numel = n, .min = n ? x[0] : 0, .max = n ? x[0] : 0};
    double sum_sq = 0;
    bool nan = false;
    for (int64_t i = 0; i < n; i++) {
        nan |= isnan(x[i]);
        if (x[i] < v->min) v->min = x[i];
        if (x[i] > v->max) v->max = x[i];
        sum_sq += x[i] * x[i];
    }
    v->norm = sqrt(sum_sq);
    if (nan) v->min = v->max = v->norm = NAN;
    if (n > 0 && n <= AG_SNAP_MAX_ELEMS && (v->values = snap_alloc((size_t)n * sizeof *x)))
        memcpy(v->values, x, (size_t)n * sizeof *x);
}

/* Room for every key the walk may add, made at the start (the tables
 * live while backward runs); the nodes grow as they come (they are kept,
 * counted against the limit). False when memory runs out. */
static bool tables_make(void) {
    int cap = AG_SNAP_MAX_NODES;
    taking.cap_keys = 4 * cap > 16 ? 1 << (int)ceil(log2(4.0 * cap)) : 16;
    taking.snap = calloc(1, sizeof *taking.snap);
    taking.tensors = calloc((size_t)cap, sizeof *taking.tensors);
    taking.fns = calloc((size_t)cap, sizeof *taking.fns);
    taking.keys = calloc((size_t)taking.cap_keys, sizeof *taking.keys);
    taking.slots = calloc((size_t)taking.cap_keys, sizeof *taking.slots);
    if (!taking.snap || !taking.tensors || !taking.fns || !taking.keys || !taking.slots)
        return false;
    taking.snap->bytes = (int64_t)sizeof *taking.snap;
    bytes_recount();
    taking.cap_nodes = 0;
    taking.cap_edges = 0;
    return true;
}

static void tables_free(void) {
    free(taking.tensors);
    free(taking.fns);
    free((void *)taking.keys);
    free(taking.slots);
    taking.tensors = NULL;
    taking.fns = NULL;
    taking.keys = NULL;
    taking.slots = NULL;
    taking.applying = -1;
}

/* Doubles the room for nodes (up to AG_SNAP_MAX_NODES). */
static bool nodes_grow(void) {
    AgGraphSnapshot *s = taking.snap;
    int cap = taking.cap_nodes ? taking.cap_nodes * 2 : 16;
    if (cap > AG_SNAP_MAX_NODES) cap = AG_SNAP_MAX_NODES;
    int64_t more = (int64_t)(cap - taking.cap_nodes) * (int64_t)sizeof *s->nodes;
    if (!ag_memory_allows(more)) return false;
    AgSnapNode *bigger = realloc(s->nodes, (size_t)cap * sizeof *bigger);
    if (!bigger) return false;
    memset(bigger + taking.cap_nodes, 0, (size_t)more);
    s->nodes = bigger;
    s->bytes += more;
    ag_snap_bytes += more;
    taking.cap_nodes = cap;
    return true;
}

/* t's node, added (with its value and name) the first time; -1 past the cap. */
static int node_of(const Tensor *t) {
    int id = key_find(t);
    if (id >= 0) return id;
    AgGraphSnapshot *s = taking.snap;
    if (s->num_nodes == AG_SNAP_MAX_NODES) {
        s->truncated = true;
        return -1;
    }
    if (s->num_nodes == taking.cap_nodes && !nodes_grow()) {
        s->truncated = true; /* the memory limit: what is kept is drawn */
        return -1;
    }
    id = s->num_nodes++;
    AgSnapNode *n = &s->nodes[id];
    n->ndim = t->ndim;
    memcpy(n->shape, t->shape, sizeof n->shape);
    n->requires_grad = t->requires_grad;
    n->first_edge = -1;
    values_take(&n->value, tensor_values(t), t->numel);
    const char *name = namer ? namer(t, namer_ctx) : NULL;
    if (name && (n->name = snap_alloc(strlen(name) + 1))) strcpy(n->name, name);
    taking.tensors[id] = t;
    key_put(t, id);
    if (tensor_has_graph(t)) {
        n->op = t->grad_fn->name;
        taking.fns[id] = t->grad_fn;
        key_put(t->grad_fn, id);
    } else if (!tensor_is_leaf(t)) { /* made by an op whose graph a backward freed */
        n->op = t->op_name;
        n->cut = true;
    }
    return id;
}

/* Node id's edges, one per operand of its Function, added at the end
 * (so each node's edges are together). False when memory runs out. */
static bool edges_add(int id) {
    AgGraphSnapshot *s = taking.snap;
    const Function *fn = taking.fns[id];
    if (s->num_edges + fn->num_inputs > taking.cap_edges) {
        int cap = taking.cap_edges ? taking.cap_edges * 2 : 64;
        while (cap < s->num_edges + fn->num_inputs) cap *= 2;
        if (!ag_memory_allows((int64_t)(cap - taking.cap_edges) * (int64_t)sizeof *s->edges))
            return false;
        AgSnapEdge *bigger = realloc(s->edges, (size_t)cap * sizeof *bigger);
        if (!bigger) return false;
        memset(bigger + taking.cap_edges, 0, (size_t)(cap - taking.cap_edges) * sizeof *bigger);
        s->bytes += (int64_t)(cap - taking.cap_edges) * (int64_t)sizeof *bigger;
        ag_snap_bytes += (int64_t)(cap - taking.cap_edges) * (int64_t)sizeof *bigger;
        s->edges = bigger;
        taking.cap_edges = cap;
    }
    s->nodes[id].first_edge = s->num_edges;
    for (int i = 0; i < fn->num_inputs; i++) {
        int to = node_of(fn->inputs[i]);
        if (to < 0) {
            s->nodes[id].cut = true;
            continue;
        }
        s->edges[s->num_edges++] = (AgSnapEdge){.from = id, .to = to, .input = i};
        s->nodes[id].num_edges++;
    }
    return true;
}

/* Whether edge e of a node of rows elements gets a Jacobian: small, and
 * into a tensor that requires grad. */
static bool jacobian_wanted(const AgSnapEdge *e, int64_t rows) {
    const AgSnapNode *to = &taking.snap->nodes[e->to];
    return to->requires_grad && rows * to->value.numel <= AG_SNAP_MAX_JACOBIAN;
}

/* Row r of each wanted Jacobian of node id: fn's backward seeded with the
 * one-hot of output element r. False when it cannot be computed. */
static bool jacobian_row(int id, int64_t r, Tensor **grads) {
    AgGraphSnapshot *s = taking.snap;
    const AgSnapNode *n = &s->nodes[id];
    Function *fn = taking.fns[id];
    Tensor *seed = ag_tensor_filled_like(fn->output, 0.0);
    if (seed) tensor_values(seed)[r] = 1.0;
    if (seed && fn->output->dtype) tensor_set_dtype(seed, (AgDtype)fn->output->dtype);
    int rc = seed ? ag_function_vjp(fn, seed, grads) : -1;
    tensor_release(seed);
    for (int e = n->first_edge; rc == 0 && e < n->first_edge + n->num_edges; e++) {
        AgSnapEdge *edge = &s->edges[e];
        const Tensor *g = grads[edge->input];
        int64_t cols = s->nodes[edge->to].value.numel;
        if (edge->jacobian && g && g->numel == cols)  /* none: no gradient, a zero row */
            memcpy(edge->jacobian + r * cols, tensor_values(g), (size_t)cols * sizeof(double));
    }
    for (int i = 0; rc == 0 && i < fn->num_inputs; i++) tensor_release(grads[i]);
    return rc == 0;
}

/* Each edge of node id whose Jacobian is small: one backward of its
 * Function per output element. An edge keeps none when any row fails. */
static void jacobians_of(int id) {
    AgGraphSnapshot *s = taking.snap;
    const AgSnapNode *n = &s->nodes[id];
    Function *fn = taking.fns[id];
    int64_t rows = n->value.numel;
    bool wanted = false;
    for (int e = n->first_edge; e < n->first_edge + n->num_edges; e++)
        wanted |= jacobian_wanted(&s->edges[e], rows);
    Tensor *inline_grads[AG_INLINE_INPUTS], **grads = inline_grads;
    if (!wanted || !fn->output ||
        (fn->num_inputs > AG_INLINE_INPUTS && !(grads = calloc((size_t)fn->num_inputs, sizeof *grads))))
        return;
    for (int e = n->first_edge; e < n->first_edge + n->num_edges; e++) {
        AgSnapEdge *edge = &s->edges[e];
        if (jacobian_wanted(edge, rows))
            edge->jacobian = snap_alloc((size_t)(rows * s->nodes[edge->to].value.numel) * sizeof(double));
    }
    bool ok = true;
    for (int64_t r = 0; ok && r < rows; r++) ok = jacobian_row(id, r, grads);
    for (int e = n->first_edge; !ok && e < n->first_edge + n->num_edges; e++) {
        free(s->edges[e].jacobian);
        s->edges[e].jacobian = NULL;
    }
    if (grads != inline_grads) free(grads);
}

void ag_snap_begin(Tensor *const *ys, int n) {
    bool failed_before = ag_alloc_failed();
    taking.applying = -1;
    if (!tables_make()) {
        ag_snap_end(false, NULL);
        return;
    }
    for (int i = 0; i < n; i++) node_of(ys[i]);
    bool ok = true;
    for (int id = 0; ok && id < taking.snap->num_nodes; id++)
        if (taking.fns[id]) ok = edges_add(id);
    if (!ok) {
        ag_snap_end(false, NULL);
        return;
    }
    if (taking.snap->num_nodes <= AG_SNAP_LOCAL_NODES)
        for (int id = 0; id < taking.snap->num_nodes; id++)
            if (taking.fns[id]) jacobians_of(id);
    /* A failed allocation here is the snapshot's loss, not backward's. */
    if (!failed_before) ag_alloc_clear_failure();
    ag_observers |= AG_OBSERVE_SNAPSHOT;
}

/* ======================================================================
 * Fed by backward, then kept
 * ====================================================================== */

/* Every gradient handed over until the next apply comes from fn's (the
 * seeds come before the snapshot begins, the leaves' hooks accumulate none). */
void ag_snap_apply(const Function *fn, const Tensor *grad_output) {
    taking.applying = fn ? key_find(fn) : -1;
    if (taking.applying >= 0 && grad_output)
        values_take(&taking.snap->nodes[taking.applying].grad, tensor_values(grad_output),
                    grad_output->numel);
}

void ag_snap_flow(const Tensor *t, const Tensor *grad) {
    int from = taking.applying, to = from >= 0 ? key_find(t) : -1;
    if (to < 0) return;
    const AgSnapNode *n = &taking.snap->nodes[from];
    for (int e = n->first_edge; e < n->first_edge + n->num_edges; e++) {
        AgSnapEdge *edge = &taking.snap->edges[e];
        if (edge->to == to && edge->flow.numel == 0) { /* x * x: the first operand first */
            values_take(&edge->flow, tensor_values(grad), grad->numel);
            return;
        }
    }
}

void ag_snap_end(bool ok, const Tensor *staged) {
    ag_observers &= ~(unsigned)AG_OBSERVE_SNAPSHOT;
    AgGraphSnapshot *s = taking.snap;
    for (const Tensor *t = staged; ok && s && t; t = t->staged_next) {
        int id = key_find(t);
        if (id >= 0 && !taking.fns[id] && t->staged_grad)
            values_take(&s->nodes[id].grad, tensor_values(t->staged_grad), t->staged_grad->numel);
    }
    tables_free();
    taking.snap = NULL;
    if (ok) {
        snapshot_free(last);
        last = s;
    } else {
        snapshot_free(s);
    }
    bytes_recount();
}

void ag_set_keep_graph(bool keep, AgNameFn fn, void *ctx) {
    ag_snap_keeping = keep;
    namer = fn;
    namer_ctx = ctx;
    if (!keep) ag_forget_graph();
}

const AgGraphSnapshot *ag_last_graph(void) { return last; }

AgGraphSnapshot *ag_graph_take(Tensor *const *ys, int n) {
    if (taking.snap || n <= 0) return NULL; /* a backward is taking one */
    for (int i = 0; i < n; i++)
        if (!ys[i]) return NULL;
    ag_snap_begin(ys, n);
    ag_observers &= ~(unsigned)AG_OBSERVE_SNAPSHOT;
    AgGraphSnapshot *s = taking.snap;
    tables_free();
    taking.snap = NULL;
    if (s) s->bytes = 0; /* the caller's now, outside the limit's count */
    bytes_recount();
    return s;
}

void ag_graph_snapshot_free(AgGraphSnapshot *s) { snapshot_free(s); }

void ag_forget_graph(void) {
    snapshot_free(last);
    last = NULL;
    bytes_recount();
}
