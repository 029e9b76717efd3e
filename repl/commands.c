/*
 * commands.c — the shell commands: :help [NAME], :vars, :mem, :load FILE,
 * :reset, :quit. Each is a whole line; its argument is the rest of it.
 */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "builtins.h"
#include "inspect.h"
#include "print.h"
#include "run.h"

typedef struct {
    const char *name, *usage, *help;
    bool (*fn)(Session *s, Source *src, const char *arg);
} Command;

static const Command *command_find(const char *name, size_t len);
static const Command *command_table(size_t *count);

/* ======================================================================
 * :help
 * ====================================================================== */

static const char *const arena_help =
    "The arena: where the graph lives between forward and backward.\n"
    "\n"
    "Every operation on a tensor that requires grad records a Function (the\n"
    "node that knows how to send gradients back) in an arena: one block of\n"
    "memory per thread, freed all at once by the next backward(). That makes\n"
    "recording nearly free, and it has a caveat:\n"
    "\n"
    "  * A forward pass that never reaches backward keeps its graph in the\n"
    "    arena, with every tensor the graph needs, until the next backward\n"
    "    or :reset. Exploring at the prompt builds such graphs all the time;\n"
    "    :mem shows how much is waiting, and the shell prints a note when it\n"
    "    passes 1,000 nodes (then 10,000, ...).\n"
    "  * backward() frees every graph built since the last backward, not just\n"
    "    the one it differentiated. Values keep their data, but backward on\n"
    "    one of them (or on anything computed from it) is an error: recompute\n"
    "    it from the leaves. There is no retain_graph.\n";

static const char *const functions_help =
    "Functions: f(x, w) = EXPR defines f; f(a, b) evaluates EXPR afresh with x = a\n"
    "and w = b. Parameters hide variables of the same name; other names are looked\n"
    "up when f is called. Defining f again replaces it. A body computes a value:\n"
    "backward, zero_grad and seed cannot be used in it.\n"
    "\n"
    "  f(x, w) = sum(relu(x @ w))\n"
    "  grad(f, x, w)        f's value and df/dx, df/dw (for arguments that require grad)\n"
    "  gradcheck(f, x, w)   those gradients against finite differences\n";

static void help_overview(Session *s) {
    fprintf(s->out, "ag %s: a calculator for gradients. Every value is a float64 tensor.\n\n"
                    "  x = tensor([[1, 2]], grad)   a leaf that requires grad\n"
                    "  y = sum(x * x)               operators + - * / @ ** broadcast\n"
                    "  backward(y)                  prints x.grad = tensor([[2., 4.]])\n"
                    "  f(x) = sum(x ** 3)           defines a function (:help functions)\n\n"
                    "Builtins (:help NAME for one):\n", AG_VERSION);
    int n;
    const Builtin *b = builtin_list(&n);
    for (int i = 0; i < n; i++) fprintf(s->out, "  %-30s %s\n", b[i].signature, b[i].help);
    fprintf(s->out, "\nAttributes: x.grad (a leaf's gradient, or None), x.shape, x.T\n"
                    "\nCommands:\n");
    size_t nc;
    const Command *c = command_table(&nc);
    for (size_t i = 0; i < nc; i++) fprintf(s->out, "  %-30s %s\n", c[i].usage, c[i].help);
    fprintf(s->out, "\nTopics: :help arena (forward without backward, freed graphs), "
                    ":help functions\n");
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
    {"neg", "neg", "-a", "negation"},
};

static bool help_operator(Session *s, const char *name) {
    for (size_t i = 0; i < sizeof operators / sizeof operators[0]; i++)
        if (strcmp(name, operators[i].symbol) == 0 || strcmp(name, operators[i].op) == 0) {
            fprintf(s->out, "%s\n  %s\n  %s\n", operators[i].usage, operators[i].help,
                    ag_op_rule(operators[i].op));
            return true;
        }
    return false;
}

static void help_builtin(Session *s, const Builtin *b) {
    fprintf(s->out, "%s\n  %s\n", b->signature, b->help);
    const char *rule = ag_op_rule(b->name);
    if (rule) fprintf(s->out, "  %s\n", rule);
    if (b->details) fprintf(s->out, "  %s\n", b->details);
    if (b->creation)
        fprintf(s->out, "  A trailing `grad` argument makes the new leaf require gradients.\n");
}

static bool cmd_help(Session *s, Source *src, const char *arg) {
    size_t len = strlen(arg);
    if (len == 0) {
        help_overview(s);
        return true;
    }
    if (arg[0] == ':') arg++, len--;
    const Builtin *b = builtin_find(arg, len);
    const Command *c = command_find(arg, len);
    if (b) {
        help_builtin(s, b);
    } else if (help_operator(s, arg)) {
    } else if (c) {
        fprintf(s->out, "%s\n  %s\n", c->usage, c->help);
    } else if (strcmp(arg, "arena") == 0) {
        fputs(arena_help, s->out);
    } else if (strcmp(arg, "functions") == 0) {
        fputs(functions_help, s->out);
    } else {
        return session_fail(s, src->line, 1, "no help for '%s' (:help lists builtins, commands "
                            "and topics)", arg);
    }
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

static bool cmd_vars(Session *s, Source *src, const char *arg) {
    (void)src, (void)arg;
    if (s->num_vars == 0) fprintf(s->out, "no variables\n");
    for (int i = 0; i < s->num_vars; i++) {
        const Var *v = &s->vars[i];
        fprintf(s->out, "%-12s ", v->name);
        if (v->func)
            fprintf(s->out, "function %s", v->func->source);
        else if (v->value.kind == VAL_TENSOR)
            describe_tensor(s, v->value.tensor);
        else if (v->value.kind == VAL_SHAPE)
            fprintf(s->out, "a shape");
        else
            fprintf(s->out, "None");
        fputc('\n', s->out);
    }
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

static bool cmd_mem(Session *s, Source *src, const char *arg) {
    (void)src, (void)arg;
    AgStats st = ag_stats();
    fprintf(s->out, "tensors: %lld live, %lld bytes (peak %lld; limit %lld)\n",
            (long long)st.live_tensors, (long long)st.live_bytes, (long long)st.peak_bytes,
            (long long)ag_memory_limit());
    fprintf(s->out, "arena:   %lld functions, %lld bytes waiting for a backward "
                    "(%lld bytes reserved)\n",
            (long long)st.arena_functions, (long long)st.arena_bytes,
            (long long)st.arena_capacity);
    if (st.arena_functions > 0)
        fprintf(s->out, "         graphs built without a backward stay until the next "
                        "backward or :reset (:help arena)\n");
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

/* The tensor variable named by the first word of arg; *rest gets the rest. */
static bool arg_variable(Session *s, Source *src, const char *arg, const char *cmd, Tensor **t,
                         char *name, size_t size, const char **rest) {
    size_t len = strcspn(arg, " ");
    if (len == 0) return session_fail(s, src->line, 1, ":%s needs a variable name", cmd);
    snprintf(name, size, "%.*s", (int)len, arg);
    *rest = arg + len + strspn(arg + len, " ");
    Var *v = session_lookup(s, arg, len);
    if (!v || v->value.kind != VAL_TENSOR) {
        bool plain = strcspn(name, ".([") == strlen(name); /* suggest only for names */
        const char *near = v || !plain ? NULL : session_suggest(s, arg, len);
        return session_fail(s, src->line, 1, ":%s: '%s' is not a tensor variable%s%s%s", cmd,
                            name, near ? " (did you mean '" : "", near ? near : "",
                            near ? "'?)" : "");
    }
    *t = v->value.tensor;
    return true;
}

static bool cmd_graph(Session *s, Source *src, const char *arg) {
    Tensor *t;
    char name[64];
    const char *rest;
    if (!arg_variable(s, src, arg, "graph", &t, name, sizeof name, &rest)) return false;
    if (*rest) return session_fail(s, src->line, 1, ":graph takes one variable name");
    inspect_graph(s, t, name);
    return true;
}

static bool cmd_dot(Session *s, Source *src, const char *arg) {
    Tensor *t;
    char name[64];
    const char *file;
    if (!arg_variable(s, src, arg, "dot", &t, name, sizeof name, &file)) return false;
    if (!*file) {
        inspect_dot(s, t, name, s->out);
        return true;
    }
    if (!s->allow_files) return session_fail(s, src->line, 1, ":dot: files are off here");
    FILE *f = fopen(file, "w");
    if (!f) return session_fail(s, src->line, 1, ":dot: cannot write '%s': %s", file, strerror(errno));
    inspect_dot(s, t, name, f);
    bool ok = fclose(f) == 0;
    if (!ok) return session_fail(s, src->line, 1, ":dot: cannot write '%s'", file);
    fprintf(s->out, "wrote %s (render it with: dot -Tpng %s -o graph.png)\n", file, file);
    return true;
}

static bool cmd_trace(Session *s, Source *src, const char *arg) {
    if (strcmp(arg, "on") != 0 && strcmp(arg, "off") != 0)
        return session_fail(s, src->line, 1, ":trace takes on or off");
    inspect_trace(s, strcmp(arg, "on") == 0);
    return true;
}

/* ======================================================================
 * :load, :reset, :quit
 * ====================================================================== */

static bool cmd_load(Session *s, Source *src, const char *arg) {
    static int depth;
    if (!*arg) return session_fail(s, src->line, 1, ":load needs a file name");
    if (!s->allow_files) return session_fail(s, src->line, 1, ":load: files are off here");
    if (depth >= MAX_LOAD_DEPTH)
        return session_fail(s, src->line, 1, ":load nested more than %d deep (does a file "
                            "load itself?)", MAX_LOAD_DEPTH);
    depth++;
    RunStatus status = run_file(s, arg);
    depth--;
    if (status == RUN_CANNOT_OPEN) { /* reported as this line's error */
        s->error_line = src->line;
        s->error_col = 1;
        return false;
    }
    /* The file reported its own error; stop here without a second one. */
    if (status == RUN_FAILED) s->error[0] = '\0';
    return status == RUN_OK;
}

static bool cmd_reset(Session *s, Source *src, const char *arg) {
    (void)src, (void)arg;
    session_reset(s);
    ag_graph_free();
    ag_trim();
    return true;
}

static bool cmd_quit(Session *s, Source *src, const char *arg) {
    (void)src, (void)arg;
    s->quit = true;
    return true;
}

static const Command commands[] = {
    {"help", ":help [NAME]", "this overview, or one builtin or command", cmd_help},
    {"vars", ":vars", "each variable: shape, leaf or op, grad", cmd_vars},
    {"mem", ":mem", "memory: live tensors, the waiting graph", cmd_mem},
    {"graph", ":graph NAME", "the graph behind a value, as a tree", cmd_graph},
    {"dot", ":dot NAME [FILE]", "the same graph as Graphviz DOT", cmd_dot},
    {"trace", ":trace on|off", "print each step of backward", cmd_trace},
    {"load", ":load FILE", "runs the statements in FILE", cmd_load},
    {"reset", ":reset", "forgets everything and frees the graph", cmd_reset},
    {"quit", ":quit", "leaves the shell (so does Ctrl-D)", cmd_quit},
};
static const size_t num_commands = sizeof commands / sizeof commands[0];

static const Command *command_table(size_t *count) {
    *count = num_commands;
    return commands;
}

static const Command *command_find(const char *name, size_t len) {
    for (size_t i = 0; i < num_commands; i++)
        if (strlen(commands[i].name) == len && memcmp(commands[i].name, name, len) == 0)
            return &commands[i];
    return NULL;
}

/* Trims trailing spaces (and a '\r') in place. */
static void trim_end(char *text) {
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\r')) text[--n] = '\0';
}

bool command_run(Session *s, Source *src, const char *line) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", line + 1);
    trim_end(buf);
    size_t name_len = strcspn(buf, " ");
    const char *arg = buf + name_len;
    while (*arg == ' ') arg++;
    const Command *c = command_find(buf, name_len);
    bool takes_arg = c && c->fn != cmd_vars && c->fn != cmd_mem && c->fn != cmd_reset &&
                     c->fn != cmd_quit;
    if (c && !takes_arg && *arg)
        c = NULL, session_set_error(s, src->line, 1, "':%.*s' takes no argument", (int)name_len, buf);
    else if (!c)
        session_set_error(s, src->line, 1, "unknown command ':%.*s' (:help lists them)",
                     (int)(name_len > 40 ? 40 : name_len), buf);
    bool ok = c ? c->fn(s, src, arg) : false;
    if (!ok && s->error[0]) {
        fflush(s->out);
        if (src->interactive) fprintf(s->err, "error: %s\n", s->error);
        else fprintf(s->err, "%s:%d:%d: error: %s\n", src->name, src->line, 1, s->error);
    }
    return ok;
}
