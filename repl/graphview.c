/*
 * graphview.c — the graph with its numbers: DOT as micrograd's draw_dot
 * draws it, pictures through Graphviz's dot program, and :why. Everything
 * here reads a snapshot (include/ag.h, "the last graph, kept for looking"),
 * never the arena: a backward has freed the graph by the time anyone looks.
 */
#include "graphview.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "builtins.h"
#include "print.h"

/* ======================================================================
 * Names and labels
 * ====================================================================== */

const char graphview_not_kept[] =
    "the last backward ran inside a block or a function, where its graph is not kept "
    "(it would slow every step); run backward at the top level to see it";

int graphview_find(const char *name) {
    const AgGraphSnapshot *g = ag_last_graph();
    for (int i = 0; g && i < g->num_nodes; i++)
        if (g->nodes[i].name && strcmp(g->nodes[i].name, name) == 0) return i;
    return -1;
}

/* "mul" for MulBackward, "tanh" for TanhBackward: the op as the learner
 * wrote it. */
static void op_word(const char *op, char *buf, size_t size) {
    size_t n = strlen(op), suffix = strlen("Backward");
    if (n > suffix && strcmp(op + n - suffix, "Backward") == 0) n -= suffix;
    if (n >= size) n = size - 1;
    for (size_t i = 0; i < n; i++) buf[i] = (char)tolower((unsigned char)op[i]);
    buf[n] = '\0';
}

/* The op's symbol where it has one (micrograd's "+" and "*"), else its word. */
static void op_symbol(const char *op, char *buf, size_t size) {
    static const struct { const char *word, *symbol; } symbols[] = {
        {"add", "+"}, {"sub", "-"}, {"mul", "*"}, {"div", "/"}, {"pow", "**"},
        {"matmul", "@"}, {"neg", "-x"},
    };
    op_word(op, buf, size);
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++)
        if (strcmp(buf, symbols[i].word) == 0) {
            snprintf(buf, size, "%s", symbols[i].symbol);
            return;
        }
}

/* A node as :why names it: its variable, its op ("mul"), or its value. */
static void node_label(const AgSnapNode *n, char *buf, size_t size) {
    if (n->name) snprintf(buf, size, "%s", n->name);
    else if (n->op) op_word(n->op, buf, size);
    else if (n->value.numel == 1 && n->value.values) snprintf(buf, size, "%.6g", n->value.values[0]);
    else snprintf(buf, size, n->requires_grad ? "leaf" : "constant");
}

/* ======================================================================
 * DOT, as draw_dot: { name | data 2.0000 | grad -1.5000 }
 * ====================================================================== */

enum { DOT_LIST_MAX = 6 }; /* elements written out in a record; past it a summary */

/* Appends text with DOT record's special characters escaped. */
static void record_text(StrBuf *out, const char *text) {
    for (; *text; text++) {
        if (strchr("{}|<>\"\\", *text)) strbuf_append(out, "\\");
        strbuf_appendn(out, text, 1);
    }
}

static void record_values(StrBuf *out, const char *what, const AgSnapValues *v) {
    if (v->numel == 0) {
        strbuf_appendf(out, " | %s none", what);
    } else if (v->values && v->numel == 1) {
        strbuf_appendf(out, " | %s %.4f", what, v->values[0]);
    } else if (v->values && v->numel <= DOT_LIST_MAX) {
        strbuf_appendf(out, " | %s [", what);
        for (int64_t i = 0; i < v->numel; i++)
            strbuf_appendf(out, "%s%.4f", i ? ", " : "", v->values[i]);
        strbuf_append(out, "]");
    } else {
        strbuf_appendf(out, " | %s min %.4f max %.4f norm %.4f", what, v->min, v->max, v->norm);
    }
}

static void dot_node(StrBuf *out, const AgGraphSnapshot *g, int id, int root) {
    const AgSnapNode *n = &g->nodes[id];
    char shape[AG_SHAPE_STR_MAX], word[64];
    strbuf_appendf(out, "  n%d [shape=record, label=\"{ ", id);
    if (n->name) record_text(out, n->name);
    else if (!n->op && n->requires_grad) record_text(out, "leaf");
    else if (!n->op && !n->requires_grad) record_text(out, "const");
    if (n->ndim > 0) {
        strbuf_append(out, n->name || !n->op ? " " : "");
        record_text(out, ag_shape_str(n->ndim, n->shape, shape, sizeof shape));
    }
    record_values(out, "data", &n->value);
    if (n->op || n->requires_grad) record_values(out, "grad", &n->grad);
    strbuf_append(out, " }\"");
    if (id == root) strbuf_append(out, ", style=\"filled,bold\", fillcolor=\"#f4cccc\"");
    else if (!n->op && n->requires_grad) strbuf_append(out, ", style=filled, fillcolor=\"#cfe2f3\"");
    else if (!n->op) strbuf_append(out, ", fontcolor=\"#666666\"");
    if (n->cut) strbuf_append(out, ", style=dashed");
    strbuf_append(out, "];\n");
    if (!n->op) return;
    op_symbol(n->op, word, sizeof word);
    strbuf_appendf(out, "  op%d [label=\"", id);
    record_text(out, word);
    strbuf_appendf(out, "\", shape=ellipse];\n  op%d -> n%d;\n", id, id);
}

/* The edges into node id's op, each labelled with its local derivative
 * when that is one number. */
static void dot_edges(StrBuf *out, const AgGraphSnapshot *g, int id) {
    const AgSnapNode *n = &g->nodes[id];
    for (int e = n->first_edge; e >= 0 && e < n->first_edge + n->num_edges; e++) {
        const AgSnapEdge *edge = &g->edges[e];
        strbuf_appendf(out, "  n%d -> op%d", edge->to, id);
        if (edge->jacobian && g->nodes[id].value.numel == 1 && g->nodes[edge->to].value.numel == 1)
            strbuf_appendf(out, " [label=\"local %.4f\"]", edge->jacobian[0]);
        strbuf_append(out, ";\n");
    }
}

/* The nodes root reaches, in the snapshot's order (nearest the loss first). */
static bool *reached_from(const AgGraphSnapshot *g, int root) {
    bool *seen = calloc((size_t)g->num_nodes, sizeof *seen);
    int *stack = malloc((size_t)g->num_nodes * sizeof *stack), top = 0;
    if (!seen || !stack) {
        free(seen);
        free(stack);
        return NULL;
    }
    seen[root] = true;
    stack[top++] = root;
    while (top > 0) {
        const AgSnapNode *n = &g->nodes[stack[--top]];
        for (int e = n->first_edge; e >= 0 && e < n->first_edge + n->num_edges; e++)
            if (!seen[g->edges[e].to]) {
                seen[g->edges[e].to] = true;
                stack[top++] = g->edges[e].to;
            }
    }
    free(stack);
    return seen;
}

void graphview_dot(const AgGraphSnapshot *g, int root, StrBuf *out) {
    const char *title = g->nodes[root].name ? g->nodes[root].name : "graph";
    strbuf_append(out, "digraph \"");
    record_text(out, title);
    strbuf_append(out, "\" {\n  rankdir=LR;\n  node [fontname=\"Helvetica\", fontsize=11];\n");
    bool *seen = reached_from(g, root);
    for (int i = 0; i < g->num_nodes; i++)
        if (!seen || seen[i]) dot_node(out, g, i, root);
    for (int i = 0; i < g->num_nodes; i++)
        if ((!seen || seen[i]) && g->nodes[i].op) dot_edges(out, g, i);
    if (g->truncated)
        strbuf_appendf(out, "  cut [shape=plaintext, label=\"(the graph goes on: the %d "
                            "nodes nearest the loss are kept)\"];\n", AG_SNAP_MAX_NODES);
    strbuf_append(out, "}\n");
    free(seen);
}

/* ======================================================================
 * Pictures: Graphviz's dot program, run with fork and exec
 * ====================================================================== */

static const char *extension(const char *file) {
    const char *dot = strrchr(file, '.');
    return dot && !strchr(dot, '/') ? dot : "";
}

const char *graphview_format(const char *file) {
    if (strcmp(extension(file), ".svg") == 0) return "svg";
    if (strcmp(extension(file), ".png") == 0) return "png";
    return "";
}

bool graphview_is_file(const char *word) {
    const char *ext = extension(word);
    return *graphview_format(word) || strcmp(ext, ".dot") == 0 || strcmp(ext, ".gv") == 0;
}

static const char install_dot[] =
    "Graphviz's dot program is not installed (apt-get install graphviz; brew install "
    "graphviz); :dot FILE.dot writes the text it reads";

/* Whether an executable `dot` is on PATH. */
static bool dot_on_path(void) {
    const char *path = getenv("PATH");
    if (!path) path = "/usr/bin:/bin";
    while (*path) {
        size_t len = strcspn(path, ":");
        char full[4096];
        if (len > 0 && len + 5 < sizeof full) {
            snprintf(full, sizeof full, "%.*s/dot", (int)len, path);
            if (access(full, X_OK) == 0) return true;
        }
        path += len + (path[len] == ':');
    }
    return false;
}

/* Runs dot -Tformat -o out in, quietly; 0 when it succeeded. */
static int run_dot(const char *format, const char *in, const char *out) {
    char flag[16];
    snprintf(flag, sizeof flag, "-T%s", format);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        FILE *quiet = freopen("/dev/null", "w", stderr);
        (void)quiet;
        execlp("dot", "dot", flag, "-o", out, in, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* text into a new temporary file beside like (like.XXXXXX): its name in
 * name. false when it cannot be written. */
static bool temp_beside(const char *like, const char *text, size_t len, char *name, size_t size) {
    if ((size_t)snprintf(name, size, "%s.XXXXXX", like) >= size) return false;
    int fd = mkstemp(name);
    if (fd < 0) return false;
    mode_t mask = umask(0); /* mkstemp's 0600: the file gets what fopen would give it */
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(name);
        return false;
    }
    bool ok = fwrite(text, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
    if (!ok) unlink(name);
    return ok;
}

/* Renders dot as format into a new temporary file beside like, named in
 * out (the DOT text goes through another, removed after). */
static bool render_temp(Session *s, const StrBuf *dot, const char *format, const char *like,
                        char *out, size_t size) {
    if (!dot_on_path()) return session_fail(s, 0, 0, "%s", install_dot);
    char in[4200];
    if (!temp_beside(like, dot->data, dot->len, in, sizeof in))
        return session_fail(s, 0, 0, "cannot write beside '%.200s': %s", like, strerror(errno));
    bool ok = temp_beside(like, "", 0, out, size);
    if (!ok) {
        int err = errno;
        unlink(in);
        return session_fail(s, 0, 0, "cannot write beside '%.200s': %s", like, strerror(err));
    }
    ok = run_dot(format, in, out) == 0;
    unlink(in);
    if (!ok) unlink(out);
    return ok || session_fail(s, 0, 0, "Graphviz's dot could not render the graph");
}

/* Renders dot into file (a picture): a temporary file renamed when whole. */
static bool render(Session *s, const StrBuf *dot, const char *format, const char *file) {
    char out[4200];
    if (!render_temp(s, dot, format, file, out, sizeof out)) return false;
    if (rename(out, file) == 0) return true;
    int err = errno;
    unlink(out);
    return session_fail(s, 0, 0, "cannot write '%.200s': %s", file, strerror(err));
}

bool graphview_write(Session *s, const StrBuf *dot, const char *file) {
    const char *format = graphview_format(file);
    if (*format) return render(s, dot, format, file);
    char tmp[4200];
    if (!temp_beside(file, dot->data, dot->len, tmp, sizeof tmp))
        return session_fail(s, 0, 0, "cannot write '%.200s': %s", file, strerror(errno));
    if (rename(tmp, file) == 0) return true;
    int err = errno;
    unlink(tmp);
    return session_fail(s, 0, 0, "cannot write '%.200s': %s", file, strerror(err));
}

bool graphview_svg(Session *s, const StrBuf *dot, StrBuf *svg) {
    const char *dir = getenv("TMPDIR");
    char like[4096], out[4200];
    snprintf(like, sizeof like, "%s/ag-graph.svg", dir && *dir ? dir : "/tmp");
    if (!render_temp(s, dot, "svg", like, out, sizeof out)) return false;
    FILE *f = fopen(out, "r");
    char buf[4096];
    size_t n;
    while (f && (n = fread(buf, 1, sizeof buf, f)) > 0) strbuf_appendn(svg, buf, n);
    bool ok = f && !ferror(f) && !svg->oom;
    if (f) fclose(f);
    unlink(out);
    return ok || session_fail(s, 0, 0, "cannot read the picture Graphviz drew");
}

/* ======================================================================
 * :why — the chain rule, path by path
 * ====================================================================== */

enum {
    WHY_MAX_PATHS = 32,   /* past it, paths are grouped by the first op out of the tensor */
    WHY_PATH_COLUMN = 24, /* where a path's product starts */
};

typedef struct {
    Session *s;
    const AgGraphSnapshot *g;
    int target;
    int64_t *paths;   /* per node: paths from it down to the target (capped), or -1 unknown */
    bool exact;       /* every edge on those paths has its Jacobian */
} Why;

/* Whether gradient flows along edge e: to a tensor that requires grad. */
static bool edge_carries(const Why *w, int e) {
    return w->g->nodes[w->g->edges[e].to].requires_grad;
}

/* Paths from node id down to the target, capped past WHY_MAX_PATHS (the
 * snapshot's depth is at most AG_SNAP_MAX_NODES: recursion is bounded). */
static int64_t count_paths(Why *w, int id) {
    if (w->paths[id] >= 0) return w->paths[id];
    int64_t n = id == w->target;
    const AgSnapNode *node = &w->g->nodes[id];
    for (int e = node->first_edge; id != w->target && e >= 0 && e < node->first_edge + node->num_edges; e++) {
        if (!edge_carries(w, e)) continue;
        int64_t below = count_paths(w, w->g->edges[e].to);
        if (below > 0 && !w->g->edges[e].jacobian) w->exact = false;
        n += below;
        if (n > WHY_MAX_PATHS) n = WHY_MAX_PATHS + 1;
    }
    return w->paths[id] = n;
}

/* v as Python's repr writes a float (the digits that read back exactly). */
static void put_number(StrBuf *out, double v) { format_number(out, v); }

static void put_values(StrBuf *out, const double *v, int64_t n) {
    if (n == 1) {
        put_number(out, v[0]);
        return;
    }
    strbuf_append(out, "[");
    for (int64_t i = 0; i < n; i++) {
        if (i) strbuf_append(out, ", ");
        put_number(out, v[i]);
    }
    strbuf_append(out, "]");
}

/* c (rows elements) times edge e's Jacobian, into next (its columns). */
static void times_jacobian(const Why *w, int e, const double *c, double *next) {
    const AgSnapEdge *edge = &w->g->edges[e];
    int64_t rows = w->g->nodes[edge->from].value.numel, cols = w->g->nodes[edge->to].value.numel;
    for (int64_t k = 0; k < cols; k++) {
        double sum = 0;
        for (int64_t r = 0; r < rows; r++) {
            double term = c[r] * edge->jacobian[r * cols + k];
            sum = r == 0 ? term : sum + term;
        }
        next[k] = sum;
    }
}

/* Whether node from takes node to as more than one operand (x * x). */
static bool taken_twice(const AgGraphSnapshot *g, int from, int to) {
    const AgSnapNode *n = &g->nodes[from];
    int count = 0;
    for (int e = n->first_edge; e < n->first_edge + n->num_edges; e++) count += g->edges[e].to == to;
    return count > 1;
}

/* The path's nodes from the loss down: "y <- mul <-2- x", the operand's
 * number on a step whose op takes its input more than once. */
static void path_text(const AgGraphSnapshot *g, const int *path, int len, StrBuf *out) {
    char label[160];
    size_t start = out->len;
    node_label(&g->nodes[0], label, sizeof label);
    strbuf_appendf(out, "  %s", label);
    for (int i = 0; i < len; i++) {
        const AgSnapEdge *e = &g->edges[path[i]];
        node_label(&g->nodes[e->to], label, sizeof label);
        if (taken_twice(g, e->from, e->to)) strbuf_appendf(out, " <-%d- %s", e->input + 1, label);
        else strbuf_appendf(out, " <- %s", label);
    }
    size_t used = out->len - start;
    strbuf_appendf(out, "%*s", used < WHY_PATH_COLUMN ? (int)(WHY_PATH_COLUMN - used) : 1, "");
}

/* One path (edges path[0 .. len), from the loss down): its line, and its
 * contribution added into total. Scalar steps show their local
 * derivatives, multiplied; a path through tensors shows the gradient after
 * each step (the seed times the Jacobians so far). */
static void why_path(Why *w, const int *path, int len, double *total, StrBuf *out) {
    const AgGraphSnapshot *g = w->g;
    double c[AG_SNAP_MAX_JACOBIAN], next[AG_SNAP_MAX_JACOBIAN];
    int64_t n = g->nodes[0].grad.numel;
    memcpy(c, g->nodes[0].grad.values, (size_t)n * sizeof *c); /* the seed */
    bool scalar = n == 1;
    for (int i = 0; i < len; i++) scalar &= g->nodes[g->edges[path[i]].to].value.numel == 1;
    path_text(g, path, len, out);
    if (!scalar) put_values(out, c, n);
    for (int i = 0; i < len; i++) {
        const AgSnapEdge *e = &g->edges[path[i]];
        int64_t cols = g->nodes[e->to].value.numel;
        if (scalar) strbuf_append(out, i ? " * " : "");
        if (scalar) put_number(out, e->jacobian[0]);
        times_jacobian(w, path[i], c, next);
        memcpy(c, next, (size_t)cols * sizeof *c);
        n = cols;
        if (!scalar) strbuf_append(out, " -> ");
        if (!scalar) put_values(out, c, n);
    }
    if (scalar) strbuf_append(out, " = ");
    if (scalar) put_values(out, c, n);
    strbuf_append(out, "\n");
    for (int64_t k = 0; k < n; k++) total[k] = total[k] + c[k];
}

/* Every path from the loss to the target, depth first, in edge order. */
static int why_all_paths(Why *w, double *total, StrBuf *out) {
    const AgGraphSnapshot *g = w->g;
    int *path = malloc((size_t)(g->num_nodes + 1) * sizeof *path);
    int *next_edge = malloc((size_t)(g->num_nodes + 1) * sizeof *next_edge);
    if (!path || !next_edge) {
        free(path);
        free(next_edge);
        return -1;
    }
    int depth = 0, count = 0, at = 0;
    next_edge[0] = g->nodes[0].first_edge;
    while (depth >= 0) {
        const AgSnapNode *n = &g->nodes[at];
        int e = next_edge[depth];
        if (at == w->target || e < 0 || e >= n->first_edge + n->num_edges) {
            if (at == w->target) why_path(w, path, depth, total, out), count++;
            if (--depth >= 0) at = g->edges[path[depth]].from;
            continue;
        }
        next_edge[depth]++;
        if (!edge_carries(w, e) || count_paths(w, g->edges[e].to) == 0) continue;
        path[depth++] = e;
        at = g->edges[e].to;
        next_edge[depth] = g->nodes[at].first_edge;
    }
    free(path);
    free(next_edge);
    return count;
}

/* Large graphs: the gradient each consumer of the target sent it, which is
 * the sum over every path through that consumer. */
static int why_grouped(Why *w, double *total, StrBuf *out) {
    const AgGraphSnapshot *g = w->g;
    int count = 0;
    char label[160];
    for (int e = 0; e < g->num_edges; e++) {
        const AgSnapEdge *edge = &g->edges[e];
        if (edge->to != w->target || edge->flow.numel == 0) continue;
        node_label(&g->nodes[edge->from], label, sizeof label);
        strbuf_appendf(out, "  through %s (operand %d of %s): ", label, edge->input + 1,
                       g->nodes[edge->from].op);
        if (edge->flow.values) put_values(out, edge->flow.values, edge->flow.numel);
        else strbuf_append(out, "(too big to list)");
        strbuf_append(out, "\n");
        for (int64_t k = 0; edge->flow.values && k < edge->flow.numel; k++)
            total[k] = count ? total[k] + edge->flow.values[k] : edge->flow.values[k];
        count++;
    }
    return count;
}

/* The sum against the gradient backward computed. */
static void why_verdict(Why *w, const char *name, const double *total, int count,
                        const char *what, StrBuf *out) {
    const AgSnapValues *grad = &w->g->nodes[w->target].grad;
    bool equal = true;
    for (int64_t k = 0; k < grad->numel; k++) equal &= total[k] == grad->values[k];
    strbuf_appendf(out, "  sum over %d %s%s: ", count, what, count == 1 ? "" : "s");
    put_values(out, total, grad->numel);
    if (equal) {
        strbuf_appendf(out, ", equal to %s.grad\n", name);
        return;
    }
    strbuf_appendf(out, ", where backward computed %s.grad = ", name);
    put_values(out, grad->values, grad->numel);
    strbuf_append(out, "\n(the difference is rounding: backward adds the gradients meeting at a\n"
                       "node before multiplying on, the sum here adds whole paths)\n");
}

/* The argument, NAME or NAME.grad, as a name; false with the error set. */
static bool why_name(Session *s, const char *arg, char *name, size_t size) {
    size_t len = strlen(arg);
    if (len > 5 && strcmp(arg + len - 5, ".grad") == 0) len -= 5;
    bool plain = len > 0 && len < size && (isalpha((unsigned char)arg[0]) || arg[0] == '_');
    for (size_t i = 0; plain && i < len; i++) plain = isalnum((unsigned char)arg[i]) || arg[i] == '_';
    if (!plain)
        return session_fail(s, 0, 0, ":why takes a variable's name, or NAME.grad (:why a)");
    memcpy(name, arg, len);
    name[len] = '\0';
    return true;
}

/* The node :why explains, or -1 with the error set. */
static int why_target(Session *s, const AgGraphSnapshot *g, const char *name) {
    int id = graphview_find(name);
    char loss[160];
    if (g) node_label(&g->nodes[0], loss, sizeof loss);
    if (!g && s->graph_not_kept) session_set_error(s, 0, 0, ":why: %s", graphview_not_kept);
    else if (!g) session_set_error(s, 0, 0, ":why explains the last backward's gradients: run backward first");
    else if (id < 0 && !session_lookup(s, name, strlen(name)))
        session_set_error(s, 0, 0, ":why: no variable '%s'", name);
    else if (id < 0)
        session_set_error(s, 0, 0, ":why: %s was not in the graph of the last backward (of %s)", name, loss);
    else if (id == 0)
        session_set_error(s, 0, 0, ":why: %s is the loss itself: its gradient is the seed", name);
    else if (g->nodes[id].grad.numel == 0)
        session_set_error(s, 0, 0, ":why: no gradient reached %s in the last backward", name);
    else if (!g->nodes[id].grad.values || !g->nodes[0].grad.values)
        session_set_error(s, 0, 0, ":why: %s has more than %d elements; the snapshot keeps only "
                     "their summary", name, AG_SNAP_MAX_ELEMS);
    else return id;
    return -1;
}

bool graphview_why(Session *s, const char *arg) {
    char name[128], loss[160];
    if (!why_name(s, arg, name, sizeof name)) return false;
    const AgGraphSnapshot *g = ag_last_graph();
    int target = why_target(s, g, name);
    if (target < 0) return false;
    Why w = {.s = s, .g = g, .target = target, .exact = true};
    double total[AG_SNAP_MAX_ELEMS] = {0};
    w.paths = malloc((size_t)g->num_nodes * sizeof *w.paths);
    if (!w.paths) return session_fail(s, 0, 0, "out of memory");
    for (int i = 0; i < g->num_nodes; i++) w.paths[i] = -1;
    int64_t paths = count_paths(&w, 0);
    bool each = paths <= WHY_MAX_PATHS && w.exact && !g->truncated;
    StrBuf out;
    strbuf_init(&out);
    node_label(&g->nodes[0], loss, sizeof loss);
    strbuf_appendf(&out, "%s.grad = ", name);
    put_values(&out, g->nodes[target].grad.values, g->nodes[target].grad.numel);
    strbuf_appendf(&out, " (from the last backward, of %s)\n", loss);
    if (each)
        strbuf_appendf(&out, "the chain rule: the sum over every path from %s down to %s of\n%s\n",
                       loss, name, g->nodes[target].grad.numel == 1 && g->nodes[0].grad.numel == 1
                                   ? "the product of the local derivatives along it:"
                                   : "the gradient pushed along it, step by step:");
    else
        strbuf_appendf(&out, "%s: grouped by the op that takes %s,\neach the sum over the "
                             "paths through it (what backward sent along that edge):\n",
                       paths > WHY_MAX_PATHS ? "too many paths to list"
                                             : "not every local derivative was kept", name);
    int count = each ? why_all_paths(&w, total, &out) : why_grouped(&w, total, &out);
    if (count > 0) why_verdict(&w, name, total, count, each ? "path" : "edge", &out);
    else if (count == 0) /* a create_graph backward keeps no edge gradients */
        strbuf_append(&out, "  (none kept: a backward with create_graph=True keeps no gradients "
                            "along edges)\n");
    fputs(out.data, s->out);
    strbuf_free(&out);
    free(w.paths);
    return count >= 0 || session_fail(s, 0, 0, "out of memory");
}

/* ======================================================================
 * draw(y): the picture, to a notebook or to a file
 * ====================================================================== */

/* The snapshot to draw for y: of its live graph (taken now: *owned), or
 * the last backward's node that holds it; NULL with the error set. */
static const AgGraphSnapshot *draw_source(Session *s, CallArgs *a, Tensor *y, int *root,
                                          AgGraphSnapshot **owned) {
    *root = 0;
    *owned = NULL;
    if (tensor_is_leaf(y) || tensor_has_graph(y)) {
        *owned = ag_graph_take(&y, 1);
        if (!*owned) session_set_error(s, a->line, a->col, "draw: out of memory");
        return *owned;
    }
    const char *name = session_tensor_name(y, s);
    *root = name ? graphview_find(name) : -1;
    if (*root >= 0) return ag_last_graph();
    if (s->graph_not_kept) session_set_error(s, a->line, a->col, "draw: %s", graphview_not_kept);
    else session_set_error(s, a->line, a->col, "draw: this value's graph was freed by a backward "
                           "that did not go through it; recompute it to draw it");
    return NULL;
}

/* Where the picture goes without a display: the file named, or graph.svg
 * (graph.dot, its text, where Graphviz is missing). */
static bool draw_to_file(Session *s, CallArgs *a, const StrBuf *dot) {
    char path[4096] = "graph.svg";
    if (arg_present(a, 1) && !arg_path(s, a, 1, path, sizeof path)) return false;
    if (!s->allow_files) return session_fail(s, a->line, a->col, "draw: files are off here");
    if (graphview_write(s, dot, path)) {
        fprintf(s->out, "wrote %s%s\n", path,
                strcmp(graphview_format(path), "svg") == 0 ? " (open it in a browser)" : "");
        return true;
    }
    if (arg_present(a, 1) || strncmp(s->error, install_dot, 20) != 0) {
        s->error_line = a->line; /* graphview_write's message, at the call */
        s->error_col = a->col;
        return false;
    }
    strcpy(path, "graph.dot");
    if (!graphview_write(s, dot, path)) return false;
    fprintf(s->out, "Graphviz's dot is not installed (apt-get install graphviz), so no picture: "
                    "wrote %s, its text\n", path);
    return true;
}

/* draw(y, file=None) */
static BUILTIN(bi_draw) {
    (void)out;
    Tensor *y;
    if (!arg_tensor(s, a, 0, &y)) return false;
    int root;
    AgGraphSnapshot *owned;
    const AgGraphSnapshot *g = draw_source(s, a, y, &root, &owned);
    if (!g) return false;
    StrBuf dot, svg;
    strbuf_init(&dot);
    strbuf_init(&svg);
    graphview_dot(g, root, &dot);
    ag_graph_snapshot_free(owned);
    bool ok;
    if (dot.oom) ok = session_fail(s, a->line, a->col, "draw: out of memory");
    else if (s->display && !arg_present(a, 1)) /* a notebook: the picture, shown */
        ok = graphview_svg(s, &dot, &svg) &&
             session_display(s, "image/svg+xml", svg.data, svg.len);
    else ok = draw_to_file(s, a, &dot);
    strbuf_free(&dot);
    strbuf_free(&svg);
    return ok;
}

const Builtin graph_builtins[] = {
    {"draw", "draw(input, file=None)", "the graph behind a value as a picture, with each "
     "node's data and grad (after a backward, the graph it went through)",
     "writes graph.svg (or file: .svg, .png, .dot) through Graphviz's dot; in a notebook the "
     "picture is shown", bi_draw, BI_VOID, VAL_VOID, NULL},
};
const int num_graph_builtins = sizeof graph_builtins / sizeof graph_builtins[0];
