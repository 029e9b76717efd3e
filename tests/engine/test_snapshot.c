/*
 * test_snapshot.c — the last graph, kept for looking (src/graphsnap.c): off
 * by default; when on, each backward keeps its graph's nodes, values,
 * gradients, Jacobians and edge gradients after the arena is freed; a
 * failed backward keeps the one before; the snapshot counts against the
 * memory limit and stops at AG_SNAP_MAX_NODES.
 */
#include "harness.h"

static const char *name_ab(const Tensor *t, void *ctx) {
    Tensor **named = ctx;
    return t == named[0] ? "a" : t == named[1] ? "b" : NULL;
}

/* The node named so, or -1. */
static int node_named(const AgGraphSnapshot *g, const char *name) {
    for (int i = 0; i < g->num_nodes; i++)
        if (g->nodes[i].name && strcmp(g->nodes[i].name, name) == 0) return i;
    return -1;
}

/* y = a * b + a at a = 2, b = -3: the diamond, differentiated by hand. */
static void test_diamond_kept(void) {
    Tensor *a = tensor_create(0, NULL, (double[]){2}, true);
    Tensor *b = tensor_create(0, NULL, (double[]){-3}, true);
    Tensor *named[] = {a, b};
    Tensor *ab = tensor_mul(a, b), *y = tensor_add(ab, a);
    CHECK(backward(y) == 0 && ag_last_graph() == NULL, "off by default: nothing kept");
    tensor_release(ab), tensor_release(y);
    tensor_zero_grad(a), tensor_zero_grad(b);
    ag_set_keep_graph(true, name_ab, named);
    ab = tensor_mul(a, b), y = tensor_add(ab, a);
    CHECK(backward(y) == 0, "backward with snapshots on");
    const AgGraphSnapshot *g = ag_last_graph();
    CHECK(g && g->num_nodes == 4 && g->num_edges == 4 && !g->truncated, "y, a*b, a, b; 4 edges");
    if (g && g->num_nodes == 4) {
        int ia = node_named(g, "a"), ib = node_named(g, "b");
        CHECK(g->nodes[0].value.values[0] == -4 && g->nodes[0].grad.values[0] == 1, "y = -4, seed 1");
        CHECK(ia > 0 && g->nodes[ia].grad.values[0] == -2 && g->nodes[ia].op == NULL, "a.grad = b + 1");
        CHECK(ib > 0 && g->nodes[ib].grad.values[0] == 2, "b.grad = a");
        CHECK(strcmp(g->nodes[0].op, "AddBackward") == 0 && g->nodes[0].num_edges == 2, "y = add(a*b, a)");
        for (int e = 0; e < g->num_edges; e++) {
            const AgSnapEdge *edge = &g->edges[e];
            double want = edge->from == 0 ? 1 : edge->to == ia ? -3 : 2; /* d(a*b)/da = b */
            CHECK(edge->jacobian && edge->jacobian[0] == want, "edge %d: local %g", e, want);
            CHECK(edge->flow.numel == 1 && edge->flow.values[0] == want, "edge %d: flow %g", e, want);
        }
    }
    CHECK(g && g->bytes > 0 && ag_stats().arena_functions == 0, "kept apart from the freed arena");
    /* A refused backward (the graph is gone) keeps the snapshot before it. */
    CHECK(backward(y) != 0 && ag_last_graph() == g, "a failed backward keeps the last snapshot");
    ag_set_keep_graph(false, NULL, NULL);
    CHECK(ag_last_graph() == NULL, "off forgets it");
    Tensor *all[] = {a, b, ab, y};
    for (int i = 0; i < 4; i++) tensor_release(all[i]);
}

/* A broadcast: y = sum(a * v) with a scalar a: the edge into a has a 3 x 1
 * Jacobian (v's values) and its flow is sum(v). */
static void test_broadcast_kept(void) {
    Tensor *a = tensor_create(0, NULL, (double[]){2}, true);
    Tensor *v = tensor_create(1, (int64_t[]){3}, (double[]){1, -2, 3}, true);
    ag_set_keep_graph(true, NULL, NULL);
    Tensor *av = tensor_mul(a, v), *y = tensor_sum(av);
    CHECK(backward(y) == 0, "backward of sum(a * v)");
    const AgGraphSnapshot *g = ag_last_graph();
    CHECK(g && g->num_nodes == 4, "y, a * v, a, v");
    for (int e = 0; g && e < g->num_edges; e++) {
        const AgSnapEdge *edge = &g->edges[e];
        if (edge->from != 1 || edge->input != 0) continue;
        CHECK(edge->jacobian && edge->jacobian[0] == 1 && edge->jacobian[1] == -2 &&
                  edge->jacobian[2] == 3, "d(a*v)/da = v, a column");
        CHECK(edge->flow.numel == 1 && edge->flow.values[0] == 2, "a's share: sum(v) = 2");
    }
    ag_set_keep_graph(false, NULL, NULL);
    Tensor *all[] = {a, v, av, y};
    for (int i = 0; i < 4; i++) tensor_release(all[i]);
}

/* A chain of 2,000 ops: the snapshot keeps the AG_SNAP_MAX_NODES nearest
 * the loss and says it is cut; a value past AG_SNAP_MAX_ELEMS is a summary. */
static void test_caps(void) {
    ag_set_keep_graph(true, NULL, NULL);
    Tensor *x = tensor_create(1, (int64_t[]){100}, NULL, true), *c = tensor_retain(x);
    for (int i = 0; i < 2000; i++) {
        Tensor *next = tensor_mul(c, x);
        tensor_release(c);
        c = next;
    }
    Tensor *y = tensor_sum(c);
    CHECK(backward(y) == 0, "backward through 2,000 ops");
    const AgGraphSnapshot *g = ag_last_graph();
    CHECK(g && g->num_nodes == AG_SNAP_MAX_NODES && g->truncated, "cut at %d nodes", AG_SNAP_MAX_NODES);
    CHECK(g && g->nodes[1].value.numel == 100 && !g->nodes[1].value.values &&
              g->nodes[1].value.norm == 0, "100 elements: a summary (shape, min, max, norm)");
    /* The memory limit counts it: room for a tensor of 100 elements beside
     * the live ones, but not beside the snapshot too, until it is forgotten. */
    int64_t limit = ag_memory_limit(), room = 100 * 8 + 1024;
    ag_set_memory_limit(ag_stats().live_bytes + ag_stats().arena_bytes + room);
    Tensor *z = tensor_create(1, (int64_t[]){100}, NULL, false);
    CHECK(g && g->bytes > room && z == NULL, "the snapshot's %lld bytes count against the limit",
          g ? (long long)g->bytes : 0LL);
    ag_forget_graph();
    z = tensor_create(1, (int64_t[]){100}, NULL, false);
    CHECK(z != NULL, "forgotten, they are free again");
    ag_set_memory_limit(limit);
    ag_set_keep_graph(false, NULL, NULL);
    tensor_release(x), tensor_release(c), tensor_release(y), tensor_release(z);
}

/* A live graph's snapshot, without a backward: values and Jacobians, no
 * gradients; the graph stays, and backward still runs through it. */
static void test_take_live(void) {
    Tensor *x = tensor_create(0, NULL, (double[]){3}, true);
    Tensor *y = tensor_mul(x, x);
    AgGraphSnapshot *g = ag_graph_take(&y, 1);
    CHECK(g && g->num_nodes == 2 && g->nodes[0].value.values[0] == 9 && g->nodes[0].grad.numel == 0,
          "y = x * x = 9, no gradient yet");
    CHECK(g && g->num_edges == 2 && g->edges[0].jacobian && g->edges[0].jacobian[0] == 3,
          "d(x * x)/d(operand 1) = x = 3");
    ag_graph_snapshot_free(g);
    CHECK(ag_last_graph() == NULL && backward(y) == 0 && tensor_values(x->grad)[0] == 6,
          "the graph is intact: backward gives 2x = 6");
    tensor_release(x), tensor_release(y);
}

void test_snapshot(void) {
    test_take_live();
    test_diamond_kept();
    test_broadcast_kept();
    test_caps();
}
