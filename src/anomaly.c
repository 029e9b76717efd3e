/*
 * anomaly.c — the words of anomaly mode (PyTorch's detect_anomaly): where
 * each Function's forward ran (a side table kept only while the mode is
 * on: a Function has no room, docs/engine.md), and the message naming the
 * Function whose backward first produced a nan, the element, and the
 * arithmetic there, read off the op row's rule ("grad_x = g / (2 sqrt(x))")
 * with the values at that element. autograd.c owns the mode and the
 * checks; this file only words what they found. Not a general expression
 * evaluator: a rule it cannot read whole is quoted, not evaluated.
 */
#include "internal.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

/* ======================================================================
 * Where each Function's forward ran: (Function, seq, generation) -> place
 * ====================================================================== */

typedef struct {
    const Function *fn;
    uint64_t generation;
    uint32_t seq;
    int line;
    const char *file; /* one of files[] */
} Place;

static _Thread_local Place *places;
static _Thread_local int64_t num_places, cap_places;
/* The client's file names, each copied once: a script has few. */
static _Thread_local char **files;
static _Thread_local int num_files, cap_files;
static _Thread_local const char *current_file;
static _Thread_local int current_line;

static const char *intern_file(const char *file) {
    for (int i = num_files - 1; i >= 0; i--)
        if (strcmp(files[i], file) == 0) return files[i];
    if (num_files == cap_files) {
        int cap = cap_files ? 2 * cap_files : 8;
        char **grown = realloc(files, (size_t)cap * sizeof *grown);
        if (!grown) return NULL;
        files = grown, cap_files = cap;
    }
    char *copy = malloc(strlen(file) + 1);
    if (!copy) return NULL;
    strcpy(copy, file);
    return files[num_files++] = copy;
}

void ag_set_anomaly_location(const char *file, int line) {
    if (!ag_is_anomaly_enabled()) return; /* nothing kept while off (ag_anomaly_clear) */
    current_file = file ? intern_file(file) : NULL;
    current_line = line;
}

void ag_anomaly_note(const Function *fn, uint64_t generation) {
    if (!current_file) return;
    if (num_places == cap_places) {
        int64_t cap = cap_places ? 2 * cap_places : 256;
        Place *grown = realloc(places, (size_t)cap * sizeof *grown);
        if (!grown) return; /* the place is only words: its loss is no failure */
        places = grown, cap_places = cap;
    }
    places[num_places++] = (Place){fn, generation, fn->seq, current_line, current_file};
}

void ag_anomaly_forget(uint64_t generation) {
    int64_t kept = 0;
    for (int64_t i = 0; i < num_places; i++)
        if (places[i].generation != generation) places[kept++] = places[i];
    num_places = kept;
}

void ag_anomaly_clear(void) {
    free(places);
    places = NULL, num_places = cap_places = 0;
    for (int i = 0; i < num_files; i++) free(files[i]);
    free(files);
    files = NULL, num_files = cap_files = 0;
    current_file = NULL;
}

/* The place of fn's forward, newest first (memory is reused within a
 * generation only after ag_graph_release_dead, with a later seq). */
static const Place *place_of(const Function *fn, uint64_t generation) {
    for (int64_t i = num_places - 1; i >= 0; i--)
        if (places[i].fn == fn && places[i].seq == fn->seq && places[i].generation == generation)
            return &places[i];
    return NULL;
}

/* ======================================================================
 * Reading a rule: "grad_a = g / b, grad_b = -g * a / b^2"
 * ====================================================================== */

enum { MAX_VARS = 8, NAME_MAX_LEN = 24 };

typedef struct {
    char name[NAME_MAX_LEN];
    double value;
    bool known;
    const char *def; /* a definition clause's expression ("s = sigmoid(x)"), or NULL */
    size_t def_len;
} Var;

typedef struct {
    Var vars[MAX_VARS];
    int n;
} Vars;

static Var *var_add(Vars *v, const char *name, size_t len) {
    if (v->n == MAX_VARS || len >= NAME_MAX_LEN) return NULL;
    Var *x = &v->vars[v->n++];
    *x = (Var){0};
    memcpy(x->name, name, len);
    return x;
}

static Var *var_find(Vars *v, const char *name, size_t len) {
    for (int i = 0; i < v->n; i++)
        if (strlen(v->vars[i].name) == len && memcmp(v->vars[i].name, name, len) == 0)
            return &v->vars[i];
    return NULL;
}

/* The parser: over [p, end), evaluating as it goes; ok turns false at
 * anything it does not read (a name it does not know, "where", "@"). The
 * root's operator and operand values are kept for the one-step line. */
typedef struct {
    const char *p, *end;
    Vars *vars;
    bool ok;
    int depth;
    char op;        /* the last binary operator read at depth 0, or 0 */
    double lhs, rhs;
} Parser;

static double parse_sum(Parser *ps);

static void skip_space(Parser *ps) {
    while (ps->p < ps->end && *ps->p == ' ') ps->p++;
}

static bool at_name(const Parser *ps) {
    return ps->p < ps->end && (isalpha((unsigned char)*ps->p) || *ps->p == '_');
}

static size_t name_len(const char *p, const char *end) {
    size_t n = 0;
    while (p + n < end && (isalnum((unsigned char)p[n]) || p[n] == '_')) n++;
    return n;
}

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static double sign(double x) { return x > 0 ? 1 : x < 0 ? -1 : x; }

/* The functions a rule calls, by name. */
static bool call(const char *name, size_t len, double x, double *out) {
    static const struct {
        const char *name;
        double (*fn)(double);
    } fns[] = {{"exp", exp},   {"log", log},   {"sqrt", sqrt},   {"sin", sin},
               {"cos", cos},   {"tanh", tanh}, {"sinh", sinh},   {"cosh", cosh},
               {"abs", fabs},  {"sign", sign}, {"sigmoid", sigmoid}};
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        if (strlen(fns[i].name) == len && memcmp(fns[i].name, name, len) == 0) {
            *out = fns[i].fn(x);
            return true;
        }
    return false;
}

static double var_value(Parser *ps, Var *v);

static double parse_atom(Parser *ps) {
    skip_space(ps);
    if (ps->p >= ps->end || ++ps->depth > 32) return ps->ok = false, NAN;
    double r = NAN;
    if (*ps->p == '(') {
        ps->p++;
        r = parse_sum(ps);
        skip_space(ps);
        if (ps->p < ps->end && *ps->p == ')') ps->p++;
        else ps->ok = false;
    } else if (isdigit((unsigned char)*ps->p)) {
        char *after;
        r = strtod(ps->p, &after);
        ps->p = after;
    } else if (at_name(ps)) {
        const char *name = ps->p;
        size_t len = name_len(ps->p, ps->end);
        ps->p += len;
        Var *v = var_find(ps->vars, name, len);
        if (ps->p < ps->end && *ps->p == '(') {
            ps->p++;
            double x = parse_sum(ps);
            skip_space(ps);
            if (ps->p < ps->end && *ps->p == ')') ps->p++;
            else ps->ok = false;
            if (!call(name, len, x, &r)) ps->ok = false;
        } else if (v) {
            r = var_value(ps, v);
        } else if (len == 2 && memcmp(name, "ln", 2) == 0) { /* ln 10, in log10's rule */
            r = log(parse_atom(ps));
        } else {
            ps->ok = false;
        }
    } else {
        ps->ok = false;
    }
    ps->depth--;
    return r;
}

static double parse_unary(Parser *ps);

static double parse_power(Parser *ps) {
    double base = parse_atom(ps);
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == '^') {
        ps->p++;
        double e = parse_unary(ps);
        if (ps->depth == 0) ps->op = '^', ps->lhs = base, ps->rhs = e;
        return pow(base, e);
    }
    return base;
}

static double parse_unary(Parser *ps) {
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == '-') {
        ps->p++;
        return -parse_unary(ps);
    }
    return parse_power(ps);
}

/* Whether what follows starts a factor written next to the last (2 sqrt(x)). */
static bool juxtaposed(Parser *ps) {
    skip_space(ps);
    return ps->p < ps->end && (*ps->p == '(' || isdigit((unsigned char)*ps->p) || at_name(ps));
}

static double parse_product(Parser *ps) {
    double r = parse_unary(ps);
    for (;;) {
        skip_space(ps);
        char op = ps->p < ps->end ? *ps->p : 0;
        if (op == '*' || op == '/') ps->p++;
        else if (juxtaposed(ps)) op = '*';
        else return r;
        double b = parse_unary(ps);
        if (ps->depth == 0) ps->op = op, ps->lhs = r, ps->rhs = b;
        r = op == '*' ? r * b : r / b;
    }
}

static double parse_sum(Parser *ps) {
    double r = parse_product(ps);
    for (;;) {
        skip_space(ps);
        char op = ps->p < ps->end ? *ps->p : 0;
        if (op != '+' && op != '-') return r;
        ps->p++;
        double b = parse_product(ps);
        if (ps->depth == 0) ps->op = op, ps->lhs = r, ps->rhs = b;
        r = op == '+' ? r + b : r - b;
    }
}

/* A defined name's value (s = sigmoid(x)), evaluated once when first read. */
static double var_value(Parser *ps, Var *v) {
    if (v->known) return v->value;
    if (!v->def || ps->depth > 16) return ps->ok = false, NAN;
    Parser sub = {v->def, v->def + v->def_len, ps->vars, true, ps->depth + 1, 0, 0, 0};
    v->value = parse_sum(&sub);
    skip_space(&sub);
    if (!sub.ok || sub.p != sub.end) return ps->ok = false, NAN;
    v->known = true;
    return v->value;
}

/* The rule's clauses: split at ", " and "; " outside parentheses. */
typedef struct {
    const char *text;
    size_t len;
} Clause;

static int split_clauses(const char *rule, Clause *out, int max) {
    int n = 0, depth = 0;
    const char *start = rule;
    for (const char *p = rule;; p++) {
        if (*p == '(') depth++;
        if (*p == ')') depth--;
        bool cut = *p == '\0' || (depth == 0 && (*p == ',' || *p == ';') && p[1] == ' ');
        if (!cut) continue;
        if (n < max) out[n++] = (Clause){start, (size_t)(p - start)};
        if (*p == '\0') return n;
        start = p + 2;
    }
}

/* "NAME = EXPR": the name's length and where EXPR starts, or 0. */
static size_t clause_name(const Clause *c, const char **expr) {
    size_t len = name_len(c->text, c->text + c->len);
    if (len == 0 || c->len < len + 3 || memcmp(c->text + len, " = ", 3) != 0) return 0;
    *expr = c->text + len + 3;
    return len;
}

/* ======================================================================
 * The message
 * ====================================================================== */

/* A double in the fewest digits that read back as it; a negative one in
 * parentheses, so that it can stand in a formula. */
static void number(char *buf, size_t size, double v) {
    char plain[40];
    if (isnan(v)) v = NAN; /* "nan", never glibc's "-nan" */
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(plain, sizeof plain, "%.*g", digits, v);
        if (strtod(plain, NULL) == v || isnan(v)) break;
    }
    snprintf(buf, size, v < 0 ? "(%s)" : "%s", plain);
}

/* "(0,)", "(1, 2)", "()": element e of a tensor of shape, as PyTorch
 * writes an index tuple. */
static void index_tuple(char *buf, size_t size, int ndim, const int64_t *shape, int64_t e) {
    int64_t idx[AG_MAX_DIMS];
    for (int d = ndim - 1; d >= 0; d--) {
        idx[d] = shape[d] ? e % shape[d] : 0;
        e = shape[d] ? e / shape[d] : 0;
    }
    size_t n = (size_t)snprintf(buf, size, "(");
    for (int d = 0; d < ndim && n < size; d++)
        n += (size_t)snprintf(buf + n, size - n, d ? ", %lld" : "%lld", (long long)idx[d]);
    if (n < size) snprintf(buf + n, size - n, ndim == 1 ? ",)" : ")");
}

/* The element of t that broadcasts to element e of out (t broadcasts to
 * out's shape), or -1 when it does not. */
static int64_t broadcast_element(const Tensor *t, const Tensor *out, int64_t e) {
    if (t->ndim > out->ndim) return -1;
    int64_t at = 0, stride = 1;
    for (int d = out->ndim - 1; d >= 0; d--) {
        int64_t i = e % out->shape[d];
        e /= out->shape[d];
        int td = d - (out->ndim - t->ndim);
        if (td < 0) continue;
        if (t->shape[td] != out->shape[d] && t->shape[td] != 1) return -1;
        if (t->shape[td] != 1) at += i * stride;
        stride *= t->shape[td];
    }
    return at;
}

typedef struct {
    char *buf;
    size_t size, n;
} Out;

static void put(Out *o, const char *fmt, ...) AG_PRINTF(2, 3);
static void put(Out *o, const char *fmt, ...) {
    if (o->n >= o->size) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(o->buf + o->n, o->size - o->n, fmt, ap);
    va_end(ap);
    if (k > 0) o->n += (size_t)k;
}

/* expr with each variable written as its value ("0 / (2 sqrt(0))"). */
static void put_substituted(Out *o, const char *expr, size_t len, Vars *vars) {
    const char *p = expr, *end = expr + len;
    while (p < end) {
        size_t k = isalpha((unsigned char)*p) || *p == '_' ? name_len(p, end) : 0;
        Var *v = k ? var_find(vars, p, k) : NULL;
        if (v && v->known && !(p + k < end && p[k] == '(')) {
            char num[48];
            number(num, sizeof num, v->value);
            put(o, "%s", num);
        } else {
            put(o, "%.*s", (int)(k ? k : 1), p);
        }
        p += k ? k : 1;
    }
}

/* What put_arithmetic made of input i's clause of the rule. */
typedef enum {
    CLAUSE_NAN,        /* read whole, nan as the kernel's: the arithmetic is written */
    CLAUSE_NOT_NAN,    /* read whole, another value: a rule written for other values */
    CLAUSE_UNREADABLE, /* no formula of one element's values (g @ b^T, g where x > 0) */
} ClauseRead;

/* Input i's clause of the rule, evaluated at the element's values: "grad_x
 * = g / (2 sqrt(x)) = 0 / (2 sqrt(0)) = 0 / 0 = nan" when it reads whole
 * and gives nan, as the kernel did; nothing written otherwise. */
static ClauseRead put_arithmetic(Out *o, const char *rule, int input, Vars *vars) {
    Clause clauses[12];
    int n = split_clauses(rule, clauses, 12), grads = 0;
    const Clause *mine = NULL;
    const char *mine_expr = NULL;
    for (int c = 0; c < n; c++) {
        const char *expr;
        size_t len = clause_name(&clauses[c], &expr);
        if (len == 0) continue;
        bool grad = len > 5 && memcmp(clauses[c].text, "grad_", 5) == 0;
        if (grad && grads++ == input) mine = &clauses[c], mine_expr = expr;
        if (grad) continue;
        Var *v = var_find(vars, clauses[c].text, len);
        if (!v) v = var_add(vars, clauses[c].text, len);
        if (v && !v->known) v->def = expr, v->def_len = (size_t)(clauses[c].text + clauses[c].len - expr);
    }
    if (!mine) return CLAUSE_UNREADABLE;
    const char *end = mine->text + mine->len;
    Parser ps = {mine_expr, end, vars, true, 0, 0, 0, 0};
    double r = parse_sum(&ps);
    skip_space(&ps);
    if (!ps.ok || ps.p != end) return CLAUSE_UNREADABLE;
    if (!isnan(r)) return CLAUSE_NOT_NAN;
    put(o, "%.*s = ", (int)mine->len, mine->text);
    size_t from = o->n;
    put_substituted(o, mine_expr, (size_t)(end - mine_expr), vars);
    /* The last step, unless it is what was just written (g / x = 0 / 0). */
    char a[48], b[48], step[120];
    number(a, sizeof a, ps.lhs), number(b, sizeof b, ps.rhs);
    snprintf(step, sizeof step, "%s %c %s", a, ps.op, b);
    bool same = o->n < o->size && strcmp(o->buf + from, step) == 0;
    if (ps.op && !same) put(o, " = %s", step);
    put(o, " = nan");
    return CLAUSE_NAN;
}

/* The rule's names for the inputs ("grad_a", "grad_b": a, b), in order. */
static void name_inputs(Vars *vars, const char *rule, const Function *fn, int64_t e) {
    Clause clauses[12];
    int n = split_clauses(rule, clauses, 12), k = 0;
    for (int c = 0; c < n && k < fn->num_inputs; c++) {
        const char *expr;
        size_t len = clause_name(&clauses[c], &expr);
        if (len <= 5 || memcmp(clauses[c].text, "grad_", 5) != 0) continue;
        Tensor *in = fn->inputs[k++];
        int64_t at = in ? broadcast_element(in, fn->output, e) : -1;
        Var *v = at >= 0 ? var_add(vars, clauses[c].text + 5, len - 5) : NULL;
        if (v) v->value = tensor_values(in)[at], v->known = true;
    }
}

/* "g = 0, x = 0, output = 0": the values the rule reads. */
static void put_values(Out *o, const Vars *vars) {
    for (int i = 0; i < vars->n; i++) {
        if (!vars->vars[i].known) continue;
        char num[48];
        number(num, sizeof num, vars->vars[i].value);
        put(o, "%s%s = %s", i ? ", " : "", vars->vars[i].name, num);
    }
}

void ag_anomaly_words(const Function *fn, const AgOpInfo *row, int input, const Tensor *grad,
                      int64_t element, const Tensor *grad_output, uint64_t generation,
                      char *buf, size_t size) {
    Out o = {buf, size, 0};
    /* PyTorch's sentence first, with its name: ag's and a version suffix,
     * except a torch.autograd.Function's, which PyTorch names as given. */
    bool custom = row && row->backward == ag_op_custom.backward;
    put(&o, "Function '%s%s' returned nan values in its %dth output.", fn->name,
        custom ? "" : "0", input);
    char at[AG_MAX_DIMS * 22 + 4];
    index_tuple(at, sizeof at, grad->ndim, grad->shape, element);
    put(&o, " %s at %s", fn->name, at);
    /* The values at the element, where each tensor has one there: the
     * gradient in the output's shape, every input broadcasting to it. */
    const Tensor *out = fn->output;
    bool elementwise = out && grad_output &&
                       ag_shape_equal(grad->ndim, grad->shape, out->ndim, out->shape) &&
                       ag_shape_equal(grad_output->ndim, grad_output->shape, out->ndim, out->shape);
    Vars vars = {.n = 0};
    if (elementwise && custom) { /* the client's backward: no rule to read */
        char g[48], y[48];
        number(g, sizeof g, tensor_values(grad_output)[element]), number(y, sizeof y, tensor_values(out)[element]);
        put(&o, ": g = %s, output = %s", g, y);
    } else if (elementwise && row && row->rule) {
        Var *g = var_add(&vars, "g", 1);
        g->value = tensor_values(grad_output)[element], g->known = true;
        name_inputs(&vars, row->rule, fn, element);
        Var *y = var_add(&vars, "output", 6);
        if (y) y->value = tensor_values(out)[element], y->known = true;
        char text[320];
        Out arithmetic = {text, sizeof text, 0};
        text[0] = '\0';
        Vars evaluated = vars;
        ClauseRead read = put_arithmetic(&arithmetic, row->rule, input, &evaluated);
        if (read == CLAUSE_NAN) {
            put(&o, ": %s", text);
        } else if (read == CLAUSE_NOT_NAN) { /* the values, which the rule reads */
            put(&o, ": ");
            put_values(&o, &vars);
            put(&o, " (%s)", row->rule);
        } else { /* the element's values may not be what the rule reads (g @ b^T) */
            put(&o, " (%s)", row->rule);
        }
    } else if (row && row->rule) {
        put(&o, " (%s)", row->rule);
    }
    const Place *p = place_of(fn, generation);
    if (p) put(&o, "; its forward ran at %s:%d", p->file, p->line);
    put(&o, ".");
}
