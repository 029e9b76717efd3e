/*
 * autograd.c — Function, the arena, graph recording (and grad mode, and the
 * release of what failed statements left), the backward loop (with its
 * staged leaf gradients and its ways to stop: out of memory, an interrupt,
 * a nan under anomaly mode) and ag_accumulate_grad. Nothing else (the
 * design's file organisation; anomaly.c words what anomaly mode finds).
 *
 * The arena is thread-local and owned by backward: every Function (and its
 * ctx) recorded since the last backward lives in it, and backward frees it
 * all at once (unless it retains the graph, for another backward). Forward without backward therefore keeps the arena: that is
 * the REPL-mode caveat of the design, named in docs/engine.md, not fixed here.
 */
#include "internal.h"

#include <math.h>
#include <string.h>

/* ======================================================================
 * The arena: a list of chunks, bumped; kept for reuse after a free
 * ====================================================================== */

typedef struct Chunk {
    struct Chunk *next;
    size_t size, used;
    _Alignas(16) unsigned char bytes[];
} Chunk;

enum {
    CHUNK_BYTES = 64 * 1024,  /* a standard chunk */
    KEEP_CHUNKS = 16,         /* standard chunks kept for reuse after a free */
    TRIM_AFTER_BYTES = 8 << 20, /* a graph this big returns memory to the system */
    KEPT_ARENA_BYTES = 64 << 20, /* past this, backward frees the arena even with a
                                    graph alive in it (finish_backward) */
};

typedef struct {
    Chunk *chunks;            /* in use, current chunk first */
    Chunk *spare;             /* empty standard chunks kept for reuse */
    Function *functions;      /* every live Function, newest first */
    int64_t num_functions;
    int64_t num_freed;        /* of them, marked AG_FN_FREED by a backward */
    int64_t bytes_used, capacity;
    uint64_t generation;      /* bumped by every free; tensors record it */
    uint64_t visit_epoch;     /* backward's reachability stamps */
    int64_t sinks;            /* Functions with no consumer (pending_count 0) */
    uint32_t next_seq;        /* the seq of the next Function recorded */
    bool recount;             /* construction counts cannot be trusted (below) */
    uint64_t writes_before;   /* ag_inplace_writes when its first Function was recorded: */
                              /* with none since, backward skips the version checks */
} Arena;

static _Thread_local Arena arena;

/* A custom Function's client ctx goes with the Function (ops/custom.c);
 * one compare for every other. */
static inline void release_client(Function *fn) {
    if (fn->apply == ag_op_custom.backward) ag_custom_release(fn);
}

/* Generations are unique across the nested arenas of ag_graph_push, so a
 * tensor from an outer graph never passes for one of the inner graph. */
static _Thread_local uint64_t last_generation;

enum { MAX_GRAPH_DEPTH = 8 };
static _Thread_local Arena outer[MAX_GRAPH_DEPTH];
static _Thread_local int graph_depth;

static Chunk *chunk_new(size_t size) {
    size_t chunk_size = size > CHUNK_BYTES ? size : CHUNK_BYTES;
    Chunk *c = malloc(sizeof(Chunk) + chunk_size);
    if (!c) return NULL;
    c->size = chunk_size;
    c->used = 0;
    arena.capacity += (int64_t)chunk_size;
    return c;
}

static void *arena_alloc(size_t size) {
    size = (size + 15) & ~(size_t)15;
    Chunk *c = arena.chunks;
    if (!c || c->size - c->used < size) {
        if (arena.spare && size <= CHUNK_BYTES) {
            c = arena.spare;
            arena.spare = c->next;
        } else if (!(c = chunk_new(size))) {
            return NULL;
        }
        c->next = arena.chunks;
        arena.chunks = c;
    }
    void *p = c->bytes + c->used;
    c->used += size;
    arena.bytes_used += (int64_t)size;
    return p;
}

/* Gives back the arena's memory from p (where a Function starts) to the top:
 * everything allocated after it is dead. Chunks emptied go to the spares. */
static void arena_release_top(const void *p) {
    const unsigned char *b = p;
    Chunk *c;
    while ((c = arena.chunks)) {
        bool holds = b >= c->bytes && b < c->bytes + c->used;
        size_t keep = holds ? (size_t)(b - c->bytes) : 0;
        arena.bytes_used -= (int64_t)(c->used - keep);
        c->used = keep;
        if (keep > 0) return;
        arena.chunks = c->next;
        if (c->size == CHUNK_BYTES) {
            c->next = arena.spare;
            arena.spare = c;
        } else {
            arena.capacity -= (int64_t)c->size;
            free(c);
        }
        if (holds) return;
    }
}

/* Frees every Function (releasing what they retained) and keeps up to
 * KEEP_CHUNKS standard chunks for the next graph. */
static void arena_free(void) {
    ag_anomaly_forget(arena.generation); /* nothing when anomaly mode never ran */
    /* Bump first: tensors freed below must not reach back into the arena. */
    arena.generation = ++last_generation;
    Function *fn = arena.functions;
    arena.functions = NULL;
    arena.num_functions = 0;
    arena.num_freed = 0;
    arena.sinks = 0;
    arena.recount = false;
    arena.next_seq = 0;
    for (; fn; fn = fn->arena_next) {
        release_client(fn);
        for (int i = 0; i < fn->num_inputs; i++) tensor_release(fn->inputs[i]);
        /* References handed over by applied consumers of a Function that
         * never ran (a backward that stopped). */
        for (; fn->release_output > 0; fn->release_output--) tensor_release(fn->output);
    }
    int kept = 0;
    for (Chunk *c = arena.spare; c; c = c->next) kept++;
    Chunk *c = arena.chunks;
    while (c) {
        Chunk *next = c->next;
        if (c->size == CHUNK_BYTES && kept < KEEP_CHUNKS) {
            c->used = 0;
            c->next = arena.spare;
            arena.spare = c;
            kept++;
        } else {
            arena.capacity -= (int64_t)c->size;
            free(c);
        }
        c = next;
    }
    arena.chunks = NULL;
    arena.bytes_used = 0;
}

void ag_graph_free(void) { arena_free(); }

int64_t ag_arena_bytes_in_use(void) { return arena.bytes_used; }

void ag_arena_trim(void) {
    for (Chunk *c = arena.spare, *next; c; c = next) {
        next = c->next;
        arena.capacity -= (int64_t)c->size;
        free(c);
    }
    arena.spare = NULL;
}

int ag_graph_push(void) {
    if (graph_depth == MAX_GRAPH_DEPTH)
        return ag_fail("graphs nested more than %d deep", MAX_GRAPH_DEPTH), -1;
    outer[graph_depth++] = arena;
    arena = (Arena){.generation = ++last_generation};
    return 0;
}

void ag_graph_pop(void) {
    if (graph_depth == 0) return;
    arena_free();
    ag_arena_trim();
    arena = outer[--graph_depth];
}

bool tensor_has_graph(const Tensor *t) {
    return t->grad_fn != NULL && t->graph_generation == arena.generation &&
           !(t->grad_fn->checks_versions & AG_FN_FREED);
}

/* Whether t's Function is in an arena set aside by ag_graph_push. */
static bool in_outer_graph(const Tensor *t) {
    for (int d = 0; d < graph_depth; d++)
        if (t->graph_generation == outer[d].generation) return true;
    return false;
}

void ag_graph_output_freed(const Tensor *t) {
    if (t->graph_generation == arena.generation || in_outer_graph(t)) t->grad_fn->output = NULL;
}

int64_t ag_arena_sinks(void) { return arena.sinks; }

/* Whether a Function not yet applied (or retained) takes t as an input. */
static bool consumed(const Tensor *t) {
    for (const Function *fn = arena.functions; fn; fn = fn->arena_next)
        for (int i = 0; i < fn->num_inputs; i++)
            if (fn->inputs[i] == t) return true;
    return false;
}

int tensor_detach_in_place(Tensor *t) {
    if (!t) return ag_fail("detach_: tensor is NULL"), -1;
    if (t->copy_of)
        return ag_fail("Can't detach views in-place. Use detach() instead."), -1;
    if (t->grad_fn && consumed(t))
        return ag_fail("ag cannot detach_() a tensor an op has already used (that op's "
                       "gradient would stop here): write y = y.detach() for what follows"), -1;
    if (t->grad_fn) ag_graph_output_freed(t);
    t->grad_fn = NULL;
    t->requires_grad = t->retains_grad = false;
    return 0;
}

int64_t ag_graph_size(void) { return arena.num_functions; }

AgStats ag_stats(void) {
    AgStats s;
    ag_stats_tensors(&s);
    s.arena_functions = arena.num_functions;
    s.arena_bytes = arena.bytes_used;
    s.arena_capacity = arena.capacity;
    s.generation = arena.generation;
    return s;
}

/* ======================================================================
 * Graph construction
 * ====================================================================== */

static _Thread_local bool grad_disabled; /* grad mode is on unless set off */
/* Anomaly mode (ag_set_detect_anomaly): backward checks every gradient a
 * Function produces for nan, and record notes where each forward ran. */
static _Thread_local bool anomaly_mode;
/* A create_graph backward is running: the Functions its graph_backwards
 * record must not count as consumers of the graph being differentiated
 * (its pending counts are in use), and gradients are summed by recorded
 * adds (ag_accumulate_grad). */
static _Thread_local bool creating_graph;

bool ag_set_grad_enabled(bool enabled) {
    bool was = !grad_disabled;
    grad_disabled = !enabled;
    return was;
}

bool ag_is_grad_enabled(void) { return !grad_disabled; }

bool ag_any_requires_grad(Tensor *const *inputs, int n) {
    for (int i = 0; i < n; i++)
        if (inputs[i]->requires_grad) return true;
    return false;
}

/* What a Function's backward reads, as Function.checks_versions: every
 * input and the output, or for an op with AG_OP_SAVES_READS only the
 * inputs read by the gradients of those that require grad (x * c with c
 * constant reads c alone, so changing x in place afterwards is harmless,
 * as in PyTorch, which saves only those); and whether a ctx follows.
 * Made before the Function is written and stored with it (op_overhead:
 * setting bits on the Function one by one cost 8 ns an op). */
static uint8_t saved_reads(const AgOpInfo *info, Tensor *const *inputs, int n, size_t ctx_size) {
    unsigned ctx = ctx_size > 0 ? AG_FN_HAS_CTX : 0;
    if (info->flags & AG_OP_SAVES_NOTHING) return (uint8_t)ctx;
    if (!(info->flags & AG_OP_SAVES_READS))
        return (uint8_t)(ctx | AG_CHECKS_INPUTS | AG_CHECKS_OUTPUT);
    unsigned reads = ctx;
    for (int j = 0; j < n && j < AG_INLINE_INPUTS; j++)
        if (inputs[j] && inputs[j]->requires_grad) reads |= info->grad_reads[j];
    return (uint8_t)reads;
}

/* ag_graph_record_named with the op's row looked up once. */
static Tensor *record(Tensor *out, const AgOpInfo *info, const char *name,
                      Tensor *const *inputs, int n, void **ctx, size_t ctx_size) {
    if (ctx) *ctx = NULL;
    if (!out) return NULL;
    /* One pass over the operands for both questions (op_overhead). The
     * default dtype matters only with an operand of another dtype (an
     * integer one, for a floating result): not read here. */
    unsigned any_dtype = 0;
    bool any_grad = false;
    for (int i = 0; i < n; i++) {
        any_dtype |= inputs[i]->dtype;
        any_grad |= inputs[i]->requires_grad;
    }
    if (any_dtype != 0 || info->dtype_rule >= AG_DTYPE_BOOL) { /* ag_dtype_needed's test */
        out = ag_apply_dtype(out, info->id, inputs, n);
        if (!out || !ag_dtype_is_floating((AgDtype)out->dtype)) return out;
    }
    if (grad_disabled || !any_grad) return out; /* a constant */
    AG_ASSERT(info && info->backward, "a recorded op has a backward in the op table");
    /* The Function, its ctx, and (past AG_INLINE_INPUTS) its inputs array. */
    size_t fn_bytes = AG_FUNCTION_BYTES;
    size_t ctx_bytes = (ctx_size + 15) & ~(size_t)15;
    size_t inputs_bytes = n > AG_INLINE_INPUTS ? (size_t)n * sizeof(Tensor *) : 0;
    Function *fn = arena_alloc(fn_bytes + ctx_bytes + inputs_bytes);
    if (!fn) {
        tensor_release(out);
        return ag_fail("%s: out of memory recording the graph", name);
    }
    *fn = (Function){.apply = info->backward, .name = name, .seq = arena.next_seq++,
                     .output = out, /* (2) */
                     .num_inputs = n,
                     .checks_versions = saved_reads(info, inputs, n, ctx_size),
                     .arena_next = arena.functions};
    if (ctx_size) memset(ag_function_ctx(fn), 0, ctx_bytes);
    fn->inputs = inputs_bytes ? (Tensor **)((unsigned char *)fn + fn_bytes + ctx_bytes)
                              : fn->inline_inputs;
    if (arena.num_functions == 0) arena.writes_before = ag_inplace_writes;
    arena.sinks++; /* nothing consumes the new Function yet */
    bool saves = fn->checks_versions & AG_CHECKS_INPUTS;
    for (int i = 0; saves && i < n && i < AG_INLINE_INPUTS; i++)
        fn->saved_versions[i] = (uint16_t)ag_version_of(inputs[i]);
    for (int i = 0; i < n; i++) {
        Tensor *in = inputs[i];
        fn->inputs[i] = tensor_retain(in);                   /* (3) kept alive until freed */
        if (tensor_has_graph(in)) {
            if (!creating_graph && in->grad_fn->pending_count++ == 0) arena.sinks--; /* (4) */
        } else if (in->requires_grad && !tensor_is_leaf(in)) {
            arena.recount = true; /* its graph is gone: let count_pending report it */
        }
    }
    arena.functions = fn;
    arena.num_functions++;
    if (anomaly_mode) ag_anomaly_note(fn, arena.generation);
    out->requires_grad = true;
    out->grad_fn = fn;                           /* (5) */
    out->op_name = name;
    out->graph_generation = arena.generation;
    if (ctx) *ctx = ag_function_ctx(fn);
    return out;
}

Tensor *ag_graph_record_named(Tensor *out, int op, const char *name, Tensor *const *inputs,
                              int n, void **ctx, size_t ctx_size) {
    return record(out, ag_op_at(op), name, inputs, n, ctx, ctx_size);
}

Tensor *ag_graph_record(Tensor *out, int op, Tensor *const *inputs, int n, void **ctx,
                        size_t ctx_size) {
    const AgOpInfo *info = ag_op_at(op);
    return record(out, info, info ? info->backward_name : "?", inputs, n, ctx, ctx_size);
}

/* ======================================================================
 * Recorded in-place ops: h's history rebased onto the op's Function
 * ====================================================================== */

/* PyTorch's "[2, 3]" for t's shape, into buf. */
static void bracket_shape(const Tensor *t, char *buf, size_t size) {
    ag_shape_list_str(t->ndim, t->shape, buf, size);
}

/* Whether a Function recorded since h's own (stop) made a view of h: its
 * output shares h's elements, and its Function would need regenerating
 * after the write (PyTorch's view replay), which ag does not do. */
static bool viewed_in_graph(const Tensor *h, const Function *stop) {
    for (const Function *fn = arena.functions; fn && fn != stop; fn = fn->arena_next)
        if (fn->output && fn->output->base == h) return true;
    return false;
}

/* h_old: the tensor that takes h's place in the graph as it was before the
 * write, with h's Function, op name and generation. When the new op's
 * backward does not read h (add, sub, h.mul_(3)) it shares h's elements
 * and version counter, so the write moves the version that every earlier
 * Function saved of h, at no copy. When it does (h.mul_(w), w requiring
 * grad; exp_) it needs h's old values, as PyTorch's saved original self:
 * a copy, with a counter of its own set to the version h reaches by the
 * write (those earlier Functions must still see a change). */
static Tensor *take_place(Tensor *h, bool copy) {
    Tensor *old = copy ? tensor_copy(h) : ag_tensor_view(h, h->ndim, h->shape);
    if (!old) return NULL;
    if (copy) old->version = ag_version_of(h) + 1;
    old->requires_grad = h->requires_grad; /* false for a constant: no gradient to it */
    old->grad_fn = h->grad_fn;
    old->op_name = h->op_name;
    old->graph_generation = h->graph_generation;
    return old;
}

/* Gives every Function recorded since stop (h's own; every one, for a
 * constant h), newest first, old instead of h: the consumers recorded
 * before the write keep sending their gradients to h's old Function, or
 * none to a constant that the write makes an intermediate. Counts do not
 * change: each edge still ends at the same Function. */
static void hand_over(Tensor *h, Tensor *old, const Function *stop) {
    for (Function *fn = arena.functions; fn && fn != stop; fn = fn->arena_next)
        for (int i = 0; i < fn->num_inputs; i++)
            if (fn->inputs[i] == h) {
                fn->inputs[i] = tensor_retain(old);
                tensor_release(h);
            }
}

/* The new Function reads its self (input 0) at the version old has now:
 * old is the unchanged copy, PyTorch's saved original self. Another
 * operand that was h (h *= h) is PyTorch's saved live h, which the write
 * changed: its check still fails, as PyTorch's does. */
static void settle_versions(Function *fn, const Tensor *old) {
    if (fn->inputs[0] == old) fn->saved_versions[0] = (uint16_t)ag_version_of(old);
}

static int rebase_refusal(const Tensor *h, const Tensor *r) {
    bool consumes = false;
    for (int i = 0; tensor_has_graph(r) && i < r->grad_fn->num_inputs; i++)
        consumes |= r->grad_fn->inputs[i] == h;
    if (!consumes || r->grad_fn != arena.functions)
        return ag_fail("in-place op: the result is not an op of the tensor just recorded"), -1;
    if (h->requires_grad && !h->grad_fn)
        return ag_fail("a leaf Variable that requires grad is being used in an in-place "
                       "operation."), -1;
    if (h->base)
        return ag_fail("ag does not record an in-place op on a view: write a new tensor "
                       "instead"), -1;
    if (!ag_shape_equal(h->ndim, h->shape, r->ndim, r->shape)) {
        char sh[AG_SHAPE_STR_MAX], sr[AG_SHAPE_STR_MAX];
        bracket_shape(h, sh, sizeof sh);
        bracket_shape(r, sr, sizeof sr);
        return ag_fail("output with shape %s doesn't match the broadcast shape %s", sh, sr), -1;
    }
    if (h->grad_fn && !tensor_has_graph(h) && in_outer_graph(h))
        return ag_fail("ag does not record an in-place op inside grad or gradcheck on a tensor "
                       "of the graph outside: write a new tensor instead"), -1;
    Function *stop = tensor_has_graph(h) ? h->grad_fn : NULL;
    if (viewed_in_graph(h, stop))
        return ag_fail("ag does not record an in-place op on a tensor a view of which is in "
                       "the graph: write a new tensor instead"), -1;
    return 0;
}

int ag_rebase_in_place(Tensor *h, Tensor *r) {
    if (!h || !r) return ag_fail("in-place op: tensor is NULL"), -1;
    if (rebase_refusal(h, r) != 0 || ag_copy_write_allowed(h) != 0) return -1;
    Function *fn = r->grad_fn, *stop = tensor_has_graph(h) ? h->grad_fn : NULL;
    Tensor *old = take_place(h, fn->checks_versions & 1); /* it reads h (input 0) */
    if (!old) return -1;
    hand_over(h, old, stop);
    if (stop) stop->output = old;
    memmove(tensor_values(h), tensor_values(r), (size_t)h->numel * sizeof(double));
    if (h->dtype != r->dtype) tensor_set_dtype(h, (AgDtype)h->dtype); /* its values */
    ag_bump_version(h);
    settle_versions(fn, old);
    /* r gives its Function to h, so releasing r leaves it alone. */
    fn->output = h;
    fn->output_version = (uint8_t)ag_version_of(h);
    h->grad_fn = fn;
    h->requires_grad = true; /* a constant becomes an intermediate */
    h->op_name = r->op_name;
    h->graph_generation = r->graph_generation;
    r->grad_fn = NULL;
    r->requires_grad = false;
    tensor_release(old); /* the Functions hold it */
    return 0;
}

/* ======================================================================
 * Releasing what failed statements left: Functions whose output is gone
 * ====================================================================== */

/* A mark is the graph's generation (its low 32 bits) and the seq of the
 * next Function: a graph holds far fewer than 2^32 Functions. */
uint64_t ag_graph_mark(void) { return (uint64_t)(uint32_t)arena.generation << 32 | arena.next_seq; }

/* Releases fn (unlinked already), whose output has been freed: nothing
 * consumes it, so it is a sink. Its inputs' Functions lose a consumer. */
static void release_dead_function(Function *fn) {
    bool counts = !arena.recount; /* after a recount they are not kept whole */
    AG_ASSERT(!counts || fn->pending_count == 0, "(1) a Function with no output has no consumer");
    if (counts) arena.sinks--;
    for (int i = 0; i < fn->num_inputs; i++) {
        Tensor *in = fn->inputs[i];
        if (counts && tensor_has_graph(in) && --in->grad_fn->pending_count == 0) arena.sinks++;
        tensor_release(in); /* may free in, and so kill its Function */
    }
    fn->num_inputs = 0;
    release_client(fn);
    if (fn->checks_versions & AG_FN_FREED) arena.num_freed--;
    arena.num_functions--;
}

/* Newest first, so that the Functions a released one kept alive are met
 * after it, already dead. While every Function met was released, the
 * arena's top is dead too and its memory goes back. */
void ag_graph_release_dead(uint64_t mark) {
    uint32_t from = (uint32_t)(mark >> 32) == (uint32_t)arena.generation ? (uint32_t)mark : 0;
    Function **link = &arena.functions;
    bool top = true;
    while (*link && (*link)->seq >= from) {
        Function *fn = *link;
        if (fn->output) {
            top = false;
            link = &fn->arena_next;
            continue;
        }
        *link = fn->arena_next;
        release_dead_function(fn);
        if (top) arena_release_top(fn);
    }
}

/* ======================================================================
 * Tracing: a hook that teaching tools set; one branch per event when off
 * ====================================================================== */

static _Thread_local AgTraceFn trace_fn;
_Thread_local unsigned ag_observers;
static _Thread_local void *trace_ctx;

void ag_set_trace(AgTraceFn fn, void *ctx) {
    trace_fn = fn;
    ag_observers = (ag_observers & ~AG_OBSERVE_TRACE) | (fn ? AG_OBSERVE_TRACE : 0);
    trace_ctx = ctx;
}

static void trace(AgTraceEvent e) {
    if (trace_fn) trace_fn(&e, trace_ctx);
}

/* fn is about to be applied with grad_output (NULL: none reached it). */
static void observe_apply(const Function *fn, const Tensor *grad_output) {
    if (grad_output && trace_fn)
        trace((AgTraceEvent){.kind = AG_TRACE_APPLY, .fn = fn, .grad = grad_output});
    if (ag_observers & AG_OBSERVE_SNAPSHOT) ag_snap_apply(fn, grad_output);
}

static Tensor *reduce_to_shape(const Tensor *grad, const Tensor *like);

/* grad goes into t (leaf: summed apart): the trace's event, and the
 * snapshot's gradient along the edge, in t's shape. */
static void observe_accumulate(const Tensor *t, const Tensor *grad, bool leaf) {
    if (trace_fn)
        trace((AgTraceEvent){.kind = AG_TRACE_ACCUMULATE, .tensor = t, .grad = grad,
                             .summed = t->grad != NULL || (leaf && t->staged_grad != NULL)});
    if (!(ag_observers & AG_OBSERVE_SNAPSHOT)) return;
    if (ag_shape_equal(t->ndim, t->shape, grad->ndim, grad->shape)) {
        ag_snap_flow(t, grad);
        return;
    }
    Tensor *reduced = reduce_to_shape(grad, t);
    if (reduced) ag_snap_flow(t, reduced);
    tensor_release(reduced);
}

/* ======================================================================
 * ag_accumulate_grad: the one place gradients are summed and reduced
 *
 * An intermediate's gradients are summed in its ->grad, which its Function
 * takes when it is applied. A leaf's are summed apart, in ->staged_grad
 * (the staged leaves form a list, each retained), and added to ->grad only
 * when backward has finished: .grad = old + (sum of the new), PyTorch's
 * order, and a backward that fails leaves every .grad as it was.
 * ====================================================================== */

static _Thread_local Tensor *staged_leaves;
/* The dtype of the output of the Function being applied (run_backward):
 * its backward's gradients are of that type before they are reduced. */
static _Thread_local uint8_t applying_dtype;

/* ---- anomaly mode: the gradients a Function hands over, checked ----
 * While a Function applies under anomaly mode, checking.fn is it: each
 * gradient it hands to ag_accumulate_grad is checked for nan (PyTorch
 * checks each output of a backward, in order, after it ran; ag's kernels
 * hand the gradients over one by one, so the lowest input with a nan is
 * kept, worded at once while the values are there, and reported after the
 * apply: apply_checked). */
static _Thread_local struct {
    Function *fn;              /* NULL: not checking */
    const Tensor *grad_output; /* the gradient fn received */
    uint64_t arrived;          /* inputs (the first 64) whose gradient came: x * x gives two */
    int nan_input;             /* the lowest input whose gradient had a nan; -1: none */
    char words[512];           /* its message (ag_anomaly_words) */
} checking;

bool ag_set_detect_anomaly(bool enabled) {
    bool was = anomaly_mode;
    anomaly_mode = enabled;
    if (!enabled) ag_anomaly_clear();
    return was;
}

bool ag_is_anomaly_enabled(void) { return anomaly_mode; }

/* Which input of checking.fn t is: the first not yet given a gradient
 * (x * x hands x two), else the first that is t. */
static int arrived_input(const Tensor *t) {
    const Function *fn = checking.fn;
    int first = -1;
    for (int i = 0; i < fn->num_inputs; i++) {
        if (fn->inputs[i] != t) continue;
        if (first < 0) first = i;
        if (i < 64 && !(checking.arrived >> i & 1)) {
            checking.arrived |= (uint64_t)1 << i;
            return i;
        }
    }
    return first < 0 ? 0 : first;
}

static const AgOpInfo *op_of(const Function *fn);

static void check_for_nan(const Tensor *t, const Tensor *grad) {
    int input = arrived_input(t);
    if (checking.nan_input >= 0 && input >= checking.nan_input) return;
    for (int64_t e = 0; e < grad->numel; e++) {
        if (!isnan(tensor_values(grad)[e])) continue;
        checking.nan_input = input;
        ag_anomaly_words(checking.fn, op_of(checking.fn), input, grad, e, checking.grad_output,
                         arena.generation, checking.words, sizeof checking.words);
        return;
    }
}

/* Sums grad (a broadcast of like's shape) over its broadcast dimensions,
 * as PyTorch's sum_to does (grad.sum(dims, keepdim=True), the leading dims
 * dropped), so that a broadcast operand's gradient has the bits of
 * sum(dim); NULL if the result cannot be allocated. */
static Tensor *reduce_to_shape(const Tensor *grad, const Tensor *like) {
    Tensor *r = ag_tensor_filled_like(like, 0.0);
    if (!r || grad->numel == 0) return r;
    int lead = grad->ndim - like->ndim;
    unsigned mask = 0;
    for (int d = 0; d < grad->ndim; d++)
        if (d < lead || (like->shape[d - lead] == 1 && grad->shape[d] != 1)) mask |= 1u << d;
    if (!ag_sum_dims(tensor_values(grad), grad->ndim, grad->shape, mask, tensor_values(r),
                     grad->dtype == AG_FLOAT32)) {
        tensor_release(r);
        return NULL;
    }
    return r;
}

typedef struct {
    double *dst;
    const double *src;
} AddJob;

static void add_range(void *ctx, int64_t begin, int64_t end) {
    const AddJob *j = ctx;
    double *restrict dst = j->dst;
    const double *restrict src = j->src;
    for (int64_t i = begin; i < end; i++) dst[i] += src[i];
}

/* dst[i] += src[i]; the two never overlap. Large sums split between
 * threads (each element alone: the same bits). */
static void add_into(double *restrict dst, const double *restrict src, int64_t n) {
    if (ag_parallel_worth(n, AG_GRAIN_COPY)) {
        ag_parallel_for(n, AG_GRAIN_COPY, add_range, &(AddJob){dst, src});
        return;
    }
    for (int64_t i = 0; i < n; i++) dst[i] += src[i];
}

/* Adds grad (taken) into *sum. A gradient is written in place only while
 * exactly one holder has it: add hands one tensor to both its inputs, and a
 * caller may hold a leaf's .grad. On a failed allocation *sum is unchanged. */
static inline void add_to_sum(Tensor **sum, Tensor *grad) {
    Tensor *have = *sum;
    if (!have) {
        *sum = grad;
    } else if (ag_exclusive(have)) {
        add_into(tensor_values(have), tensor_values(grad), grad->numel);
        tensor_release(grad);
    } else if (ag_exclusive(grad)) {
        add_into(tensor_values(grad), tensor_values(have), grad->numel);
        tensor_release(have);
        *sum = grad;
    } else { /* both shared: a new sum */
        Tensor *r = ag_tensor_new_like(grad);
        if (r) {
            double *rv = tensor_values(r);
            const double *gv = tensor_values(grad), *hv = tensor_values(have);
            for (int64_t i = 0; i < r->numel; i++) rv[i] = gv[i] + hv[i];
        }
        tensor_release(grad);
        if (!r) return;
        tensor_release(have);
        *sum = r;
    }
}

/* grad (taken) as dtype: a float32 tensor's gradient is float32, each
 * sum of two rounded again, as PyTorch's float32 kernels give it. NULL if
 * a copy cannot be allocated. */
static Tensor *typed_as(Tensor *grad, AgDtype dtype) {
    if (grad->dtype == dtype) return grad;
    Tensor *r = ag_exclusive(grad) ? grad : tensor_copy(grad);
    if (r != grad) tensor_release(grad);
    if (r) tensor_set_dtype(r, dtype);
    return r;
}

/* After a sum into *sum: rounds it again where t is float32. */
static void round_sum(Tensor *sum, const Tensor *t) {
    if (t->dtype != AG_FLOAT32 || !sum || !ag_exclusive(sum)) return;
    tensor_set_dtype(sum, AG_FLOAT32);
}

/* create_graph's ag_accumulate_grad: grad (taken) summed to t's shape,
 * cast to its dtype and added to what t has, each by a recorded op, so that
 * the sum has a graph; never written in place. The bits are the first-order
 * path's: the same sums in the same order. */
static void accumulate_recorded(Tensor *t, Tensor *grad, Tensor **sum);

void ag_accumulate_grad(Tensor *t, Tensor *grad) {
    if (!grad) return; /* its allocation failed; backward has seen the flag */
    if (!t->requires_grad) {
        tensor_release(grad);
        return;
    }
    if (checking.fn) check_for_nan(t, grad); /* anomaly mode, while a Function applies */
    if (creating_graph) {
        bool leaf = t->grad_fn == NULL || t->retains_grad;
        if (leaf && !t->staged_grad) {
            t->staged_next = staged_leaves;
            staged_leaves = tensor_retain(t);
        }
        accumulate_recorded(t, grad, leaf ? &t->staged_grad : &t->grad);
        return;
    }
    /* A leaf's gradients, and those of an intermediate that retains its
     * .grad, are summed apart (staged) and added to .grad at the end. */
    bool leaf = t->grad_fn == NULL || t->retains_grad;
    if (ag_observers) observe_accumulate(t, grad, leaf); /* :trace, the snapshot: one branch */
    if (!ag_shape_equal(t->ndim, t->shape, grad->ndim, grad->shape)) {
        /* a float32 op's backward gives float32 gradients in its output's
         * shape, which PyTorch's sum_to then sums in float: g * b of a
         * broadcast b is rounded before the sum, not after */
        if (applying_dtype == AG_FLOAT32 && !(grad = typed_as(grad, AG_FLOAT32))) return;
        Tensor *reduced = reduce_to_shape(grad, t);
        tensor_release(grad);
        if (!reduced) return;
        grad = reduced;
    }
    if (grad->dtype != t->dtype && !(grad = typed_as(grad, (AgDtype)t->dtype))) return;
    Tensor **sum = &t->grad;
    if (leaf) {
        if (!t->staged_grad) {
            t->staged_next = staged_leaves;
            staged_leaves = tensor_retain(t);
        }
        sum = &t->staged_grad;
    }
    add_to_sum(sum, grad);
    round_sum(*sum, t);
    AG_ASSERT(!leaf || t->staged_grad != NULL, "a staged leaf has a staged gradient");
}

/* grad (a broadcast of like's shape) summed over its broadcast dims, by
 * recorded ops: reduce_to_shape's sums (keepdim, then the leading dims
 * dropped). NULL if one failed. */
static Tensor *sum_to_recorded(Tensor *grad, const Tensor *like) {
    int64_t dims[AG_MAX_DIMS];
    int lead = grad->ndim - like->ndim, nd = 0;
    for (int d = 0; d < grad->ndim; d++)
        if (d < lead || (like->shape[d - lead] == 1 && grad->shape[d] != 1)) dims[nd++] = d;
    Tensor *summed = nd > 0 ? tensor_sum_dims(grad, dims, nd, true) : tensor_retain(grad);
    if (!summed) return NULL;
    Tensor *r = tensor_reshape(summed, like->ndim, like->shape);
    tensor_release(summed);
    return r;
}

/* *sum + grad (taken) as a recorded add into *sum; on a failure *sum is
 * unchanged. */
static void add_recorded(Tensor **sum, Tensor *grad) {
    if (!*sum) {
        *sum = grad;
        return;
    }
    Tensor *r = tensor_add(*sum, grad);
    tensor_release(grad);
    if (!r) return;
    tensor_release(*sum);
    *sum = r;
}

static void accumulate_recorded(Tensor *t, Tensor *grad, Tensor **sum) {
    if (!ag_shape_equal(t->ndim, t->shape, grad->ndim, grad->shape)) {
        Tensor *reduced = sum_to_recorded(grad, t);
        tensor_release(grad);
        if (!(grad = reduced)) return;
    }
    if (grad->dtype != t->dtype) {
        Tensor *cast = tensor_to(grad, (AgDtype)t->dtype);
        tensor_release(grad);
        if (!(grad = cast)) return;
    }
    add_recorded(sum, grad);
}

/* A gradient summed into *sum (taken): in place where the first-order
 * path may, by a recorded add while creating a graph. */
static void sum_into(Tensor **sum, Tensor *grad) {
    if (creating_graph) add_recorded(sum, grad);
    else add_to_sum(sum, grad);
}

/* A copy of g recorded as PyTorch's AccumulateGrad records a leaf's first
 * gradient while creating a graph (g.new_empty_strided(...).copy_(g)):
 * CopyBackwards, the identity. NULL if it cannot be made. */
static Tensor *copy_recorded(Tensor *g) {
    Tensor *copy = tensor_copy(g);
    if (copy) tensor_set_dtype(copy, (AgDtype)g->dtype);
    return ag_graph_record_named(copy, AG_OP_CLONE, "CopyBackwards", &g, 1, NULL, 0);
}

/* commit_staged while creating a graph: leaf.grad = leaf.grad + staged, a
 * recorded add (PyTorch's create_graph accumulation; a first gradient
 * with a graph is copied, copy_recorded), all made before any .grad
 * changes. Returns 0, or -1 with nothing committed. */
static int commit_staged_recorded(void) {
    for (Tensor *t = staged_leaves; t; t = t->staged_next) {
        if (!t->grad && !t->staged_grad->requires_grad) continue;
        Tensor *sum = t->grad ? tensor_add(t->grad, t->staged_grad) : copy_recorded(t->staged_grad);
        if (!sum) return -1;
        tensor_release(t->staged_grad);
        t->staged_grad = sum;
    }
    for (Tensor *t = staged_leaves; t; t = t->staged_next) {
        tensor_release(t->grad);
        t->grad = t->staged_grad;
        t->staged_grad = NULL;
    }
    return 0;
}

/* Whether t is an intermediate that retains its .grad and has one made by
 * create_graph: a first-order backward adds to it out of place, a sum with
 * no graph (PyTorch's retain_grad hook: grad = grad + new), where a leaf's
 * such .grad is added to in place (AccumulateGrad's grad += new). */
static bool retained_with_graph(const Tensor *t) {
    return t->retains_grad && t->grad && t->grad->grad_fn;
}

/* Adds every staged gradient to its leaf's .grad. The sums that need memory
 * (the old and the new gradient both held elsewhere: the new one is copied
 * first) are made before any .grad changes, so that a failure changes
 * nothing. Returns 0, or -1 with nothing committed. */
static int commit_staged(void) {
    if (creating_graph) return commit_staged_recorded();
    for (Tensor *t = staged_leaves; t; t = t->staged_next) {
        Tensor *g = t->staged_grad;
        if (retained_with_graph(t)) { /* PyTorch's retain_grad: grad + new, a new tensor */
            Tensor *sum = ag_tensor_new_like(g);
            if (!sum) return -1;
            double *sv = tensor_values(sum);
            const double *old = tensor_values(t->grad), *gv = tensor_values(g);
            for (int64_t i = 0; i < sum->numel; i++) sv[i] = old[i] + gv[i];
            tensor_release(g);
            t->staged_grad = sum;
        } else if (t->grad && !ag_exclusive(t->grad) && !ag_exclusive(g)) {
            Tensor *copy = tensor_copy(g);
            if (!copy) return -1;
            tensor_release(g);
            t->staged_grad = copy;
        }
    }
    for (Tensor *t = staged_leaves; t; t = t->staged_next) {
        if (retained_with_graph(t)) { /* the sum made above replaces it */
            tensor_release(t->grad);
            t->grad = t->staged_grad;
        } else if (t->grad && t->grad->grad_fn) { /* made by create_graph: PyTorch's grad += new, */
            add_into(tensor_values(t->grad), tensor_values(t->staged_grad), t->grad->numel); /* in place */
            ag_bump_version(t->grad);
            tensor_release(t->staged_grad);
        } else {
            add_to_sum(&t->grad, t->staged_grad); /* allocates nothing now */
        }
        round_sum(t->grad, t);
        t->staged_grad = NULL;
    }
    return 0;
}

/* Drops t (taken off the list already) and any gradient still staged. */
static void drop_staged(Tensor *t) {
    t->staged_next = NULL;
    tensor_release(t->staged_grad);
    t->staged_grad = NULL;
    tensor_release(t);
}

/* Empties the list of staged leaves, dropping any gradient still staged. */
static void unstage(void) {
    while (staged_leaves) {
        Tensor *t = staged_leaves;
        staged_leaves = t->staged_next;
        drop_staged(t);
    }
}

/* ======================================================================
 * backward
 * ====================================================================== */

/* Whether the last refusal of backward (or ag_grad) was a graph an earlier
 * backward freed: a shell words that one as its dialect does. */
static _Thread_local bool freed_graph;

/* The op table's row whose backward fn runs (every Function is recorded
 * from one: record() takes its apply from the row), or NULL. Rows are few
 * and create_graph is the slow path: a scan, with the last row found kept. */
static const AgOpInfo *op_of(const Function *fn) {
    static _Thread_local const AgOpInfo *last;
    if (last && last->backward == fn->apply) return last;
    for (int i = 0; i < ag_op_count(); i++) {
        const AgOpInfo *op = ag_op_at(i);
        if (op && op->backward == fn->apply) return last = op;
    }
    return NULL;
}

int ag_function_vjp(Function *fn, Tensor *seed, Tensor **grads) {
    for (int i = 0; i < fn->num_inputs; i++) grads[i] = NULL;
    const AgOpInfo *op = op_of(fn);
    if (!op || !op->graph_backward || fn->apply == ag_op_custom.backward) return -1;
    bool was_enabled = ag_set_grad_enabled(false);
    int rc = op->graph_backward(fn, ag_function_ctx(fn), seed, grads);
    ag_set_grad_enabled(was_enabled);
    for (int i = 0; i < fn->num_inputs; i++) {
        Tensor *in = fn->inputs[i], *g = grads[i];
        if (rc == 0 && g && !ag_shape_equal(g->ndim, g->shape, in->ndim, in->shape)) {
            grads[i] = reduce_to_shape(g, in);
            tensor_release(g);
            if (!grads[i]) rc = -1;
        }
    }
    if (rc != 0)
        for (int i = 0; i < fn->num_inputs; i++) tensor_release(grads[i]), grads[i] = NULL;
    return rc;
}

/* Refuses (-1) a Function a create_graph backward cannot differentiate
 * in recorded ops. */
static int refuse_graph_backward(const Function *fn) {
    const AgOpInfo *op = op_of(fn);
    if (op && op->graph_backward) return 0;
    ag_fail("create_graph: %s has no differentiable backward in ag yet, so the gradient "
            "through it cannot be differentiated again", fn->name);
    return -1;
}

/* Counts, for every Function reachable from the roots (n of them, each a
 * live Function), its consumers within the reachable graph (ENGINE.md: an
 * unreachable consumer must not stall a node), and refuses a graph part of
 * which an earlier backward freed. stack has room for every Function in
 * the arena. Returns 0 or -1. */
static int count_pending(Function *const *roots, int n, Function **stack, bool create,
                         int64_t *leaf_edges) {
    uint64_t mark = ++arena.visit_epoch;
    int64_t top = 0;
    for (int r = 0; r < n; r++) {
        if (roots[r]->visit_mark == mark) continue; /* a root given twice */
        roots[r]->visit_mark = mark;
        roots[r]->pending_count = 0;
        stack[top++] = roots[r];
    }
    while (top > 0) {
        Function *fn = stack[--top];
        if (create && refuse_graph_backward(fn) != 0) return -1;
        for (int i = 0; i < fn->num_inputs; i++) {
            Tensor *in = fn->inputs[i];
            if (leaf_edges && in->requires_grad && tensor_is_leaf(in)) {
                if (in->leaf_epoch != mark) in->leaf_epoch = mark, in->leaf_pending = 0;
                in->leaf_pending++, ++*leaf_edges;
            }
            if (!in->requires_grad || tensor_is_leaf(in)) continue;
            if (!tensor_has_graph(in)) {
                freed_graph = true;
                ag_fail("backward: part of this graph (%s) was freed by an earlier "
                        "backward; recompute the value from its leaves", in->op_name);
                return -1;
            }
            Function *parent = in->grad_fn;
            if (parent->visit_mark != mark) {
                parent->visit_mark = mark;
                parent->pending_count = 0;
                stack[top++] = parent;
            }
            parent->pending_count++;
        }
    }
    return 0;
}

/* An applied Function never runs again (unless the graph is retained), so what it kept
 * for backward can go now rather than when the arena is freed: memory
 * returns while backward runs, as in PyTorch. A leaf or constant input is
 * released at once. An intermediate input may still be needed by the
 * Function that made it (exp reads its own output), so the reference is
 * handed to that producer, which drops it after its own apply (or when the
 * arena is freed, if it never runs). */
static void release_after_apply(Function *fn) {
    for (int i = 0; i < fn->num_inputs; i++) {
        Tensor *in = fn->inputs[i];
        fn->inputs[i] = NULL;
        if (tensor_has_graph(in)) in->grad_fn->release_output++;
        else tensor_release(in);
    }
    fn->num_inputs = 0;
    fn->checks_versions |= AG_FN_FREED; /* its output's graph is gone (tensor_has_graph) */
    arena.num_freed++;
    release_client(fn);
    Tensor *out = fn->output;
    for (; fn->release_output > 0; fn->release_output--) tensor_release(out);
}

static _Thread_local volatile sig_atomic_t *interrupt_flag;

void ag_set_interrupt_flag(volatile sig_atomic_t *flag) { interrupt_flag = flag; }

/* The ready Functions, a binary heap on seq, the latest recorded on top:
 * PyTorch's ready queue, which runs the ready node of the highest
 * sequence number first. The order decides how the gradients a tensor
 * receives are summed: x * c + leaky_relu(x) + x at 0 gives x.grad =
 * (1 + -1) + 0.01 = 0.01 in PyTorch, where taking leaky_relu first gave
 * (1 + 0.01) + -1 = 0.010000000000000009.
 *
 * While hooks are live, a leaf whose last consumer was applied is a task
 * here too (its pointer, tagged by its low bit), above every Function, as
 * PyTorch's AccumulateGrad node (sequence number UINT64_MAX): its hooks
 * run then, before the next Function. Leaves tie, so the heap is
 * libstdc++'s std::priority_queue step for step, whose layout orders
 * them (a stack of four leaves: 0, 2, 1, 3). */
static Function *leaf_task(Tensor *t) { return (Function *)((uintptr_t)t | 1); }

static Tensor *task_leaf(const Function *task) {
    return (uintptr_t)task & 1 ? (Tensor *)((uintptr_t)task & ~(uintptr_t)1) : NULL;
}

static uint64_t task_key(const Function *task) { return task_leaf(task) ? UINT64_MAX : task->seq; }

/* std::__push_heap: up from hole while the parent is lower. */
static void heap_sift_up(Function **heap, int64_t hole, Function *task) {
    uint64_t key = task_key(task);
    while (hole > 0 && task_key(heap[(hole - 1) / 2]) < key) {
        heap[hole] = heap[(hole - 1) / 2];
        hole = (hole - 1) / 2;
    }
    heap[hole] = task;
}

static void ready_push(Function **heap, int64_t *n, Function *task) {
    heap_sift_up(heap, (*n)++, task);
}

/* std::pop_heap (__adjust_heap): the hole at the top goes down to a leaf,
 * always to the greater child (the left one on a tie), and the last task
 * sifts up from there. */
static Function *ready_pop(Function **heap, int64_t *n) {
    Function *top = heap[0], *last = heap[--*n];
    int64_t len = *n, hole = 0, child = 0;
    if (len == 0) return top;
    while (child < (len - 1) / 2) {
        child = 2 * (child + 1);
        if (task_key(heap[child]) < task_key(heap[child - 1])) child--;
        heap[hole] = heap[child];
        hole = child;
    }
    if ((len & 1) == 0 && child == (len - 2) / 2) {
        child = 2 * (child + 1);
        heap[hole] = heap[child - 1];
        hole = child - 1;
    }
    heap_sift_up(heap, hole, last);
    return top;
}

/* PyTorch's message for a tensor a Function saved that an in-place
 * change has moved past the version it recorded (saved: its low 16 bits). */
const char *ag_function_pytorch_name(const char *op_name, char *buf, size_t size) {
    const char *name = op_name ? op_name : "?";
    size_t len = strlen(name);
    bool cpp = strcmp(name, "CopySlices") == 0 || strcmp(name, "CopyBackwards") == 0;
    bool generated = len >= 8 && strcmp(name + len - 8, "Backward") == 0;
    snprintf(buf, size, "%s%s%s", cpp ? "torch::autograd::" : "", name, generated ? "0" : "");
    return buf;
}

static int modified_fail(const Tensor *t, uint16_t saved, bool input) {
    char shape[AG_SHAPE_STR_MAX];
    bracket_shape(t, shape, sizeof shape);
    char which[96] = "";
    /* PyTorch names a saved input's Function as it is now, a saved output's
     * as it was (the Function that saved it): after h[0] = 5 a consumer
     * recorded before holds take_place's view of h's old values, whose
     * base is h, and h's Function now is the write's (CopySlices) */
    const Tensor *live = input && t->grad_fn && t->base && t->base->grad_fn &&
                         tensor_values(t->base) == tensor_values(t) && t->base->numel == t->numel ? t->base : t;
    if (t->grad_fn) {
        char name[80];
        snprintf(which, sizeof which, ", which is output 0 of %s,",
                 ag_function_pytorch_name(live->op_name, name, sizeof name));
    }
    uint32_t now = ag_version_of(t), then = now - (uint16_t)(now - saved);
    ag_fail("one of the variables needed for gradient computation has been modified by an "
            "inplace operation: [torch.%sTensor %s]%s is at version %u; expected version "
            "%u instead. Hint: enable anomaly detection to find the operation that failed to "
            "compute its gradient, with torch.autograd.set_detect_anomaly(True).",
            ag_dtype_scalar_name((AgDtype)t->dtype), shape, which, now, then);
    return -1;
}

/* 0 when every tensor fn's backward reads is at the version recorded
 * (the output's: 0, as it was made by fn). */
static int check_versions(const Function *fn) {
    if (!(fn->checks_versions & (AG_CHECKS_INPUTS | AG_CHECKS_OUTPUT))) return 0;
    for (int i = 0; i < fn->num_inputs && i < AG_INLINE_INPUTS; i++)
        if ((fn->checks_versions & (1u << i)) &&
            (uint16_t)ag_version_of(fn->inputs[i]) != fn->saved_versions[i])
            return modified_fail(fn->inputs[i], fn->saved_versions[i], true);
    /* The whole version against the 8 bits kept: past 255 a moved
     * Function's output always counts as changed (a refusal, never a
     * gradient computed from changed values). */
    bool moved = ag_version_of(fn->output) != fn->output_version;
    if ((fn->checks_versions & AG_CHECKS_OUTPUT) && moved)
        return modified_fail(fn->output, fn->output_version, false);
    return 0;
}

/* What one run of backward does besides differentiating: keep the graph,
 * and take the gradients of some intermediates (torch.autograd.grad's
 * inputs) as their Functions are applied. */
typedef struct {
    bool retain;                /* keep the graph: nothing is released after apply */
    bool create;                /* create_graph: apply by the ops' graph_backward */
    int num_capture;            /* want[i]'s gradient goes to got[i] (retained) */
    Tensor *const *want;
    Tensor **got;
    uint64_t leaf_epoch;        /* set by differentiate: leaves are tasks (ready_push) */
} Run;

/* The gradient of every wanted intermediate that fn makes, taken as fn is
 * applied (its sum is then whole). */
static void capture(const Run *run, const Function *fn, Tensor *grad) {
    for (int i = 0; i < run->num_capture; i++)
        if (run->want[i] == fn->output && !run->got[i]) run->got[i] = tensor_retain(grad);
}

int ag_run_hooks(const Tensor *t, Tensor **grad) {
    bool was_enabled = ag_set_grad_enabled(creating_graph); /* nothing recorded counts (record) */
    int rc = 0;
    for (const AgHook *h = t->hooks; h && rc == 0; h = h->next) {
        bool failed = false;
        Tensor *r = h->fn(h->ctx, *grad, &failed);
        if (failed) {
            tensor_release(r);
            rc = -1;
        } else if (r) {
            tensor_release(*grad);
            *grad = r;
        }
    }
    ag_set_grad_enabled(was_enabled);
    if (rc != 0) tensor_release(*grad), *grad = NULL;
    return rc;
}

/* An intermediate's hooks, on its whole gradient before its Function runs;
 * one that retains its .grad keeps what the hooks made (PyTorch runs
 * retain_grad's hook last). Returns 0 or -1. */
static int hook_intermediate(Tensor *out, Tensor **grad) {
    if (ag_run_hooks(out, grad) != 0) return -1;
    if (out->retains_grad) {
        tensor_release(out->staged_grad);
        out->staged_grad = tensor_retain(*grad);
    }
    return 0;
}

/* A leaf's hooks, on its staged (whole) gradient. Returns 0 or -1. */
static int hook_leaf(Tensor *t) {
    if (!t->hooks || t->retains_grad || !t->staged_grad) return 0;
    return ag_run_hooks(t, &t->staged_grad);
}

/* The hooks of the leaves no task ran (a leaf given to backward itself),
 * at the end. Returns 0 or -1. */
static int hook_leaves(uint64_t leaf_epoch) {
    if (ag_hooks_live == 0) return 0;
    for (Tensor *t = staged_leaves; t; t = t->staged_next)
        if ((!leaf_epoch || t->leaf_epoch != leaf_epoch) && hook_leaf(t) != 0) return -1;
    return 0;
}

/* Runs graph (an op's backward in recorded ops) for fn and hands the
 * gradients it made to ag_accumulate_grad (which, creating a graph, sums
 * them by recorded adds). Returns 0 or -1. */
static int apply_graph(Function *fn, Tensor *grad_output, GraphApplyFn graph) {
    Tensor *inline_grads[AG_INLINE_INPUTS] = {0};
    int n = fn->num_inputs;
    Tensor **grads = n <= AG_INLINE_INPUTS ? inline_grads : calloc((size_t)n, sizeof *grads);
    if (!grads) return ag_fail("backward: out of memory"), -1;
    int rc = graph(fn, ag_function_ctx(fn), grad_output, grads);
    for (int i = 0; i < n; i++) {
        if (rc == 0) ag_accumulate_grad(fn->inputs[i], grads[i]);
        else tensor_release(grads[i]);
    }
    if (grads != inline_grads) free(grads);
    return rc;
}

/* create_graph's apply: fn's op's graph_backward. */
static int apply_recorded(Function *fn, Tensor *grad_output) {
    return apply_graph(fn, grad_output, op_of(fn)->graph_backward);
}

void ag_apply_by_graph(Function *fn, void *ctx, Tensor *grad_output, GraphApplyFn graph) {
    (void)ctx; /* apply_graph finds it */
    bool was_enabled = ag_set_grad_enabled(false); /* a first-order backward records nothing */
    if (apply_graph(fn, grad_output, graph) != 0) ag_alloc_failure = true; /* backward stops */
    ag_set_grad_enabled(was_enabled);
}

/* fn applied under anomaly mode: every gradient it hands over is checked
 * (check_for_nan), and backward stops (-1) at the first Function whose
 * gradients hold a nan, with PyTorch's message and ag's words. */
static int apply_checked(Function *fn, Tensor *grad_output, bool create) {
    checking.fn = fn;
    checking.grad_output = grad_output;
    checking.arrived = 0;
    checking.nan_input = -1;
    /* A second holder, so that no kernel writes its result over the
     * gradient it received (they do when it is theirs alone): the words
     * read it after. */
    tensor_retain(grad_output);
    int rc = 0;
    if (create) rc = apply_recorded(fn, grad_output);
    else fn->apply(fn, ag_function_ctx(fn), grad_output);
    checking.fn = NULL;
    tensor_release(grad_output);
    if (rc != 0 || checking.nan_input < 0) return rc;
    ag_fail("%s", checking.words);
    return -1;
}

/* Applies every Function once, in dependency order: a Function runs when all
 * its consumers have handed it their gradient (pending_count reaches 0),
 * the latest recorded of those ready first (ready_push). The roots (n, each
 * live, each once) with no consumer are ready at the start. Stops with -1
 * when an allocation fails (the allocation left its message) or the
 * interrupt flag is up. */
static int run_backward(Function *const *roots, int n, Function **stack, const Run *run) {
    int64_t top = 0;
    bool checks = ag_inplace_writes != arena.writes_before; /* an in-place write since recording */
    for (int r = 0; r < n; r++)
        if (roots[r]->pending_count == 0) ready_push(stack, &top, roots[r]);
    while (top > 0) {
        if (interrupt_flag && *interrupt_flag) return ag_fail("interrupted"), -1;
        Function *fn = ready_pop(stack, &top);
        if (task_leaf(fn)) {
            if (hook_leaf(task_leaf(fn)) != 0) return -1;
            continue;
        }
        Tensor *out = fn->output;
        AG_ASSERT(out, "(10) a Function applied has its output");
        /* No gradient reached it: every consumer's backward sends none to
         * this input (a loss's target, hinge_embedding_loss(x, y) with y
         * computed): nothing to apply, but its inputs' counts still drop. */
        Tensor *grad_output = out->grad;
        if (out->retains_grad) /* its sum is staged, for out->grad at the end */
            grad_output = tensor_retain(out->staged_grad);
        if (grad_output && checks && check_versions(fn) != 0) {
            if (out->retains_grad) tensor_release(grad_output);
            return -1;
        }
        if (!out->retains_grad) out->grad = NULL; /* (7) intermediate gradients do not survive */
        if (grad_output && ag_hooks_live > 0 && out->hooks &&
            hook_intermediate(out, &grad_output) != 0)
            return -1;
        if (grad_output && run->num_capture) capture(run, fn, grad_output);
        if (ag_observers) observe_apply(fn, grad_output);
        int rc = 0;
        uint8_t outer_dtype = applying_dtype; /* a custom backward may run a backward */
        applying_dtype = out->dtype;
        if (grad_output && anomaly_mode) rc = apply_checked(fn, grad_output, run->create);
        else if (grad_output && run->create) rc = apply_recorded(fn, grad_output);
        else if (grad_output) fn->apply(fn, ag_function_ctx(fn), grad_output);
        applying_dtype = outer_dtype;
        tensor_release(grad_output);
        if (rc != 0 || ag_alloc_failed()) return -1;
        for (int i = 0; i < fn->num_inputs; i++) {
            Tensor *in = fn->inputs[i];
            if (run->leaf_epoch && in->leaf_epoch == run->leaf_epoch && tensor_is_leaf(in) &&
                --in->leaf_pending == 0)
                ready_push(stack, &top, leaf_task(in));
            if (!tensor_has_graph(in)) continue;
            Function *parent = in->grad_fn;
            parent->pending_count--;
            AG_ASSERT(parent->pending_count >= 0, "(9) pending_count never goes negative");
            if (trace_fn)
                trace((AgTraceEvent){.kind = AG_TRACE_PENDING, .fn = parent,
                                     .pending = parent->pending_count});
            if (parent->pending_count == 0) ready_push(stack, &top, parent);
        }
        if (!run->retain) release_after_apply(fn);
    }
    return 0;
}

/* Differentiates from the roots (n live Functions, each once), whose
 * outputs hold their gradients. Returns 0, -1 after a failure while
 * running, or -2 when the graph is refused before anything changed. */
static int differentiate(Function *const *roots, int n, Run *run) {
    uint32_t seq_before = arena.next_seq;
    Function **stack = arena_alloc((size_t)arena.num_functions * sizeof *stack);
    if (!stack) return ag_fail("backward: out of memory"), -1;
    /* The counts made during construction are exact when the loss is the
     * arena's only sink: every Function then leads to the loss, so no
     * consumer lies outside its graph. Otherwise, count over what the loss
     * reaches (ENGINE.md); after that the construction counts are no longer
     * whole. A retained graph's counts were used up: the next backward
     * recounts. */
    bool leaf_tasks = ag_hooks_live > 0; /* hooks run in PyTorch's order: leaves are counted */
    bool counted = !arena.recount && arena.sinks == 1 && n == 1 &&
                   roots[0]->pending_count == 0 && !run->create && !leaf_tasks;
    if (!counted || run->retain) arena.recount = true;
    int64_t leaf_edges = 0;
    int rc = counted ? 0 : count_pending(roots, n, stack, run->create,
                                         leaf_tasks ? &leaf_edges : NULL);
    Function **heap = stack;
    if (leaf_tasks && rc == 0) { /* room for the leaves' tasks too */
        heap = malloc((size_t)(arena.num_functions + leaf_edges) * sizeof *heap);
        if (!heap) return ag_fail("backward: out of memory"), -1;
        run->leaf_epoch = arena.visit_epoch;
    }
    /* While creating a graph, what is recorded never counts as a consumer
     * of this one (record); the next backward recounts. */
    bool was_enabled = ag_set_grad_enabled(run->create || ag_is_grad_enabled());
    if (rc != 0) rc = -2;
    else rc = run_backward(roots, n, heap, run);
    ag_set_grad_enabled(was_enabled);
    if (heap != stack) free(heap);
    /* A retained graph lives on: give back the stack, the arena's top (the
     * first-order kernels record nothing). */
    if (run->retain && arena.next_seq == seq_before) arena_release_top(stack);
    return rc;
}

/* After a failed backward: the gradients of intermediates that were never
 * applied go, and so do the staged ones; every .grad is as before. */
static void discard_gradients(void) {
    for (Function *fn = arena.functions; fn; fn = fn->arena_next) {
        if (!fn->output) continue;
        tensor_release(fn->output->grad);
        fn->output->grad = NULL;
    }
    unstage();
}

/* Keeps on the list of staged leaves only those among keep (n of them):
 * backward(inputs=...) accumulates into those alone. */
static void keep_staged(Tensor *const *keep, int n) {
    Tensor **link = &staged_leaves;
    while (*link) {
        Tensor *t = *link;
        bool wanted = false;
        for (int i = 0; i < n && !wanted; i++) wanted = keep[i] == t;
        if (wanted) {
            link = &t->staged_next;
            continue;
        }
        *link = t->staged_next;
        drop_staged(t);
    }
}

/* Whether a graph this backward did not run through is still in use: a
 * Function it did not free whose output a client holds (d2l's y = x * x
 * kept while z = u * x is differentiated, then y.sum().backward()). A
 * client holds an output when it has more references than the Functions
 * that consume it take (counted here in pending_count, whose construction
 * counts are spent: the next backward recounts). */
static bool other_graph_alive(void) {
    if (arena.num_freed == arena.num_functions) return false; /* the usual case: no scan */
    for (Function *fn = arena.functions; fn; fn = fn->arena_next) fn->pending_count = 0;
    for (Function *fn = arena.functions; fn; fn = fn->arena_next)
        for (int i = 0; i < fn->num_inputs; i++)
            if (tensor_has_graph(fn->inputs[i])) fn->inputs[i]->grad_fn->pending_count++;
    arena.recount = true;
    for (Function *fn = arena.functions; fn; fn = fn->arena_next)
        if (fn->output && !(fn->checks_versions & AG_FN_FREED) &&
            fn->output->ref_count > fn->pending_count)
            return true;
    return false;
}

/* The end of every backward that ran, rc its outcome so far: the staged
 * gradients are committed (0, commit) or dropped with the intermediate
 * ones, and the arena is freed either way unless the graph is retained.
 * A backward that freed its own graph (each Function it ran is marked)
 * keeps the arena while another graph in it is alive and the arena is
 * under KEPT_ARENA_BYTES (docs/engine.md, "The arena"): the arena is one
 * block, so the memory of the graph it freed waits for the arena's free.
 * Returns 0 or -1. */
static int finish_backward(int rc, bool commit, bool retain) {
    if (rc == 0 && commit) rc = commit_staged();
    if (rc != 0) discard_gradients();
    unstage();
    if (retain) return rc;
    if (rc == 0 && arena.bytes_used < KEPT_ARENA_BYTES && other_graph_alive()) return rc;
    /* After a big graph (a long forward-only session, say), give the memory
     * back to the system, not only to malloc; small graphs skip the cost. */
    bool big = arena.bytes_used > TRIM_AFTER_BYTES;
    arena_free();
    if (big) ag_heap_trim();
    return rc;
}

/* The checks of tensor_backward: a user error changes nothing. */
static int refuse_backward(const Tensor *y, const Tensor *grad) {
    char sy[AG_SHAPE_STR_MAX], sg[AG_SHAPE_STR_MAX];
    if (!y) return ag_fail("backward: loss is NULL"), -1;
    if (grad && !ag_shape_equal(grad->ndim, grad->shape, y->ndim, y->shape))
        return ag_fail("backward: the gradient has shape %s, but the tensor it is for has "
                       "shape %s; they must be the same", tensor_shape_str(grad, sg, sizeof sg),
                       tensor_shape_str(y, sy, sizeof sy)), -1;
    if (!grad && y->numel != 1) {
        tensor_shape_str(y, sy, sizeof sy);
        return ag_fail("backward needs a loss with exactly one element, not shape %s; for "
                       "the vector-Jacobian product, pass a gradient of shape %s", sy, sy), -1;
    }
    if (!y->requires_grad)
        return ag_fail("backward: the loss does not require grad, so there is no graph "
                       "to differentiate"), -1;
    if (!tensor_is_leaf(y) && !tensor_has_graph(y)) {
        freed_graph = true;
        return ag_fail("backward: the graph of this value (%s) was freed by an earlier "
                       "backward; recompute it from its leaves", y->op_name), -1;
    }
    return 0;
}

/* Seeds every output (ys[i] gets a copy of grads[i], or ones: a leaf's
 * goes to its staged gradient, an intermediate's to its ->grad) and
 * differentiates from their Functions. Returns 0, -1 after a failure while
 * running (the gradients are to be discarded), -2 when refused with
 * nothing changed. */
static int seed_and_run(int n, Tensor *const *ys, Tensor *const *grads, Run *run) {
    Function *inline_roots[4];
    Function **roots = n <= 4 ? inline_roots : malloc((size_t)n * sizeof *roots);
    if (!roots) return ag_fail("backward: out of memory"), -1;
    int num_roots = 0, rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        Tensor *y = ys[i], *g = grads ? grads[i] : NULL;
        /* The seed is backward's own: a copy of g (which may require grad;
         * its values are all that is used), or ones. */
        Tensor *seed = g && run->create ? tensor_retain(g) /* differentiable too */
                       : g ? tensor_copy(g) : ag_tensor_filled_like(y, 1.0);
        if (!seed) {
            rc = -1;
        } else if (tensor_is_leaf(y) || y->retains_grad) {
            /* A root that retains its grad (loss.retain_grad()) is staged
             * as a leaf is: run_backward reads its sum there. */
            bool again = y->staged_grad != NULL;
            ag_accumulate_grad(y, seed);
            if (ag_alloc_failed()) rc = -1;
            else if (!tensor_is_leaf(y) && !again) roots[num_roots++] = y->grad_fn;
        } else {
            AG_ASSERT(i > 0 || y->grad == NULL, "(6) grad fields are NULL at entry");
            bool again = y->grad != NULL; /* a root given twice */
            sum_into(&y->grad, seed);
            if (!again) roots[num_roots++] = y->grad_fn;
        }
    }
    /* The snapshot (ag_set_keep_graph) of the graph set aside by no push. */
    bool snap = rc == 0 && ag_snap_keeping && graph_depth == 0;
    if (snap) ag_snap_begin(ys, n);
    if (rc == 0 && num_roots > 0) rc = differentiate(roots, num_roots, run);
    if (rc == 0) rc = hook_leaves(run->leaf_epoch);
    if (snap) ag_snap_end(rc == 0, staged_leaves);
    if (roots != inline_roots) free(roots);
    return rc;
}

bool ag_error_freed_graph(void) { return freed_graph; }

/* Starts a backward with graph_flags: whether it creates a graph (and so
 * retains the one it runs through). Returns the Run. */
static Run start_run(unsigned graph_flags) {
    bool create = graph_flags & AG_CREATE_GRAPH;
    creating_graph = create;
    if (create) arena.recount = true; /* what it records counts no consumer */
    return (Run){.retain = create || (graph_flags & AG_RETAIN_GRAPH), .create = create};
}

int ag_backward(int n, Tensor *const *ys, Tensor *const *grads, unsigned graph_flags,
                int num_inputs, Tensor *const *inputs) {
    freed_graph = false;
    for (int i = 0; i < n; i++)
        if (refuse_backward(ys[i], grads ? grads[i] : NULL) != 0) return -1;
    for (int i = 0; i < num_inputs; i++)
        if (!inputs[i] || !tensor_is_leaf(inputs[i]) || !inputs[i]->requires_grad)
            return ag_fail("backward: inputs= takes leaves that require grad; %s",
                           !inputs[i] ? "one is NULL" : inputs[i]->requires_grad
                           ? "one is an intermediate (ag accumulates only into leaves)"
                           : "one does not require grad"), -1;
    ag_alloc_clear_failure();
    Run run = start_run(graph_flags);
    int rc = seed_and_run(n, ys, grads, &run);
    if (rc == -2) { /* refused: nothing has changed */
        discard_gradients();
        unstage();
        rc = -1;
    } else {
        if (rc == 0 && num_inputs > 0) keep_staged(inputs, num_inputs);
        rc = finish_backward(rc, true, run.retain);
    }
    creating_graph = false;
    return rc;
}

int tensor_backward(Tensor *y, Tensor *grad) { return ag_backward(1, &y, &grad, 0, 0, NULL); }

int backward(Tensor *loss) { return tensor_backward(loss, NULL); }

int ag_grad(int n, Tensor *const *outputs, Tensor *const *grad_outputs, int num_inputs,
            Tensor *const *inputs, unsigned graph_flags, bool allow_unused, Tensor **grads) {
    freed_graph = false;
    for (int j = 0; j < num_inputs; j++) grads[j] = NULL;
    for (int i = 0; i < n; i++) {
        Tensor *y = outputs[i], *g = grad_outputs ? grad_outputs[i] : NULL;
        if (y && !y->requires_grad)
            return ag_fail("element %d of tensors does not require grad and does not have a "
                           "grad_fn", i), -1;
        if (y && !g && y->numel != 1)
            return ag_fail("grad can be implicitly created only for scalar outputs"), -1;
        if (refuse_backward(y, g) != 0) return -1;
    }
    for (int j = 0; j < num_inputs; j++) {
        if (!inputs[j]) return ag_fail("grad: an input is NULL"), -1;
        if (!inputs[j]->requires_grad)
            return ag_fail("One of the differentiated Tensors does not require grad"), -1;
        if (!tensor_is_leaf(inputs[j]) && !tensor_has_graph(inputs[j])) {
            freed_graph = true;
            return ag_fail("grad: the graph of an input (%s) was freed by an earlier "
                           "backward; recompute it from its leaves", inputs[j]->op_name), -1;
        }
    }
    ag_alloc_clear_failure();
    Run run = start_run(graph_flags);
    run.num_capture = num_inputs;
    run.want = inputs;
    run.got = grads;
    int rc = seed_and_run(n, outputs, grad_outputs, &run);
    /* The leaves' gradients are their staged ones, never committed. */
    for (int j = 0; rc == 0 && j < num_inputs; j++)
        if (tensor_is_leaf(inputs[j]) && !grads[j]) grads[j] = tensor_retain(inputs[j]->staged_grad);
    if (rc == -2) {
        discard_gradients();
        unstage();
    } else {
        rc = finish_backward(rc, false, run.retain);
    }
    creating_graph = false;
    for (int j = 0; rc == 0 && j < num_inputs; j++) {
        if (!grads[j] && !allow_unused) {
            ag_fail("One of the differentiated Tensors appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior.");
            rc = -1;
        } else if (grads[j] && !ag_exclusive(grads[j]) && !grads[j]->requires_grad) {
            /* Held elsewhere too (an input given twice, or a gradient a
             * kernel handed to two operands): the caller's own copy. One
             * with a graph (create_graph) stays itself: a copy would cut
             * it off, and an in-place change of it is caught by versions. */
            Tensor *copy = tensor_copy(grads[j]);
            tensor_release(grads[j]);
            grads[j] = copy;
            if (!copy) rc = -1;
        }
    }
    if (rc != 0)
        for (int j = 0; j < num_inputs; j++) tensor_release(grads[j]), grads[j] = NULL;
    return rc < 0 ? -1 : 0;
}
