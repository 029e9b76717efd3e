/*
 * commands.c — the shell commands: :help [NAME], :vars, :mem, :graph, :dot,
 * :why, :trace, :anomaly, :load FILE, :reset, :quit. Each is a whole line; its argument is
 * the rest of it. One table at the end; :help and completion read it.
 */
#include "commands.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "builtins.h"
#include "graphview.h"
#include "inspect.h"

/* What a command is run with. */
typedef struct {
    Session *s;
    int line;           /* of the source, for messages */
    LoadFn load;
} Cmd;

typedef struct {
    CommandInfo info;
    bool takes_arg;
    bool (*fn)(Cmd *c, const char *arg);
} Command;

static const Command *command_find(const char *name, size_t len);
static const Command commands[];
static const int num_commands;

#define cmd_error(c, ...) session_set_error((c)->s, (c)->line, 1, __VA_ARGS__)
#define cmd_fail(c, ...) (cmd_error(c, __VA_ARGS__), false)

/* Fails with the message already in the session's error (set by what the
 * command called), at the command's line. Passing s->error to cmd_fail as
 * an argument would format the buffer into itself, and print nothing. */
static bool cmd_fail_as_set(Cmd *c) {
    c->s->error_line = c->line;
    c->s->error_col = 1;
    return false;
}

/* ======================================================================
 * :help
 * ====================================================================== */

static const char arena_help[] =
    "The arena: where the graph lives between forward and backward.\n"
    "\n"
    "Every operation on a tensor that requires grad records a Function (the\n"
    "node that knows how to send gradients back) in an arena: one block of\n"
    "memory per thread. backward() frees the graph it ran through (as PyTorch\n"
    "does); the arena's memory goes back once no graph in it is alive. That\n"
    "makes recording nearly free, and it has a caveat:\n"
    "\n"
    "  * A forward pass that never reaches backward keeps its graph in the\n"
    "    arena, with every tensor the graph needs, until a backward finds it\n"
    "    dead (no name holds its result) or :reset. Exploring at the prompt\n"
    "    builds such graphs all the time; :mem shows how much is waiting.\n"
    "    When it passes 1,000 nodes (then 10,000, ...) the dead graphs go\n"
    "    and, if as many are still alive, the shell prints a note.\n"
    "    no_grad { } records nothing.\n"
    "  * A graph a name keeps alive keeps the arena, with the memory of the\n"
    "    graphs already differentiated, up to 64 MiB; past that a backward\n"
    "    frees the whole arena, and backward on a value whose graph went is an\n"
    "    error: recompute it from the leaves, or keep the graph with\n"
    "    backward(y, retain_graph=True) for another backward.\n";

static const char grad_help[] =
    "\nGradients, first and higher order.\n"
    "\n"
    "  backward(y)                    each leaf's .grad += dy/dleaf (y one element;\n"
    "                                 backward(y, g) for any y: the vector-Jacobian product)\n"
    "  grad(f, x)                     prints f(x) and df/dx, on copies: no .grad changes;\n"
    "                                 g = grad(f, x) returns df/dx instead\n"
    "  backward(y, create_graph=True) .grad gets a graph of its own (a grad_fn), so\n"
    "                                 backward(x.grad) gives the second derivative\n"
    "  backward(y, retain_graph=True) keeps y's graph for another backward\n"
    "\n"
    "In .py files, PyTorch's: torch.autograd.grad(y, x, create_graph=True) returns\n"
    "the gradient (a tuple), to differentiate again to any order;\n"
    "torch.autograd.functional's jacobian, hessian, vjp, jvp, hvp, vhp; torch.func\n"
    "(or functorch): grad(grad(f)), grad_and_value, jacrev, jacfwd, hessian, vmap;\n"
    "x.retain_grad(), x.register_hook(fn) and torch.autograd.Function for your own\n"
    "backward. Forward mode (jvp, jacfwd) is two reverse passes (the double-vjp trick).\n"
    "Every op differentiates to any order. docs/tutorial.md, chapters 13 and 14.\n";

static const char functions_help[] =
    "Functions: f(x, w) = EXPR defines f; f(a, b) evaluates EXPR afresh with x = a\n"
    "and w = b. A body can also be a block ending in return:\n"
    "\n"
    "  f(x, w) { h = relu(x @ w); return sum(h) }\n"
    "\n"
    "Parameters and the names a body binds are local to the call; other names\n"
    "are looked up when f is called. Defining f again replaces it.\n"
    "\n"
    "  grad(f, x, w)        f's value and df/dx, df/dw (for arguments that require grad)\n"
    "  gradcheck(f, x, w)   those gradients against finite differences\n"
    "  gradgradcheck(f, x, w)  the gradients' own gradients (second derivatives)\n"
    "                       against finite differences of the gradients\n";

static const char blocks_help[] =
    "Blocks and loops (a block is { statements }; } else goes on the line of the }):\n"
    "\n"
    "  for i in range(100) { ... }      range(n), range(a, b[, step]): numbers\n"
    "  for row in X { ... }             each slice of X along its first dimension\n"
    "  while loss > 0.01 and i < 1000 { ... }\n"
    "  if x > 0 { ... } else if x < 0 { ... } else { ... }\n"
    "  break   continue   return e\n"
    "  no_grad { ... }                  nothing inside records a graph\n"
    "\n"
    "Blocks are quiet: inside one, values and gradients are not printed (print()\n"
    "prints). They open no scope: names bound inside stay bound. Ctrl-C stops a\n"
    "running loop; variables keep what the loop had given them.\n";

static const char pytorch_help[] =
    "Coming from PyTorch: a .py file runs as written (ag tutorial.py; ag -i\n"
    "tutorial.py stays at the prompt after it), printing what Python prints.\n"
    "At the prompt and in .ag files, keep or delete torch.; blocks are indented\n"
    "(a blank line ends one) or written with { }.\n"
    "\n"
    "  PyTorch                           ag\n"
    "  torch.tensor([1., 2.], requires_grad=True)\n"
    "                                    the same, or tensor([1, 2], grad)\n"
    "  y.backward()                      the same, or backward(y): prints the .grads\n"
    "  x.grad = None, x.grad.zero_()     the same, or zero_grad(x, ...), or\n"
    "                                      zero_grad() for every variable\n"
    "  torch.optim.SGD([w, b], lr=0.1)   the same, or SGD([w, b], lr=0.1); also Adam,\n"
    "                                      AdamW, RMSprop, Adagrad (PyTorch's rules)\n"
    "  torch.optim.LBFGS(params)         the same in .py files: opt.step(closure)\n"
    "  nn.Sequential(nn.Linear(2, 8),    the same in .py files (nn.Module, the\n"
    "      nn.ReLU(), nn.Linear(8, 1))     layers, losses, model.parameters())\n"
    "  opt.zero_grad(); opt.step()       the same\n"
    "  with torch.no_grad():             the same, or no_grad { ... }\n"
    "  with torch.no_grad():             w -= lr * w.grad  (no no_grad needed:\n"
    "      w -= lr * w.grad                w stays a leaf; then w.grad = None)\n"
    "  torch.autograd.set_detect_anomaly(True)\n"
    "                                    the same, or :anomaly on: a nan in backward\n"
    "                                      names its Function, element and line\n"
    "  def f(x): return x * 2            the same, f(x) = x * 2, f(x) { ... }\n"
    "  for t in range(2000):             for t in range(2000) { ... }\n"
    "  while loss > 0.01:                while loss > 0.01 { ... }\n"
    "  if a: ... elif b: ... else: ...   if a { ... } else if b { ... } else { ... }\n"
    "  F.relu(x), F.mse_loss(p, t)       the same after import torch.nn.functional\n"
    "                                      as F, or relu(x), mse_loss(p, t)\n"
    "  x.max(1).values, x.max(1)[0]      the same in .py files; in .ag, x.max(1):\n"
    "  x.max(1).indices                    with a dim, max and min give the values\n"
    "                                      only, x.argmax(1) the indices\n"
    "  loss.item(), x.numel(), len(x)    the same: numbers (6, not 6.0)\n"
    "  x.grad is None                    the same, or x.grad == None\n"
    "  print(\"loss\", loss)               the same\n"
    "  np.loadtxt(f), plt.plot(losses)   load_csv(\"f\"), plot(losses)\n"
    "  import torch.nn.functional as F   binds F; numpy and others are errors\n"
    "  exit(), quit()                    :quit or Ctrl-D\n"
    "\n"
    "Tensors are float64 unless made otherwise (dtype=, .float()). In-place\n"
    "ops change the tensor every name holding it sees; reshape and view share\n"
    "data, transposes copy. create_graph=True works (:help arena). grad_fn names drop\n"
    "PyTorch's digit (<MulBackward>). A literal alone is a tensor: 7 // 2 prints\n"
    "tensor(3.).\n"
    "docs/pytorch.md has the whole table and the reasons.\n";

static const char dot_help[] =
    "\nThe graph, drawn with its numbers (as micrograd's draw_dot):\n"
    "\n"
    "  backward(y); :dot       the graph that backward went through: a box per tensor\n"
    "                          { name | data 2.0000 | grad -1.5000 }, an oval per op,\n"
    "                          each arrow labelled with its local derivative when that\n"
    "                          is one number; leaves that require grad blue, y red\n"
    "  :dot NAME               after a backward, the part below NAME; before one, the\n"
    "                          live graph's structure, numbered as :graph and :trace\n"
    "  :dot graph.svg          a picture, by Graphviz's dot program (apt-get install\n"
    "  :dot NAME graph.png       graphviz); FILE.dot (or any other name): the text\n"
    "  draw(y)                 the same picture, in graph.svg (draw(y, FILE) elsewhere)\n"
    "\n"
    "The last backward's graph is kept (at most 500 nodes, the nearest y; 64\n"
    "elements a tensor, past that min, max and norm) until the next backward,\n"
    "when it ran at the top level: one in a loop or a function keeps none.\n";

static const char why_help[] =
    "\n:why NAME (or :why NAME.grad), after a backward: the chain rule, path by path.\n"
    "Every path from the loss down to NAME, with the local derivative of each step,\n"
    "multiplied; the products summed and compared with NAME.grad to the last digit\n"
    "(Python's repr). Through tensors each step shows the gradient after it (the\n"
    "vector-Jacobian product); for a tensor NAME the sum is checked element by element.\n"
    "Past 32 paths, or where a local derivative was not kept (a Jacobian past 64\n"
    "elements, a graph past 200 nodes), the paths are grouped by the op that takes\n"
    "NAME: what backward sent along each of those edges. A sum may part from the\n"
    "gradient in the last digit: backward adds at each node before multiplying on.\n";

static const struct {
    const char *name, *text;
} topics[] = {
    {"dot", dot_help}, {"why", why_help},
    {"arena", arena_help}, {"functions", functions_help}, {"blocks", blocks_help},
    {"grad", grad_help},
    {"pytorch", pytorch_help},
};

static const char *topic_text(const char *name) {
    for (size_t i = 0; i < sizeof topics / sizeof topics[0]; i++)
        if (strcmp(name, topics[i].name) == 0) return topics[i].text;
    return NULL;
}

static void help_overview(Session *s) {
    fprintf(s->out, "ag %s: a calculator for gradients. Every value is a float64 tensor.\n\n"
                    "  x = tensor([[1, 2]], requires_grad=True)   a leaf that requires grad\n"
                    "  y = sum(x * x)               operators + - * / // %% @ ** broadcast\n"
                    "  backward(y)                  prints x.grad = tensor([[2., 4.]])\n"
                    "  f(x) = sum(x ** 3)           defines a function (:help functions)\n"
                    "  for i in range(3) { ... }    blocks and loops (:help blocks)\n\n"
                    "Builtins (:help NAME for one; x.f(...) is f(x, ...); torch.f works too):\n",
            AG_VERSION);
    int n;
    const Builtin *b = builtin_list(&n);
    for (int i = 0; i < n; i++) fprintf(s->out, "  %-40s %s\n", b[i].signature, b[i].help);
    fprintf(s->out, "\nAttributes: x.grad x.shape x.T x.ndim x.requires_grad x.is_leaf "
                    "x.grad_fn x.data\n\nCommands:\n");
    for (int i = 0; i < num_commands; i++)
        fprintf(s->out, "  %-40s %s\n", commands[i].info.usage, commands[i].info.help);
    fprintf(s->out, "\nTopics: :help grad, :help arena, :help functions, :help blocks, "
                    ":help pytorch, :help dot, :help why\n");
}

/* The operators, by symbol and by the engine's name for them. */
static const struct {
    const char *symbol, *op, *usage, *help;
} operators[] = {
    {"+", "add", "a + b", "element-wise sum, broadcasting"},
    {"-", "sub", "a - b", "element-wise difference, broadcasting"},
    {"*", "mul", "a * b", "element-wise product, broadcasting"},
    {"/", "div", "a / b", "element-wise quotient, broadcasting"},
    {"**", "pow", "a ** b", "element-wise power, broadcasting (as pow)"},
    {"@", "matmul", "a @ b", "matrix product (as matmul)"},
    {"%", "remainder", "a % b", "Python's remainder (the divisor's sign), broadcasting"},
    {"neg", "neg", "-a", "negation"},
};

static bool help_operator(Session *s, const char *name) {
    for (size_t i = 0; i < sizeof operators / sizeof operators[0]; i++)
        if (strcmp(name, operators[i].symbol) == 0 || strcmp(name, operators[i].op) == 0) {
            fprintf(s->out, "%s\n  %s\n  %s\n", operators[i].usage, operators[i].help,
                    ag_op_rule(operators[i].op));
            return true;
        }
    if (strcmp(name, "//") == 0) {
        fprintf(s->out, "a // b\n  Python's floor division, broadcasting\n  a constant: no "
                        "gradient flows through it (as in PyTorch)\n");
        return true;
    }
    return false;
}

/* A builtin's signature and what it does; its derivative rule, when it is
 * an op, comes last. */
static void help_builtin(Session *s, const Builtin *b) {
    fprintf(s->out, "%s\n  %s\n", b->signature, b->help);
    if (b->details) fprintf(s->out, "  %s\n", b->details);
    if (b->flags & BI_CREATION)
        fprintf(s->out, "  requires_grad=True (or a trailing bare `grad`) makes the new leaf "
                        "require gradients.\n");
    if (b->flags & BI_METHOD) fprintf(s->out, "  Also a method: x.%s(...).\n", b->name);
    const char *rule = b->op ? ag_op_rule(b->op->name) : NULL;
    if (rule) fprintf(s->out, "  %s\n", rule);
}

static bool help_keyword(Session *s, const char *name) {
    for (int i = 0; scan_keywords[i]; i++)
        if (strcmp(name, scan_keywords[i]) == 0) {
            fprintf(s->out, "'%s' is a keyword (it cannot be bound).\n%s", name, blocks_help);
            return true;
        }
    return false;
}

static bool cmd_help(Cmd *c, const char *arg) {
    Session *s = c->s;
    size_t len = strlen(arg);
    if (len == 0) {
        help_overview(s);
        return true;
    }
    bool colon = arg[0] == ':'; /* :help :vars is the command, not vars() */
    if (colon) arg++, len--;
    const Builtin *b = colon ? NULL : builtin_find(arg, len);
    const Command *cmd = command_find(arg, len);
    const char *topic = topic_text(arg);
    if (b) help_builtin(s, b);
    if (b && topic) fputs(topic, s->out); /* :help grad: the builtin, then the topic */
    else if (b) {}
    else if (help_operator(s, arg)) {}
    else if (cmd) {
        fprintf(s->out, "%s\n  %s\n", cmd->info.usage, cmd->info.help);
        if (topic) fputs(topic, s->out); /* :help dot: the command, then its topic */
    }
    else if (topic) fputs(topic, s->out);
    else if (!help_keyword(s, arg))
        return cmd_fail(c, "no help for '%.60s' (:help lists builtins, commands and topics)", arg);
    return true;
}

/* ======================================================================
 * :vars, :mem
 * ====================================================================== */

static void describe_tensor(Session *s, const Tensor *t) {
    char shape[AG_SHAPE_STR_MAX];
    fprintf(s->out, "%-16s", tensor_shape_str(t, shape, sizeof shape));
    if (tensor_is_leaf(t))
        fprintf(s->out, " leaf%s%s", t->requires_grad ? ", requires grad" : "",
                t->grad ? ", has .grad" : "");
    else
        fprintf(s->out, " %s%s", t->op_name,
                tensor_has_graph(t) ? "" : " (graph freed by a backward)");
}

static bool cmd_vars(Cmd *c, const char *arg) {
    (void)arg;
    Session *s = c->s;
    int shown = 0;
    for (int i = 0; i < s->num_vars; i++) {
        const Var *v = &s->vars[i];
        /* deleted names, and the hidden ones (__torch_nn__, __ag_modules__) */
        if (v->value.kind == VAL_VOID || strncmp(v->name, "__", 2) == 0) continue;
        shown++;
        fprintf(s->out, "%-12s ", v->name);
        if (v->value.kind == VAL_FUNCTION) {
            const UserFunc *f = v->value.as.function;
            const char *text = f->def ? f->def->text : f->lambda->as.text.text;
            size_t length = f->def ? f->def->text_length : f->lambda->as.text.length;
            fprintf(s->out, "function %.*s", (int)length, text);
        } else if (v->value.kind == VAL_TENSOR) {
            describe_tensor(s, v->value.as.tensor);
        } else if (v->value.kind == VAL_NUMBER && v->value.literal) {
            fprintf(s->out, "%-16s leaf", "()"); /* x = 5: the constant tensor it prints as */
        } else {
            static const char *const kinds[] = {[VAL_SHAPE] = "shape ", [VAL_NUMBER] = "number ",
                                                [VAL_BOOL] = "boolean ", [VAL_LIST] = "tuple "};
            const char *kind = (size_t)v->value.kind < sizeof kinds / sizeof kinds[0]
                                   ? kinds[v->value.kind] : NULL;
            fprintf(s->out, "%s", kind ? kind : "");
            StrBuf sb;
            strbuf_init(&sb);
            value_format(&sb, &v->value, &s->print, true);
            fprintf(s->out, "%s", sb.data);
            strbuf_free(&sb);
        }
        fputc('\n', s->out);
    }
    if (shown == 0) fprintf(s->out, "no variables\n");
    return true;
}

/* The process's resident memory now and at its peak, in bytes (Linux's
 * /proc for now; getrusage for the peak). */
static bool process_memory(double *now, double *peak) {
    struct rusage ru;
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    bool ok = f && fscanf(f, "%ld %ld", &pages, &resident) == 2 && getrusage(RUSAGE_SELF, &ru) == 0;
    if (f) fclose(f);
    if (!ok) return false;
    *now = (double)resident * (double)sysconf(_SC_PAGESIZE);
    *peak = (double)ru.ru_maxrss * 1024;
    return true;
}

static bool cmd_mem(Cmd *c, const char *arg) {
    (void)arg;
    Session *s = c->s;
    AgStats st = ag_stats();
    fprintf(s->out, "tensors: %lld live, %lld bytes (peak %lld; limit %lld)\n",
            (long long)st.live_tensors, (long long)st.live_bytes, (long long)st.peak_bytes,
            (long long)ag_memory_limit());
    fprintf(s->out, "arena:   %lld functions, %lld bytes waiting for a backward "
                    "(%lld bytes reserved)\n",
            (long long)st.arena_functions, (long long)st.arena_bytes,
            (long long)st.arena_capacity);
    if (st.arena_functions > 0)
        fprintf(s->out, "         graphs stay until a backward finds none of them alive, or "
                        ":reset (:help arena)\n");
    fprintf(s->out, "cache:   %lld bytes of freed tensors kept for reuse (:reset returns them)\n",
            (long long)st.cached_bytes);
    double now = 0, peak = 0;
    if (process_memory(&now, &peak) && (peak = peak > now ? peak : now) > 0)
        fprintf(s->out, "process: %.1f MB resident now, %.1f MB at most\n", now / 1e6, peak / 1e6);
    return true;
}

/* ======================================================================
 * :graph, :dot, :trace
 * ====================================================================== */

/* The tensor variable named by the first word of arg, and that name, whole
 * (*name, the caller's to free); *rest gets the rest. */
static bool arg_variable(Cmd *c, const char *arg, const char *cmd, Tensor **t, char **name,
                         const char **rest) {
    size_t len = strcspn(arg, " ");
    if (len == 0) return cmd_fail(c, ":%s needs a variable name", cmd);
    *rest = arg + len + strspn(arg + len, " ");
    Var *v = session_lookup(c->s, arg, len);
    if (!v || v->value.kind != VAL_TENSOR) {
        bool plain = strcspn(arg, ".([") >= len; /* suggest only for names */
        const char *near = v || !plain ? NULL : session_suggest(c->s, arg, len, NULL, 0);
        return cmd_fail(c, ":%s: '%.*s' is not a tensor variable%s%s%s", cmd,
                        (int)(len > 200 ? 200 : len), arg, near ? " (did you mean '" : "",
                        near ? near : "", near ? "'?)" : "");
    }
    if (!(*name = strndup(arg, len))) return cmd_fail(c, "out of memory");
    *t = v->value.as.tensor;
    return true;
}

static bool cmd_graph(Cmd *c, const char *arg) {
    Tensor *t;
    char *name;
    const char *rest;
    if (!arg_variable(c, arg, "graph", &t, &name, &rest)) return false;
    bool ok = !*rest || cmd_fail(c, ":graph takes one variable name");
    if (ok) inspect_graph(c->s, t, name);
    free(name);
    return ok;
}

/* Where a drawing goes: the screen, a text file, or a picture. */
static bool dot_out(Cmd *c, const StrBuf *dot, const char *file) {
    Session *s = c->s;
    if (dot->oom) return cmd_fail(c, "out of memory drawing the graph");
    if (!*file) return fputs(dot->data, s->out), true;
    if (!s->allow_files) return cmd_fail(c, ":dot: files are off here");
    if (!graphview_write(s, dot, file)) return cmd_fail_as_set(c);
    if (*graphview_format(file))
        fprintf(s->out, "wrote %s\n", file);
    else
        fprintf(s->out, "wrote %s (render it with: dot -Tpng %s -o graph.png)\n", file, file);
    return true;
}

/* The last backward's graph from node root, with values and gradients. */
static bool dot_snapshot(Cmd *c, int root, const char *file) {
    StrBuf dot;
    strbuf_init(&dot);
    graphview_dot(ag_last_graph(), root, &dot);
    bool ok = dot_out(c, &dot, file);
    strbuf_free(&dot);
    return ok;
}

/* A live graph (or a leaf, or a value whose graph no snapshot has): every
 * node, numbered as :graph and :trace number them. */
static bool dot_live(Cmd *c, Tensor *t, const char *name, const char *file) {
    Session *s = c->s;
    if (!*file) return inspect_dot(s, t, name, s->out) || cmd_fail_as_set(c);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return cmd_fail(c, "out of memory drawing the graph");
    bool drawn = inspect_dot(s, t, name, f);
    bool closed = fclose(f) == 0;
    StrBuf dot;
    strbuf_init(&dot);
    if (closed && text) strbuf_appendn(&dot, text, len);
    free(text);
    bool ok = !drawn    ? cmd_fail_as_set(c)
              : !closed ? cmd_fail(c, "out of memory drawing the graph")
                        : dot_out(c, &dot, file);
    strbuf_free(&dot);
    return ok;
}

/* :dot [NAME] [FILE]: no NAME draws the last backward's graph. */
static bool cmd_dot(Cmd *c, const char *arg) {
    size_t len = strcspn(arg, " ");
    char first[256];
    snprintf(first, sizeof first, "%.*s", (int)(len < sizeof first ? len : sizeof first - 1), arg);
    bool file_first = len > 0 && graphview_is_file(first) && !session_lookup(c->s, arg, len);
    if (file_first && arg[len])
        return cmd_fail(c, ":dot FILE takes one file name; :dot NAME FILE draws NAME's graph");
    if (len == 0 || file_first) {
        if (c->s->graph_not_kept) return cmd_fail(c, ":dot: %s", graphview_not_kept);
        if (!ag_last_graph() || ag_last_graph()->num_nodes == 0)
            return cmd_fail(c, ":dot needs a variable's name, or a backward before it (then "
                               ":dot draws the graph that backward went through)");
        return dot_snapshot(c, 0, arg);
    }
    Tensor *t;
    char *name;
    const char *file;
    if (!arg_variable(c, arg, "dot", &t, &name, &file)) return false;
    int node = !tensor_is_leaf(t) && !tensor_has_graph(t) ? graphview_find(name) : -1;
    bool ok = node >= 0 ? dot_snapshot(c, node, file) : dot_live(c, t, name, file);
    free(name);
    return ok;
}

static bool cmd_why(Cmd *c, const char *arg) {
    if (!*arg) return cmd_fail(c, ":why needs a name: :why a (or :why a.grad)");
    return graphview_why(c->s, arg) || cmd_fail_as_set(c);
}

static bool cmd_trace(Cmd *c, const char *arg) {
    if (strcmp(arg, "on") != 0 && strcmp(arg, "off") != 0)
        return cmd_fail(c, ":trace takes on or off");
    inspect_trace(c->s, strcmp(arg, "on") == 0);
    return true;
}

/* PyTorch's set_detect_anomaly: backward stops at the first Function whose
 * gradient has a nan, naming it, the element, the arithmetic and the line
 * its forward ran on. */
static bool cmd_anomaly(Cmd *c, const char *arg) {
    if (strcmp(arg, "on") != 0 && strcmp(arg, "off") != 0)
        return cmd_fail(c, ":anomaly takes on or off");
    ag_set_detect_anomaly(strcmp(arg, "on") == 0);
    return true;
}

/* ======================================================================
 * :load, :reset, :quit
 * ====================================================================== */

static bool cmd_load(Cmd *c, const char *arg) {
    Session *s = c->s;
    if (!*arg) return cmd_fail(c, ":load needs a file name");
    if (!s->allow_files) return cmd_fail(c, ":load: files are off here");
    if (s->load_depth >= MAX_LOAD_DEPTH)
        return cmd_fail(c, ":load nested more than %d deep (does a file load itself?)",
                        MAX_LOAD_DEPTH);
    bool quit_before = s->quit;
    s->load_depth++;
    int status = c->load(s, arg);
    s->load_depth--;
    s->quit = quit_before; /* :quit in a loaded file ends that file, not the session */
    if (status == 2) { /* could not open it: this line's error */
        s->error_line = c->line;
        s->error_col = 1;
        return false;
    }
    /* The file reported its own error; stop here without a second one. */
    if (status == 1) s->error[0] = '\0';
    return status == 0;
}

static bool cmd_reset(Cmd *c, const char *arg) {
    (void)arg;
    session_reset(c->s);
    ag_graph_free();
    ag_trim();
    return true;
}

static bool cmd_quit(Cmd *c, const char *arg) {
    (void)arg;
    c->s->quit = true;
    return true;
}

static const Command commands[] = {
    {{"help", ":help [NAME]", "this overview, or one builtin, command or topic"}, true, cmd_help},
    {{"vars", ":vars", "each variable: shape, leaf or op, grad"}, false, cmd_vars},
    {{"mem", ":mem", "memory: live tensors, the waiting graph"}, false, cmd_mem},
    {{"graph", ":graph NAME", "the graph behind a value, as a tree"}, true, cmd_graph},
    {{"dot", ":dot [NAME] [FILE]", "the graph as Graphviz DOT, or a picture (FILE.svg, .png); "
              "no NAME: the last backward's, with values and grads"}, true, cmd_dot},
    {{"why", ":why NAME", "NAME.grad by the chain rule: every path from the loss, summed"},
     true, cmd_why},
    {{"trace", ":trace on|off", "print each step of backward"}, true, cmd_trace},
    {{"anomaly", ":anomaly on|off", "backward stops at the first nan gradient, saying where"},
     true, cmd_anomaly},
    {{"load", ":load FILE", "runs the statements in FILE"}, true, cmd_load},
    {{"reset", ":reset", "forgets everything and frees the graph"}, false, cmd_reset},
    {{"quit", ":quit", "leaves the shell (so does Ctrl-D)"}, false, cmd_quit},
};
static const int num_commands = (int)(sizeof commands / sizeof commands[0]);

const CommandInfo *command_list(int *count) {
    static CommandInfo infos[sizeof commands / sizeof commands[0]];
    for (int i = 0; i < num_commands; i++) infos[i] = commands[i].info;
    *count = num_commands;
    return infos;
}

static const Command *command_find(const char *name, size_t len) {
    for (int i = 0; i < num_commands; i++)
        if (strlen(commands[i].info.name) == len && memcmp(commands[i].info.name, name, len) == 0)
            return &commands[i];
    return NULL;
}

/* A control byte in a command line (NUL, escape, ...): refused, and never
 * written back raw to the terminal. Returns its offset, or -1. */
static long control_byte(const char *line, size_t len) {
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)line[i] < 32 && line[i] != '\r') return (long)i;
    return -1;
}

bool command_run(Session *s, const char *line, size_t len, const char *source_name,
                 int source_line, bool interactive, LoadFn load) {
    Cmd c = {s, source_line, load};
    bool ok = false;
    long bad = control_byte(line, len);
    char *text = bad < 0 ? malloc(len + 1) : NULL;
    if (bad >= 0) {
        cmd_error(&c, "a command line cannot hold control bytes (byte 0x%02X at column %ld)",
                 (unsigned char)line[bad], bad + 1);
    } else if (!text) {
        cmd_error(&c, "out of memory");
    } else {
        memcpy(text, line, len);
        text[len] = '\0';
        while (len > 1 && (text[len - 1] == ' ' || text[len - 1] == '\r')) text[--len] = '\0';
        const char *name = text + 1;
        size_t name_len = strcspn(name, " ");
        const char *arg = name + name_len + strspn(name + name_len, " ");
        const Command *cmd = command_find(name, name_len);
        if (!cmd)
            cmd_error(&c, "unknown command ':%.*s' (:help lists them)",
                     (int)(name_len > 40 ? 40 : name_len), name);
        else if (!cmd->takes_arg && *arg)
            cmd_error(&c, "':%.*s' takes no argument", (int)name_len, name);
        else
            ok = cmd->fn(&c, arg);
    }
    free(text);
    if (!ok && s->error[0]) {
        s->error_col = 1; /* a command's error is its line's */
        session_report(s, source_name, interactive, NULL, 0);
    }
    return ok;
}

/* Names for tab completion: keywords, builtins, variables, then commands
 * (written ":name" into a buffer that lives until the next call). */
const char *command_completion_name(void *ctx, int i) {
    static char command[32];
    Session *s = ctx;
    int nk = 0, nb, nc;
    while (scan_keywords[nk]) nk++;
    if (i < nk) return scan_keywords[i];
    i -= nk;
    const Builtin *b = builtin_list(&nb);
    if (i < nb) return b[i].name;
    i -= nb;
    if (i < s->num_vars) return s->vars[i].name;
    i -= s->num_vars;
    const CommandInfo *c = command_list(&nc);
    if (i >= nc) return NULL;
    snprintf(command, sizeof command, ":%s", c[i].name);
    return command;
}
