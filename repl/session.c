/*
 * session.c — the shell's state: the variable table (insertion order kept,
 * a hash index for lookup), function-call frames, errors, printing values
 * and gradients, the arena note, and name suggestions. Evaluation itself is
 * in eval.c.
 */
#include "session.h"

#include <stdarg.h>
#include <stddef.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>

#include "interrupt.h"
#include "parse.h"

volatile sig_atomic_t session_interrupted;

/* SA_RESTART: a Ctrl-C during a write to the terminal (or to the kernel's
 * pipe) must not fail the write (stdio would drop the output and keep an
 * error); waiting for input is pselect's, which a signal always interrupts. */
static void on_sigint(int sig) {
    (void)sig;
    session_interrupted = 1;
}

void session_catch_sigint(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
}

/* Envs made between two passes of the collector: a young pass costs what
 * was made since the last, so it may run often. While young passes free
 * little (a micrograd step's graph is alive when a pass comes in the middle
 * of it: everything counted is kept, and a full pass has to count it again
 * once it dies), the passes come up to YOUNG_ENVS_MAX envs apart. */
enum { YOUNG_ENVS = 1024, YOUNG_ENVS_MAX = 4 * YOUNG_ENVS };

static size_t thread_stack_size; /* session_set_stack_size's */

void session_set_stack_size(size_t bytes) { thread_stack_size = bytes; }

void session_init(Session *s, FILE *out, FILE *err, bool interactive) {
    memset(s, 0, sizeof *s);
    s->out = out;
    s->err = err;
    s->interactive = interactive;
    s->print = print_defaults;
    s->allow_files = true;
    s->gradcheck_max_elements = GRADCHECK_MAX_ELEMENTS;
    s->arena_note_at = ARENA_NOTE_FIRST;
    s->generation = 1;
    s->envs.next = s->envs.prev = &s->envs_old; /* the circle: the sentinel and the boundary */
    s->envs_old.next = s->envs_old.prev = &s->envs;
    s->young_envs = s->collect_at = YOUNG_ENVS;
    s->recursion_limit = MAX_PY_CALL_DEPTH;
    s->hooks.prev = s->hooks.next = &s->hooks;
    /* The stack's limit (8 MiB when unlimited or unknown), less a margin for
     * what runs below the evaluator: builtins, the engine, sanitizers' reports. */
    s->stack_base = SESSION_STACK_HERE();
    struct rlimit rl;
    size_t limit = 8u << 20;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < limit)
        limit = (size_t)rl.rlim_cur;
    if (thread_stack_size) limit = thread_stack_size;
    s->stack_budget = limit > (2u << 20) ? limit - (1u << 20) : limit / 2;
    s->max_eval_depth = limit > (8u << 20) ? (int)(MAX_EVAL_DEPTH * (limit / (8u << 20)))
                                           : MAX_EVAL_DEPTH;
    /* Every backward keeps its graph for :dot, :why and draw() (graphview.c),
     * its tensors named by the variables that hold them. */
    ag_set_keep_graph(true, session_tensor_name, s);
}

static void release_values(Value *values, int n) {
    for (int i = 0; values && i < n; i++) value_release(&values[i]);
    free(values);
}

void session_reset(Session *s) {
    for (int i = 0; i < s->num_vars; i++) {
        value_release(&s->vars[i].value);
        free(s->vars[i].name);
    }
    free(s->vars);
    free(s->index);
    s->vars = NULL;
    s->index = NULL;
    s->num_vars = s->cap_vars = s->index_cap = 0;
    s->generation++;
    s->accumulation_noted = false;
    s->arena_note_at = ARENA_NOTE_FIRST;
    s->arena_left = 0;
    s->print = print_defaults;
    s->print.python = s->python; /* :reset at a Python prompt still prints Python's 1.0 */
    for (size_t i = 0; i < sizeof s->parsed / sizeof s->parsed[0]; i++) {
        code_release(s->parsed[i].code);
        s->parsed[i].code = NULL;
    }
    ag_forget_graph();
}

void session_hook_link(Session *s, SessionHook *h) {
    h->prev = &s->hooks, h->next = s->hooks.next;
    s->hooks.next->prev = h, s->hooks.next = h;
}

void session_hook_unlink(SessionHook *h) {
    h->prev->next = h->next, h->next->prev = h->prev;
    h->prev = h->next = h;
}

/* Takes the session's hooks off their tensors (each release unlinks it),
 * which breaks the cycles that pass through the engine's references. */
static void drop_hooks(Session *s) {
    if (!s->hooks.next) return; /* a session never initialised */
    while (s->hooks.next != &s->hooks) {
        SessionHook *h = s->hooks.next;
        if (!tensor_remove_hook(h->tensor, h->handle)) session_hook_unlink(h); /* not there */
    }
}

void session_free(Session *s) {
    if (value_object_hooks.ctx == s) memset(&value_object_hooks, 0, sizeof value_object_hooks);
    value_release(&s->exception);
    session_reset(s);
    /* The graph may hold the session's values (a custom Function's backward,
     * a hook): they go first, so that the collection frees what they held. */
    ag_graph_free();
    drop_hooks(s);
    s->collect_at = 0; /* the cycles of envs and functions that are left */
    session_collect(s);
    if (s->tracing) ag_set_trace(NULL, NULL); /* the hook points at this session */
    ag_set_keep_graph(false, NULL, NULL);     /* and so does the namer */
    s->tracing = false;
    ptrmap_clear(&s->labels.numbers);
    free(s->labels.shown);
    memset(&s->labels, 0, sizeof s->labels);
}

const char *session_tensor_name(const Tensor *t, void *ctx) {
    const Session *s = ctx;
    for (int i = 0; i < s->num_vars; i++) /* the first bound wins */
        if (s->vars[i].value.kind == VAL_TENSOR && s->vars[i].value.as.tensor == t &&
            strncmp(s->vars[i].name, "__", 2) != 0)
            return s->vars[i].name;
    return NULL;
}

void session_keep_graph(Session *s) {
    s->graph_not_kept = s->quiet > 0;
    ag_set_keep_graph(!s->graph_not_kept, session_tensor_name, s);
}

void session_set_error(Session *s, int line, int col, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->error, sizeof s->error, fmt, ap);
    va_end(ap);
    s->error_line = line;
    s->error_col = col;
    s->error_in_function = false;
    value_release(&s->exception);
}

/* ======================================================================
 * The variable table
 * ====================================================================== */

static uint64_t hash_name(const char *name, size_t length) {
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < length; i++) h = (h ^ (unsigned char)name[i]) * 1099511628211ULL;
    return h;
}

static bool name_is(const char *a, const char *name, size_t length) {
    return strncmp(a, name, length) == 0 && a[length] == '\0';
}

/* The index slot for name: where it is, or the empty slot where it would go. */
static int *index_slot(Session *s, const char *name, size_t length) {
    size_t mask = (size_t)s->index_cap - 1;
    for (size_t i = hash_name(name, length) & mask;; i = (i + 1) & mask) {
        int *slot = &s->index[i];
        if (*slot == 0 || name_is(s->vars[*slot - 1].name, name, length)) return slot;
    }
}

static bool index_grow(Session *s) {
    int cap = s->index_cap ? s->index_cap * 2 : 64;
    int *old = s->index, old_cap = s->index_cap;
    s->index = calloc((size_t)cap, sizeof *s->index);
    if (!s->index) {
        s->index = old;
        return false;
    }
    s->index_cap = cap;
    for (int i = 0; i < old_cap; i++)
        if (old[i]) {
            Var *v = &s->vars[old[i] - 1];
            *index_slot(s, v->name, strlen(v->name)) = old[i];
        }
    free(old);
    return true;
}

Var *session_lookup(Session *s, const char *name, size_t length) {
    if (!s->index_cap) return NULL;
    int at = *index_slot(s, name, length);
    return at ? &s->vars[at - 1] : NULL;
}

int session_var_index(Session *s, const Var *v) {
    return v ? (int)(v - s->vars) : -1;
}

/* The entry for name, appended (empty) if new; NULL when memory runs out
 * or the table is full. */
static Var *var_entry(Session *s, const char *name, size_t length, int line, int col) {
    Var *v = session_lookup(s, name, length);
    if (v) return v;
    if (s->num_vars >= MAX_VARIABLES) {
        session_set_error(s, line, col, "too many variables (at most %d); :reset forgets them",
                          MAX_VARIABLES);
        return NULL;
    }
    if ((s->num_vars + 1) * 2 > s->index_cap && !index_grow(s)) goto oom;
    if (s->num_vars == s->cap_vars) {
        int cap = s->cap_vars ? s->cap_vars * 2 : 32;
        Var *vars = realloc(s->vars, (size_t)cap * sizeof *vars);
        if (!vars) goto oom;
        s->vars = vars;
        s->cap_vars = cap;
    }
    char *copy = malloc(length + 1);
    if (!copy) goto oom;
    memcpy(copy, name, length);
    copy[length] = '\0';
    v = &s->vars[s->num_vars++];
    *v = (Var){.name = copy, .value = value_void()};
    *index_slot(s, name, length) = s->num_vars;
    return v;
oom:
    session_set_error(s, line, col, "out of memory binding a name");
    return NULL;
}

bool session_bind(Session *s, const char *name, size_t length, Value v, int line, int col) {
    Var *e = var_entry(s, name, length, line, col);
    if (!e) {
        value_release(&v);
        return false;
    }
    value_release(&e->value);
    e->value = v;
    return true;
}

void session_set_python(Session *s, bool python) {
    s->python = python;
    s->print.python = python;
}

void session_report(Session *s, const char *source, bool interactive, const char *line, size_t len) {
    fflush(s->out);
    FILE *err = s->report_err ? s->report_err : s->err;
    if (!interactive) {
        fprintf(err, "%s:%d:%d: error: %s\n", source, s->error_line, s->error_col, s->error);
        return;
    }
    bool printable = line != NULL;
    for (size_t i = 0; line && i < len; i++)
        if ((unsigned char)line[i] < 32 || (unsigned char)line[i] >= 127) printable = false;
    if (printable && s->error_col > 0 && (size_t)s->error_col <= len + 1 && len < 200)
        fprintf(err, "  %.*s\n  %*s^\n", (int)len, line, s->error_col - 1, "");
    fprintf(err, "error: %s\n", s->error);
}

bool session_display(Session *s, const char *mime, const char *data, size_t len) {
    if (!s->display) return false;
    s->display(s, mime, data, len);
    return true;
}

/* The sizes of a shape written "(2, 3)" or "(3,)" at text into dims (at
 * most 8); how many, or -1 when text is no such shape. *end: past it. */
static int shape_in(const char *text, long long *dims, const char **end) {
    if (*text != '(') return -1;
    int n = 0;
    const char *p = text + 1;
    while (*p != ')') {
        char *after;
        long long v = strtoll(p, &after, 10);
        if (after == p || n == 8) return -1;
        dims[n++] = v;
        p = after;
        if (*p == ',') p++;
        if (*p == ' ') p++;
    }
    *end = p + 1;
    return n;
}

/* "1x3" of a shape's sizes */
static void shape_x(char *out, size_t size, const long long *dims, int n) {
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < n && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%lld", i ? "x" : "", dims[i]);
}

/* message, an engine error about shapes in ag's words (broadcasting, matrix
 * products, nn.Linear, reshape and view), in PyTorch 1.13's (a .py file's
 * RuntimeError reads as PyTorch's): into out, or false when it is not one
 * of them. */
static bool pytorch_shape_words(const char *message, char *out, size_t size) {
    long long a[8], b[8];
    int na, nb;
    char sa[64], sb[64];
    const char *p = strstr(message, "linear: mat1 and mat2 shapes cannot be multiplied: input ");
    if (p == message && (na = shape_in(message + 57, a, &p)) > 0 &&
        strncmp(p, ", weight ", 9) == 0 && shape_in(p + 9, b, &p) == 2) {
        long long rows = 1, in[2], weight_t[2] = {b[1], b[0]};
        for (int i = 0; i < na - 1; i++) rows *= a[i];
        in[0] = rows, in[1] = a[na - 1];
        shape_x(sa, sizeof sa, in, 2);
        shape_x(sb, sizeof sb, weight_t, 2);
        snprintf(out, size, "mat1 and mat2 shapes cannot be multiplied (%s and %s)", sa, sb);
        return true;
    }
    long long count;
    if (strncmp(message, "reshape: cannot reshape (", 25) == 0 && (p = strstr(message, ") (")) &&
        sscanf(p, ") (%lld elements) to ", &count) == 1 && (p = strstr(p, " to (")) &&
        (nb = shape_in(p + 4, b, &p)) >= 0) { /* "shape '[-1, 5]' is invalid for input of size 12" */
        int used = snprintf(out, size, "shape '[");
        for (int i = 0; i < nb && used > 0 && (size_t)used < size; i++)
            used += snprintf(out + used, size - (size_t)used, "%s%lld", i ? ", " : "", b[i]);
        if (used > 0 && (size_t)used < size)
            snprintf(out + used, size - (size_t)used, "]' is invalid for input of size %lld", count);
        return true;
    }
    p = strstr(message, ": shapes ");
    if (!p || (na = shape_in(p + 9, a, &p)) < 0 || strncmp(p, " and ", 5) != 0 ||
        (nb = shape_in(p + 5, b, &p)) < 0)
        return false;
    if (strncmp(p, " cannot broadcast", 17) == 0) { /* PyTorch names the last that differ */
        int n = na > nb ? na : nb;
        for (int d = n - 1; d >= 0; d--) {
            long long x = d - (n - na) >= 0 ? a[d - (n - na)] : 1;
            long long y = d - (n - nb) >= 0 ? b[d - (n - nb)] : 1;
            if (x == y || x == 1 || y == 1) continue;
            snprintf(out, size, "The size of tensor a (%lld) must match the size of tensor b "
                     "(%lld) at non-singleton dimension %d", x, y, d);
            return true;
        }
        return false;
    }
    if (strncmp(message, "matmul: ", 8) != 0 || !strstr(p, "cannot be multiplied")) return false;
    long long row[2] = {1, a[0]};
    if (na == 1 && nb == 1)
        snprintf(out, size, "inconsistent tensor size, expected tensor [%lld] and src [%lld] to "
                 "have the same number of elements, but got %lld and %lld elements respectively",
                 a[0], b[0], a[0], b[0]);
    else if (na == 2 && nb == 1)
        snprintf(out, size, "size mismatch, got %lld, %lldx%lld,%lld", a[0], a[0], a[1], b[0]);
    else if (na <= 2 && nb == 2) {
        shape_x(sa, sizeof sa, na == 1 ? row : a, 2);
        shape_x(sb, sizeof sb, b, 2);
        snprintf(out, size, "mat1 and mat2 shapes cannot be multiplied (%s and %s)", sa, sb);
    } else if (na == 3 && nb == 3 && a[0] == b[0])
        snprintf(out, size, "Expected size for first two dimensions of batch2 tensor to be: "
                 "[%lld, %lld] but got: [%lld, %lld].", a[0], a[2], b[0], b[1]);
    else
        return false;
    return true;
}

const char *session_engine_error(const Session *s) {
    static _Thread_local char text[sizeof s->error];
    const char *message = ag_error();
    if (!s->python) return message;
    const char *kind = strstr(message, "out of bounds") || strstr(message, "out of range")
                           ? "IndexError: " : "RuntimeError: ";
    char words[400];
    if (pytorch_shape_words(message, words, sizeof words)) message = words;
    snprintf(text, sizeof text, "%s%s", kind, message);
    return text;
}

/* Whether a def's parameters name one twice (the error then set). */
static bool duplicate_params(Session *s, Node *const *params, int n) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            const Node *a = params[j], *b = params[i];
            if (a->as.text.length == b->as.text.length &&
                memcmp(a->as.text.text, b->as.text.text, a->as.text.length) == 0) {
                session_set_error(s, b->line, b->col, s->python ? "SyntaxError: duplicate "
                                  "argument '%.*s' in function definition" : "parameter "
                                  "'%.*s' appears twice", (int)b->as.text.length, b->as.text.text);
                return true;
            }
        }
    return false;
}

/* A Code of its own for a def or lambda whose tree is in a statement's
 * arena: its text, copied and parsed again. */
static Code *own_code(Session *s, const char *text, size_t length, int line, int col,
                      bool lambda, const Stmt **def, const Node **node) {
    int64_t bytes = (int64_t)length * 2 + 4096;
    AgStats st = ag_stats();
    if (ag_memory_limit() > 0 && bytes > ag_memory_limit() - st.live_bytes - st.arena_bytes)
    {
        session_set_error(s, line, col, "a function of %zu bytes does not fit in the memory "
                          "limit (%lld bytes)", length, (long long)ag_memory_limit());
        return NULL;
    }
    Code *c = calloc(1, sizeof *c);
    char *source = c ? malloc(length + 1) : NULL;
    if (!source) {
        free(c);
        session_set_error(s, line, col, "out of memory defining a function");
        return NULL;
    }
    memcpy(source, text, length);
    source[length] = '\0';
    *c = (Code){.refs = 1, .source = source};
    Parser p;
    parser_init_mode(&p, source, length, line, &c->arena, s->python, true);
    Stmt *parsed = NULL;
    Node *expr = NULL;
    ParseStatus status = lambda ? parse_expression_only(&p, &expr) : parse_statement(&p, &parsed);
    if (status != PARSE_OK) /* it parsed once: the second tree did not fit */
        session_set_error(s, line, col, "%s", p.error);
    parser_free(&p);
    c->bytes = (int64_t)length + (int64_t)c->arena.bytes;
    if (status != PARSE_OK) {
        code_release(c);
        return NULL;
    }
    *def = parsed;
    *node = expr;
    return c;
}

/* A def's decorators, set on its tree after parsing (own_code's copy
 * takes them from the original). */
static bool same_decorators(const Stmt *a, const Stmt *b) {
    return a->grad_mode == b->grad_mode && a->staticmethod == b->staticmethod &&
           a->classmethod == b->classmethod;
}

/* own_code's tree of the same text, parsed already at the same place in
 * the same dialect (a lambda at the top level of a loop, made again each
 * turn): a new reference, its def or lambda in *def and *node; or NULL.
 * The text is compared whole, so a tree is taken only where parsing again
 * would make the same one. */
static Code *parsed_before(Session *s, const char *text, size_t length, int line, int col,
                           const Stmt **def, const Node **node) {
    for (size_t i = 0; i < sizeof s->parsed / sizeof s->parsed[0]; i++) {
        Code *c = s->parsed[i].code;
        if (!c || s->parsed[i].line != line || s->parsed[i].col != col ||
            s->parsed[i].python != s->python || (s->parsed[i].def != NULL) != (*def != NULL) ||
            strlen(c->source) != length || memcmp(c->source, text, length) != 0 ||
            (*def && !same_decorators(s->parsed[i].def, *def)))
            continue;
        c->refs++;
        *def = s->parsed[i].def;
        *node = s->parsed[i].lambda;
        return c;
    }
    return NULL;
}

/* Keeps code (parsed from the text of a function at line, col) for
 * parsed_before. */
static void parsed_keep(Session *s, Code *code, const Stmt *def, const Node *lambda, int line,
                        int col) {
    int i = s->parsed_next;
    s->parsed_next = (i + 1) % (int)(sizeof s->parsed / sizeof s->parsed[0]);
    code_release(s->parsed[i].code);
    code->refs++;
    s->parsed[i].code = code;
    s->parsed[i].def = def;
    s->parsed[i].lambda = lambda;
    s->parsed[i].line = line;
    s->parsed[i].col = col;
    s->parsed[i].python = s->python;
}

/* The tree of a function whose own tree goes with the statement that made
 * it (a def or lambda at the top level): parsed again from its text, into
 * a Code of its own, or taken from the last few so parsed. */
static Code *function_code(Session *s, const Stmt **def, const Node **lambda) {
    const Stmt *original = *def;
    const char *text = original ? original->text : (*lambda)->as.text.text;
    size_t length = original ? original->text_length : (*lambda)->as.text.length;
    int line = original ? original->line : (*lambda)->line;
    int col = original ? original->col : (*lambda)->col;
    Code *code = parsed_before(s, text, length, line, col, def, lambda);
    if (code) return code;
    code = own_code(s, text, length, line, col, !original, def, lambda);
    if (!code) return NULL;
    if (original) { /* a decorator's effect: its text begins at the def */
        ((Stmt *)*def)->grad_mode = original->grad_mode;
        ((Stmt *)*def)->staticmethod = original->staticmethod;
        ((Stmt *)*def)->classmethod = original->classmethod;
    }
    parsed_keep(s, code, *def, *lambda, line, col);
    return code;
}

UserFunc *session_function(Session *s, Code *code, const Stmt *def, const Node *lambda,
                           Value *defaults, Env *closure) {
    int n = def ? def->num_params : lambda->num_positional;
    if (duplicate_params(s, def ? def->params : lambda->kids, n)) {
        release_values(defaults, defaults ? n : 0);
        return NULL;
    }
    UserFunc *f = value_block_zalloc(sizeof *f);
    if (f && code) {
        code->refs++;
    } else if (f) {
        code = function_code(s, &def, &lambda);
        if (!code) {
            value_block_free(f, sizeof *f);
            release_values(defaults, defaults ? n : 0);
            return NULL;
        }
    } else {
        release_values(defaults, defaults ? n : 0);
        session_set_error(s, 0, 0, "out of memory defining a function");
        return NULL;
    }
    *f = (UserFunc){.refs = 1, .code = code, .def = def, .lambda = lambda,
                    .defaults = defaults, .closure = closure, .python = s->python};
    if (closure) closure->refs++;
    f->name = def ? def->target->as.text.text : "<lambda>";
    f->name_length = def ? def->target->as.text.length : 8;
    return f;
}

bool session_define(Session *s, const Stmt *def, Value *defaults) {
    UserFunc *f = session_function(s, NULL, def, NULL, defaults, NULL);
    if (!f) return false;
    const Node *name = f->def->target;
    return session_bind(s, name->as.text.text, name->as.text.length,
                        (Value){.kind = VAL_FUNCTION, .as.function = f}, def->line, def->col);
}

/* ======================================================================
 * Frames
 * ====================================================================== */

Env *session_env(Session *s, Env *parent, Code *code, int line, int col) {
    Env *e = value_block_alloc(sizeof *e);
    if (!e) {
        session_set_error(s, line, col, "out of memory calling a function");
        return NULL;
    }
    memset(e, 0, offsetof(Env, few)); /* the few locals are written as they are bound */
    e->refs = 1;
    e->locals = e->few;
    e->cap_locals = ENV_FEW_LOCALS;
    e->parent = parent;
    if (parent) parent->refs++;
    e->code = code;
    if (code) code->refs++;
    e->next = s->envs.next; /* on the circle, after the sentinel */
    e->prev = &s->envs;
    s->envs.next->prev = e;
    s->envs.next = e;
    s->num_envs++;
    return e;
}

Local *env_lookup(Env *e, const char *name, size_t length) {
    for (int i = 0; i < e->num_locals; i++)
        if (e->locals[i].length == length && value_same_bytes(e->locals[i].name, name, length))
            return &e->locals[i];
    return NULL;
}

bool env_bind(Session *s, Env *e, const char *name, size_t length, Value v, int line, int col) {
    return env_bind_new(s, e, env_lookup(e, name, length), name, length, v, line, col);
}

bool env_bind_new(Session *s, Env *e, Local *l, const char *name, size_t length, Value v,
                  int line, int col) {
    if (!l) {
        if (e->num_locals == e->cap_locals) {
            int cap = e->cap_locals ? e->cap_locals * 2 : 8;
            Local *bigger = e->locals == e->few ? malloc((size_t)cap * sizeof *bigger)
                                                : realloc(e->locals, (size_t)cap * sizeof *bigger);
            if (!bigger) {
                value_release(&v);
                return session_fail(s, line, col, "out of memory binding a name");
            }
            if (e->locals == e->few) memcpy(bigger, e->few, (size_t)e->num_locals * sizeof *bigger);
            e->locals = bigger;
            e->cap_locals = cap;
        }
        if (!e->code) { /* names in a statement's tree, freed before the env may be */
            char *copy = malloc(length + 1);
            if (!copy) {
                value_release(&v);
                return session_fail(s, line, col, "out of memory binding a name");
            }
            memcpy(copy, name, length);
            copy[length] = '\0';
            name = copy;
        }
        l = &e->locals[e->num_locals++];
        *l = (Local){name, length, value_void()};
    }
    value_release(&l->value);
    l->value = v;
    return true;
}

/* ======================================================================
 * Collecting cycles of envs and functions
 * ====================================================================== */

static void mark_env(Env *e);

static void mark_value(const Value *v);

/* The pass under way: what it has reached (seen) it does not walk again,
 * so shared objects are walked once and cycles of lists, dicts and
 * objects end (a = []; a.append(a)). */
static unsigned mark_pass;

/* Past MARK_DEPTH nested marks the rest waits in `pending` (the pass
 * takes it up from the top), so a chain of a million objects does not
 * grow the C stack with it. */
enum { MARK_DEPTH = 2000 };
static int mark_depth;
static Value *pending;
static int64_t num_pending, cap_pending;

static bool mark_later(const Value *v) {
    if (num_pending == cap_pending) {
        int64_t cap = cap_pending ? cap_pending * 2 : 256;
        Value *grown = realloc(pending, (size_t)cap * sizeof *grown);
        if (!grown) return false; /* mark it now, on the stack */
        pending = grown, cap_pending = cap;
    }
    pending[num_pending++] = *v; /* a borrowed copy: nothing is freed while marking */
    return true;
}

static void mark_deep(const Value *v);

/* Marks v and what it reaches, the pending ones included. */
static void mark_value(const Value *v) {
    if (mark_depth >= MARK_DEPTH && mark_later(v)) return;
    mark_depth++;
    mark_deep(v);
    mark_depth--;
    while (mark_depth == 0 && num_pending > 0) {
        Value next = pending[--num_pending];
        mark_depth++;
        mark_deep(&next);
        mark_depth--;
    }
}

static int64_t num_marked; /* objects the pass reached: its cost */

static bool first_visit(unsigned *seen) {
    if (*seen == mark_pass) return false;
    *seen = mark_pass;
    num_marked++;
    return true;
}

static void mark_dict(ValueDict *d) {
    if (!d || !first_visit(&d->seen)) return;
    if (d->factory) mark_value(d->factory);
    for (int64_t i = 0; i < d->count; i++) {
        mark_value(&d->entries[i].key);
        mark_value(&d->entries[i].value);
    }
}

static void mark_class(ClassObj *c) {
    for (; c && first_visit(&c->seen); c = c->base) mark_dict(c->attrs);
}

static void mark_deep(const Value *v) {
    if (v->kind == VAL_LIST) {
        if (!first_visit(&v->as.list->seen)) return;
        for (int i = 0; i < v->as.list->count; i++) mark_value(&v->as.list->items[i]);
    } else if (v->kind == VAL_DICT) {
        mark_dict(v->as.dict);
    } else if (v->kind == VAL_INSTANCE) {
        if (!first_visit(&v->as.object->seen)) return;
        mark_dict(v->as.object->attrs);
        mark_class(v->as.object->cls);
    } else if (v->kind == VAL_CLASS) {
        mark_class(v->as.cls);
    } else if (v->kind == VAL_METHOD) {
        if (!first_visit(&v->as.bound->seen)) return;
        mark_value(&v->as.bound->func);
        mark_value(&v->as.bound->self);
        mark_class(v->as.bound->from);
    } else if (v->kind == VAL_FUNCTION) {
        UserFunc *f = v->as.function;
        if (!first_visit(&f->seen)) return;
        int n = f->def ? f->def->num_params : f->lambda->num_positional;
        for (int i = 0; f->defaults && i < n; i++) mark_value(&f->defaults[i]);
        if (f->closure) mark_env(f->closure);
    } else if (v->kind == VAL_OPTIM) { /* its groups' dicts (opt.param_groups) */
        for (int g = 0; g < v->as.optim->num_groups; g++) mark_dict(v->as.optim->groups[g].options);
    }
}

static void mark_env(Env *e) {
    for (; e && !e->marked; e = e->parent) {
        e->marked = true;
        for (int i = 0; i < e->num_locals; i++) mark_value(&e->locals[i].value);
    }
}

/* The census (CPython's cycle detection): every container the collector
 * can see (the lists and dicts on its circle, the envs, and the objects,
 * bound methods, functions and classes they reach), each with its
 * reference count less the references the others hold. What is left over
 * is held from outside them: a global, a running call, or a value the C
 * code holds while a statement runs (an operand, an argument, a list being
 * looped over). Those are roots too, so the collector may run between the
 * statements of a function, not only at the top level. */
typedef struct {
    ValueKind kind;  /* VAL_VOID: an Env */
    void *p;
} CensusNode;

typedef struct {
    unsigned pass;   /* the census's number: a GcCount with another is not counted yet */
    CensusNode *nodes;
    int64_t num, cap;
    bool failed;     /* out of memory: no roots are known, nothing is swept */
    bool young;      /* the young pass: lists, dicts and envs not counted at the start are
                        old, outside it (their references to it count as from outside) */
    bool reaching;   /* counting done: census_edge marks what it reaches (outside = 1) and
                        stacks it, adding nothing */
    CensusNode *stack;
    int64_t num_stack, cap_stack;
} Census;

static unsigned census_pass;
static CensusNode *census_nodes, *census_stack; /* the arrays, kept for the next pass */
static int64_t census_cap, census_stack_cap;

static Census census_begin(bool young) {
    if (++census_pass == 0) census_pass = 1; /* 0 is never a census: fresh containers are uncounted */
    return (Census){.pass = census_pass, .nodes = census_nodes, .cap = census_cap,
                    .young = young, .stack = census_stack, .cap_stack = census_stack_cap};
}

static bool census_end(Census *c) {
    census_nodes = c->nodes, census_cap = c->cap;
    census_stack = c->stack, census_stack_cap = c->cap_stack;
    return !c->failed;
}

static bool tracked_kind(ValueKind kind) {
    return kind == VAL_LIST || kind == VAL_DICT || kind == VAL_VOID;
}

static void *container_of(const Value *v) {
    switch (v->kind) {
    case VAL_LIST: return v->as.list;
    case VAL_DICT: return v->as.dict;
    case VAL_INSTANCE: return v->as.object;
    case VAL_METHOD: return v->as.bound;
    case VAL_FUNCTION: return v->as.function;
    case VAL_CLASS: return v->as.cls;
    default: return NULL;
    }
}

/* The container's count, and its reference count in *refs. */
static GcCount *count_of(ValueKind kind, void *p, int *refs) {
    switch (kind) {
    case VAL_LIST: return *refs = ((ValueList *)p)->refs, &((ValueList *)p)->census;
    case VAL_DICT: return *refs = ((ValueDict *)p)->refs, &((ValueDict *)p)->census;
    case VAL_INSTANCE: return *refs = ((Instance *)p)->refs, &((Instance *)p)->census;
    case VAL_METHOD: return *refs = ((Bound *)p)->refs, &((Bound *)p)->census;
    case VAL_FUNCTION: return *refs = ((UserFunc *)p)->refs, &((UserFunc *)p)->census;
    case VAL_CLASS: return *refs = ((ClassObj *)p)->refs, &((ClassObj *)p)->census;
    default: return *refs = ((Env *)p)->refs, &((Env *)p)->census;
    }
}

/* p's count, p counted in (with all its references) when first met. */
static GcCount *census_count(Census *c, ValueKind kind, void *p) {
    int refs;
    GcCount *g = count_of(kind, p, &refs);
    if (g->census == c->pass) return g;
    if (c->num == c->cap) {
        int64_t cap = c->cap ? c->cap * 2 : 1024;
        CensusNode *grown = realloc(c->nodes, (size_t)cap * sizeof *grown);
        if (!grown) return c->failed = true, NULL;
        c->nodes = grown, c->cap = cap;
    }
    c->nodes[c->num++] = (CensusNode){kind, p};
    *g = (GcCount){c->pass, refs};
    return g;
}

static void census_push(Census *c, ValueKind kind, void *p) {
    if (c->num_stack == c->cap_stack) {
        int64_t cap = c->cap_stack ? c->cap_stack * 2 : 1024;
        CensusNode *grown = realloc(c->stack, (size_t)cap * sizeof *grown);
        if (!grown) {
            c->failed = true;
            return;
        }
        c->stack = grown, c->cap_stack = cap;
    }
    c->stack[c->num_stack++] = (CensusNode){kind, p};
}

/* census_edge past its common case: p not counted yet, or the census
 * reaching; g is p's count. */
static __attribute__((noinline)) void census_edge_rest(Census *c, ValueKind kind, void *p,
                                                        GcCount *g) {
    if (c->failed) return;
    if (g->census != c->pass && (c->reaching || (c->young && tracked_kind(kind))))
        return; /* outside the census: an old list, dict or env of the young pass */
    if (c->reaching) {
        if (g->outside <= 0) g->outside = 1, census_push(c, kind, p);
        return;
    }
    g = census_count(c, kind, p);
    if (g) g->outside--;
}

/* A reference from a container of the census to p: counted off p's
 * count, inline when p is counted already (most references). */
static inline void census_edge(Census *c, ValueKind kind, void *p) {
    if (!p) return;
    int refs;
    GcCount *g = count_of(kind, p, &refs);
    if (g->census == c->pass && !c->reaching) g->outside--;
    else census_edge_rest(c, kind, p, g);
}

static void census_value(Census *c, const Value *v) {
    void *p = container_of(v);
    if (p) census_edge(c, v->kind, p);
}

static void census_tracked(void *ctx, const Value *v) {
    Census *c = ctx;
    if (!c->failed) census_count(c, v->kind, container_of(v));
}

/* The references node n holds, each counted off its target. */
static void census_out(Census *c, CensusNode n) {
    switch (n.kind) {
    case VAL_LIST: {
        ValueList *l = n.p;
        for (int i = 0; i < l->count; i++) census_value(c, &l->items[i]);
        break;
    }
    case VAL_DICT: {
        ValueDict *d = n.p;
        for (int64_t i = 0; i < d->count; i++) {
            census_value(c, &d->entries[i].key);
            census_value(c, &d->entries[i].value);
        }
        if (d->factory) census_value(c, d->factory);
        break;
    }
    case VAL_INSTANCE:
        census_edge(c, VAL_CLASS, ((Instance *)n.p)->cls);
        census_edge(c, VAL_DICT, ((Instance *)n.p)->attrs);
        break;
    case VAL_METHOD:
        census_value(c, &((Bound *)n.p)->func);
        census_value(c, &((Bound *)n.p)->self);
        census_edge(c, VAL_CLASS, ((Bound *)n.p)->from);
        break;
    case VAL_FUNCTION: {
        UserFunc *f = n.p;
        int count = f->def ? f->def->num_params : f->lambda ? f->lambda->num_positional : 0;
        for (int i = 0; f->defaults && i < count; i++) census_value(c, &f->defaults[i]);
        census_edge(c, VAL_VOID, f->closure);
        break;
    }
    case VAL_CLASS:
        census_edge(c, VAL_CLASS, ((ClassObj *)n.p)->base);
        census_edge(c, VAL_DICT, ((ClassObj *)n.p)->attrs);
        break;
    default: {
        Env *e = n.p;
        for (int i = 0; i < e->num_locals; i++) census_value(c, &e->locals[i].value);
        census_edge(c, VAL_VOID, e->parent);
    }
    }
}

static Value container_value(CensusNode n) {
    Value v = {.kind = n.kind};
    switch (n.kind) {
    case VAL_LIST: v.as.list = n.p; break;
    case VAL_DICT: v.as.dict = n.p; break;
    case VAL_INSTANCE: v.as.object = n.p; break;
    case VAL_METHOD: v.as.bound = n.p; break;
    case VAL_FUNCTION: v.as.function = n.p; break;
    default: v.as.cls = n.p; break;
    }
    return v;
}

/* Marks every container held from outside the census; false when the
 * census ran out of memory (then nothing may be swept). */
static bool mark_held_from_outside(Session *s) {
    Census c = census_begin(false);
    value_each_tracked(census_tracked, &c);
    for (Env *e = s->envs.next; !c.failed && e != &s->envs; e = e->next)
        if (e != &s->envs_old) census_count(&c, VAL_VOID, e);
    for (int64_t i = 0; !c.failed && i < c.num; i++) census_out(&c, c.nodes[i]);
    for (int64_t i = 0; !c.failed && i < c.num; i++) {
        int refs;
        if (count_of(c.nodes[i].kind, c.nodes[i].p, &refs)->outside <= 0) continue;
        if (c.nodes[i].kind == VAL_VOID) {
            mark_env(c.nodes[i].p);
            continue;
        }
        Value v = container_value(c.nodes[i]);
        mark_value(&v);
    }
    return census_end(&c);
}

/* Empties an env the pass did not reach: what only it kept goes, and with
 * it the references that made the cycles. */
static void env_empty(Env *e) {
    Local *locals = e->locals;
    int num = e->num_locals;
    Env *parent = e->parent;
    e->locals = NULL, e->num_locals = e->cap_locals = 0, e->parent = NULL;
    for (int k = 0; k < num; k++) {
        value_release(&locals[k].value);
        if (!e->code) free((char *)locals[k].name);
    }
    env_free_locals(e, locals);
    env_release(parent);
}

/* Makes every env old: the boundary moves to the front. */
static void promote_envs(Session *s) {
    Env *b = &s->envs_old;
    b->prev->next = b->next, b->next->prev = b->prev;
    b->next = s->envs.next, b->prev = &s->envs;
    s->envs.next->prev = b, s->envs.next = b;
}


/* The young generation's next size, from what a young pass freed (dead
 * lists, dicts and envs) and kept: twice as many envs when it freed under
 * an eighth, half when it freed over three quarters, within YOUNG_ENVS and
 * YOUNG_ENVS_MAX. */
static void young_size(Session *s, int64_t dead, int64_t kept) {
    if (dead * 8 < dead + kept && s->young_envs < YOUNG_ENVS_MAX) s->young_envs *= 2;
    else if (dead * 4 > (dead + kept) * 3 && s->young_envs > YOUNG_ENVS) s->young_envs /= 2;
}

/* The young pass: the census of the lists, dicts and envs made since the
 * last pass (and the objects, functions and methods they reach), what is
 * held from outside it (the old containers included) and what that
 * reaches, kept and made old; the rest emptied. Its cost follows what was
 * made, not what lives. */
static void collect_young(Session *s) {
    Census c = census_begin(true);
    value_each_young(census_tracked, &c);
    for (Env *e = s->envs.next; !c.failed && e != &s->envs_old; e = e->next)
        census_count(&c, VAL_VOID, e);
    for (int64_t i = 0; !c.failed && i < c.num; i++) census_out(&c, c.nodes[i]);
    c.reaching = true;
    for (int64_t i = 0; !c.failed && i < c.num; i++) {
        int refs;
        if (count_of(c.nodes[i].kind, c.nodes[i].p, &refs)->outside > 0)
            census_push(&c, c.nodes[i].kind, c.nodes[i].p);
    }
    while (!c.failed && c.num_stack > 0) census_out(&c, c.stack[--c.num_stack]);
    if (!census_end(&c)) return; /* no memory: the cycles wait for the next pass */
    int64_t dead = 0, kept = 0;
    for (int64_t i = 0; i < c.num; i++) { /* hold the unreached, so emptying one frees none */
        int refs;
        CensusNode n = c.nodes[i];
        if (count_of(n.kind, n.p, &refs)->outside > 0) kept++;
        else if (tracked_kind(n.kind)) {
            c.nodes[dead++] = n;
            Value v = container_value(n);
            if (n.kind == VAL_VOID) ((Env *)n.p)->refs++;
            else value_copy_held(&v);
        }
    }
    for (int64_t i = 0; i < dead; i++) {
        Value v = container_value(c.nodes[i]);
        if (c.nodes[i].kind == VAL_VOID) env_empty(c.nodes[i].p);
        else value_empty_container(&v);
    }
    for (int64_t i = 0; i < dead; i++) {
        if (c.nodes[i].kind == VAL_VOID) {
            env_release(c.nodes[i].p);
        } else {
            Value v = container_value(c.nodes[i]);
            value_release(&v);
        }
    }
    value_promote_young();
    promote_envs(s);
    s->promoted += kept;
    young_size(s, dead, kept);
}

bool session_system_exit(Session *s) {
    const ClassObj *c = s->exception.kind == VAL_INSTANCE ? s->exception.as.object->cls : NULL;
    while (c && strcmp(c->name, "SystemExit") != 0) c = c->base;
    if (!c || strncmp(s->error, s->exception.as.object->cls->name,
                      strlen(s->exception.as.object->cls->name)) != 0)
        return false; /* another error since: not this exception's */
    Value code = value_none();
    int status = 0;
    if (!value_getattr(&s->exception, "code", 4, &code)) code = value_none();
    if (code.kind == VAL_INT || code.kind == VAL_BOOL) {
        status = (int)(code.kind == VAL_INT ? code.as.integer & 0xff : code.as.truth);
    } else if (code.kind != VAL_NONE) { /* sys.exit("message") */
        StrBuf text;
        strbuf_init(&text);
        value_format(&text, &code, &s->print, false);
        fflush(s->out);
        fprintf(s->err, "%s\n", text.data ? text.data : "");
        strbuf_free(&text);
        status = 1;
    }
    value_release(&code);
    s->quit = s->exited = true;
    s->exit_status = status;
    return true;
}

/* __ag_module_attrs__'s key for module.NAME. */
static bool module_attr_key(const char *module, const char *name, size_t length, Value *key) {
    char text[256];
    int n = snprintf(text, sizeof text, "%s.%.*s", module, (int)length, name);
    return n > 0 && n < (int)sizeof text && value_string(text, (size_t)n, key);
}

static ValueDict *module_attrs(Session *s) {
    Var *v = session_lookup(s, "__ag_module_attrs__", 19);
    return v && v->value.kind == VAL_DICT ? v->value.as.dict : NULL;
}

bool session_set_module_attr(Session *s, int line, int col, const char *module,
                             const char *name, size_t length, Value v) {
    ValueDict *d = module_attrs(s);
    if (!d && (d = value_dict_new(false)) != NULL &&
        !session_bind(s, "__ag_module_attrs__", 19, (Value){.kind = VAL_DICT, .as.dict = d},
                      line, col))
        d = NULL; /* session_bind released it */
    Value key;
    if (!d || !module_attr_key(module, name, length, &key)) {
        value_release(&v);
        return session_fail(s, line, col, "MemoryError");
    }
    if (!value_dict_set(d, key, v)) return session_fail(s, line, col, "MemoryError");
    s->module_attrs_set = true;
    return true;
}

bool session_module_attr(Session *s, const char *module, const char *name, size_t length,
                         Value *out) {
    ValueDict *d = s->module_attrs_set ? module_attrs(s) : NULL;
    Value key;
    if (!d || !module_attr_key(module, name, length, &key)) return false;
    const Value *v = value_dict_get(d, &key);
    value_release(&key);
    return v && value_copy(v, out);
}

void session_collect_due(Session *s) {
    if (s->promoted > s->old_size / 4 + YOUNG_ENVS) session_collect(s);
    else collect_young(s);
    s->num_envs = 0;
    s->collect_at = s->young_envs;
}

void session_collect(Session *s) {
    if (!s->envs.next) return;
    int64_t count = 0;
    if (++mark_pass == 0) mark_pass = 1; /* 0 is never a pass: fresh objects are unseen */
    num_marked = 0;
    for (Env *e = s->envs.next; e != &s->envs; e = e->next)
        if (e != &s->envs_old) e->marked = false, count++;
    for (int i = 0; i < s->num_vars; i++) mark_value(&s->vars[i].value);
    for (Frame *f = s->frame; f; f = f->caller) {
        mark_env(f->env);
        mark_value(&f->result);
    }
    for (int i = 0; i < s->num_roots; i++) mark_value(s->roots[i]);
    if (!mark_held_from_outside(s)) {
        free(pending);
        pending = NULL, num_pending = cap_pending = 0;
        s->collect_at = s->num_envs + s->young_envs; /* try again later, with more memory */
        return;
    }
    /* Hold every unreached env, then empty them: what only they kept goes,
     * and with it the references that made the cycles. */
    static Env **dead; /* reused by each pass, grown as the envs grow */
    static int64_t dead_cap;
    if (count > dead_cap) {
        Env **grown = realloc(dead, (size_t)count * 2 * sizeof *grown);
        if (grown) dead = grown, dead_cap = count * 2;
    }
    if (count > dead_cap) count = 0; /* no memory: the cycles wait for the next pass */
    int64_t n = 0;
    for (Env *e = s->envs.next; n < count && e != &s->envs; e = e->next)
        if (!e->marked && e != &s->envs_old) e->refs++, dead[n++] = e;
    for (int64_t i = 0; i < n; i++) env_empty(dead[i]);
    for (int64_t i = 0; i < n; i++) env_release(dead[i]);
    free(pending);
    pending = NULL, num_pending = cap_pending = 0;
    value_clear_unseen(mark_pass); /* the cycles of lists, dicts and objects */
    /* What is left is old; the next full pass when a quarter as much again
     * has grown old, so that full passes cost a constant per container made,
     * however large the heap of live objects grows. */
    value_promote_young();
    promote_envs(s);
    s->promoted = 0;
    s->old_size = num_marked;
    s->num_envs = 0;
    s->collect_at = s->young_envs;
}

/* ======================================================================
 * Printing
 * ====================================================================== */

/* Writes text, indenting every line after the first by indent spaces, so a
 * multi-line tensor stays aligned after a "NAME.grad = " prefix. */
static void write_indented(FILE *f, const char *text, size_t indent) {
    for (const char *p = text; *p; p++) {
        fputc(*p, f);
        if (*p == '\n' && p[1] != '\n') /* a blank line stays empty */
            for (size_t i = 0; i < indent; i++) fputc(' ', f);
    }
}

void session_print_value(Session *s, const Value *v) {
    if (v->kind == VAL_VOID) return;
    StrBuf sb;
    strbuf_init(&sb);
    value_format(&sb, v, &s->print, true);
    fprintf(s->out, "%s\n", sb.data);
    strbuf_free(&sb);
}

void session_print_named(Session *s, const char *prefix, const Tensor *t) {
    StrBuf sb;
    strbuf_init(&sb);
    format_tensor(&sb, t, &s->print);
    fputs(prefix, s->out);
    write_indented(s->out, sb.data, strlen(prefix));
    fputc('\n', s->out);
    strbuf_free(&sb);
}

int session_print_grads(Session *s, Tensor **before, int count) {
    int printed = 0;
    for (int i = 0; i < count && i < s->num_vars; i++) {
        Var *v = &s->vars[i];
        if (v->value.kind != VAL_TENSOR) continue;
        Tensor *t = v->value.as.tensor;
        bool keeps = tensor_is_leaf(t) || t->retains_grad; /* retain_grad(): shown too */
        if (!keeps || !t->grad || t->grad == before[i]) continue;
        if (before[i] && s->interactive && !s->accumulation_noted) {
            s->accumulation_noted = true;
            fprintf(s->out, "note: gradients accumulate over backward calls, as in PyTorch; "
                            "zero_grad() resets them\n");
        }
        char prefix[128];
        snprintf(prefix, sizeof prefix, "%.100s.grad = ", v->name);
        session_print_named(s, prefix, t->grad);
        printed++;
    }
    return printed;
}

void session_note_arena(Session *s) {
    int64_t size = ag_graph_size();
    if (size < s->arena_note_at || s->quiet_notes) return;
    /* Graphs whose tensors all died (gradcheck's, a loss computed and
     * dropped) go first: only what is still alive waits for a backward. A
     * look walks the arena, so the next waits until half the note's count
     * more was recorded (or a backward freed the arena): a constant cost
     * per Function. */
    if (size >= s->arena_left && size < s->arena_left + s->arena_note_at / 2) return;
    ag_graph_release_dead(0);
    s->arena_left = size = ag_graph_size();
    if (size < s->arena_note_at) return;
    AgStats st = ag_stats();
    while (s->arena_note_at <= st.arena_functions) s->arena_note_at *= 10;
    fflush(s->out);
    fprintf(s->err,
            "note: %lld graph nodes (%lld KiB) are waiting for a backward: graphs stay in "
            "memory until a backward finds none of them alive, or :reset (:help arena)\n",
            (long long)st.arena_functions, (long long)(st.arena_bytes / 1024));
}

/* ======================================================================
 * Suggestions for unknown names
 * ====================================================================== */

/* Edit distance, capped: anything over 3 is "far". */
static int distance(const char *a, size_t la, const char *b, size_t lb) {
    if (la > 32 || lb > 32) return 99;
    int d[33][33];
    for (size_t i = 0; i <= la; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            int del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
    return d[la][lb];
}

const char *session_suggest(Session *s, const char *name, size_t length,
                            const char *const *names, int num_names) {
    const char *best = NULL;
    if (length < 3) return NULL; /* every one-letter name is one edit from every other */
    int best_d = length <= 4 ? 1 : 2; /* only close names: "foo" is not "log" */
    for (int i = 0; i < s->num_vars; i++) {
        int d = distance(name, length, s->vars[i].name, strlen(s->vars[i].name));
        if (d <= best_d && (!best || d < best_d)) best = s->vars[i].name, best_d = d;
    }
    for (int i = 0; i < num_names; i++) {
        int d = distance(name, length, names[i], strlen(names[i]));
        if (d < best_d || (d == best_d && !best)) best = names[i], best_d = d;
    }
    return best;
}

/* ======================================================================
 * Special methods of objects
 * ====================================================================== */

bool session_call_special(Session *s, int line, int col, const Value *obj, const char *name,
                          const Value *args, int n, Value *out, bool *found) {
    Value f;
    *found = obj->kind == VAL_INSTANCE && value_getattr(obj, name, strlen(name), &f);
    if (!*found) return true;
    bool ok = s->call_value(s, line, col, &f, args, n, out);
    value_release(&f);
    return ok;
}

void session_forget_error(Session *s) {
    s->error[0] = '\0';
    value_release(&s->exception);
}

/* The items of an object with __getitem__ and no __iter__, Python's old
 * sequence protocol: obj[0], obj[1], ... until an IndexError (which ends
 * it; any other error is the iteration's), as a list into *items. */
enum { SEQUENCE_ITEMS_MAX = 10000000 }; /* a __getitem__ that never ends: an error, not a hang */
static bool sequence_items(Session *s, int line, int col, const Value *v, Value *items) {
    ValueList *l = value_list_new(0, false);
    if (!l) return session_fail(s, line, col, "MemoryError");
    *items = (Value){.kind = VAL_LIST, .as.list = l};
    for (int64_t i = 0;; i++) {
        if (i == SEQUENCE_ITEMS_MAX) {
            session_set_error(s, line, col, "ag reads an object's items (its __getitem__ from 0 "
                              "to an IndexError) at once: more than %d of them", SEQUENCE_ITEMS_MAX);
            break;
        }
        Value index = {.kind = VAL_INT, .as.integer = i}, item;
        bool found;
        if (session_call_special(s, line, col, v, "__getitem__", &index, 1, &item, &found)) {
            if (value_list_append(l, item)) continue;
            session_set_error(s, line, col, "MemoryError");
        } else if (strncmp(s->error, "IndexError", 10) == 0) {
            session_forget_error(s); /* the end of the items */
            return true;
        }
        break;
    }
    value_release(items); /* an error: the list goes */
    return false;
}

bool session_iterable(Session *s, int line, int col, Value *v) {
    if (v->kind != VAL_INSTANCE) return true;
    Value items;
    bool found;
    if (!session_call_special(s, line, col, v, "__iter__", NULL, 0, &items, &found)) return false;
    if (!found && value_class_lookup(v->as.object->cls, "__getitem__", 11)) {
        if (!sequence_items(s, line, col, v, &items)) return false;
        found = true;
    }
    if (!found)
        return session_fail(s, line, col, "TypeError: '%s' object is not iterable",
                            value_type_name(v));
    if (value_item_count(&items) < 0 || items.kind == VAL_INSTANCE) {
        session_set_error(s, line, col, "ag's __iter__ must return a list, a tuple or a "
                          "generator's values (iter(self.items), yield), not %s: iterator "
                          "objects with __next__ are not supported yet", value_type_name(&items));
        value_release(&items);
        return false;
    }
    value_release(v);
    *v = items;
    return true;
}

bool session_object_truth(Session *s, int line, int col, const Value *obj, bool *out) {
    static const char *const hooks[] = {"__bool__", "__len__"};
    for (int i = 0; i < 2; i++) {
        Value r;
        bool found;
        if (!session_call_special(s, line, col, obj, hooks[i], NULL, 0, &r, &found)) return false;
        if (!found) continue;
        bool ok = i == 0 ? r.kind == VAL_BOOL : r.kind == VAL_INT || r.kind == VAL_BOOL;
        if (ok) *out = i == 0 ? r.as.truth : value_int(&r) != 0;
        else session_set_error(s, line, col, i == 0 ? "TypeError: __bool__ should return bool, "
                               "returned %s" : "TypeError: '%s' object cannot be interpreted as "
                               "an integer", value_type_name(&r));
        value_release(&r);
        return ok;
    }
    *out = true;
    return true;
}
