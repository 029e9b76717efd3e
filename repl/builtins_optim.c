/*
 * builtins_optim.c — optimizers in the shell: SGD, Adam, AdamW, RMSprop,
 * Adagrad and Adadelta over a list of tensors (opt = Adam([w, b], lr=0.01)), and their
 * methods opt.step() and opt.zero_grad(): one table at the end, a row per
 * optimizer (its signature is all the shell needs to read its arguments,
 * and a list of what its value prints). The update rules are the engine's
 * (src/optim.c, PyTorch 1.13's bit for bit); an optimizer holds its
 * tensors, and a step writes into them in place, so every name, list and
 * object holding one sees it (a graph that saved one refuses a later
 * backward, as in PyTorch).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "builtins.h"

/* ======================================================================
 * Making one
 * ====================================================================== */

/* A new optimizer: its rule in src/optim.c (a kind in include/ag.h), and a
 * row here; its signature's parameters after params name AgOptimConfig's
 * fields (options[] below), in PyTorch's order, with PyTorch 1.13's
 * defaults (those of ag_optim_defaults). */
typedef struct OptimRow {
    AgOptimKind kind;
    const char *shown; /* the options its value prints, in PyTorch's repr order */
    Builtin row;
} OptimRow;

/* The options of AgOptimConfig, by the name a signature gives them: what
 * their argument is, and where it goes. An optimizer takes those its
 * signature names. */
typedef enum { OPTION_NUMBER, OPTION_BOOL, OPTION_BETAS } OptionType;

typedef struct {
    const char *name;
    OptionType type;
    size_t at; /* offsetof(AgOptimConfig, ...); betas: beta1, then beta2 */
} Option;

#define NUMBER(field) {#field, OPTION_NUMBER, offsetof(AgOptimConfig, field)}
#define FLAG(field) {#field, OPTION_BOOL, offsetof(AgOptimConfig, field)}
static const Option options[] = {
    NUMBER(lr), NUMBER(momentum), NUMBER(dampening), NUMBER(weight_decay), FLAG(nesterov),
    FLAG(maximize), {"betas", OPTION_BETAS, offsetof(AgOptimConfig, beta1)}, NUMBER(eps),
    FLAG(amsgrad), NUMBER(alpha), FLAG(centered), NUMBER(lr_decay),
    NUMBER(initial_accumulator_value), NUMBER(rho),
};
#undef NUMBER
#undef FLAG

static const Option *option_named(const char *name, size_t length) {
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        if (strlen(options[i].name) == length && memcmp(options[i].name, name, length) == 0)
            return &options[i];
    return NULL;
}

static double *number_field(AgOptimConfig *c, const Option *o) {
    return (double *)(void *)((char *)c + o->at);
}

static bool *bool_field(AgOptimConfig *c, const Option *o) {
    return (bool *)(void *)((char *)c + o->at);
}

/* betas=(b1, b2) */
static bool read_betas(Session *s, CallArgs *a, int i, AgOptimConfig *c) {
    const Value *v = &a->arg[i];
    if (v->kind != VAL_LIST || v->as.list->count != 2 || !value_is_scalar(&v->as.list->items[0]) ||
        !value_is_scalar(&v->as.list->items[1]))
        return arg_error(s, a, i, "betas must be a pair of numbers, as (0.9, 0.999)");
    c->beta1 = value_scalar(&v->as.list->items[0]);
    c->beta2 = value_scalar(&v->as.list->items[1]);
    return true;
}

/* Argument i into its option (none given: the engine's default stays). */
static bool read_option(Session *s, CallArgs *a, int i, const Option *o, AgOptimConfig *c) {
    if (!arg_present(a, i)) return true;
    switch (o->type) {
    case OPTION_NUMBER: return arg_number(s, a, i, number_field(c, o));
    case OPTION_BOOL: return arg_bool(s, a, i, bool_field(c, o));
    case OPTION_BETAS: return read_betas(s, a, i, c);
    }
    return false;
}

/* The config from the bound arguments: each parameter of the signature
 * after params, in its order (so the first bad one is the one reported). */
static bool read_config(Session *s, CallArgs *a, AgOptimKind kind, AgOptimConfig *c) {
    *c = ag_optim_defaults(kind);
    for (int i = 1; i < arg_count(a); i++) {
        const char *name = arg_name(a, i);
        const Option *o = option_named(name, strlen(name));
        if (!o) return arg_error(s, a, i, "no option of AgOptimConfig is named %s", name); /* a row's bug */
        if (!read_option(s, a, i, o, c)) return false;
        if (i == 1 && arg_present(a, 1) && isnan(c->lr)) /* the engine's nan: "not given" (SGD) */
            return arg_error(s, a, 1, "lr is nan: a learning rate must be a number");
    }
    return true;
}

/* "Adam(lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0,
 * amsgrad=False)": the options in shown (PyTorch's order; "maximize?":
 * only when set). NULL when out of memory. */
static char *describe(AgOptimKind kind, const char *shown, AgOptimConfig c) {
    StrBuf out;
    strbuf_init(&out);
    strbuf_appendf(&out, "%s(", ag_optim_name(kind));
    for (const char *p = shown; *p; p += strspn(p, " ")) {
        size_t n = strcspn(p, " ?");
        const Option *o = option_named(p, n);
        bool if_set = p[n] == '?';
        p += n + if_set;
        if (!o || (if_set && !*bool_field(&c, o))) continue;
        strbuf_appendf(&out, "%s%s=", out.data[out.len - 1] == '(' ? "" : ", ", o->name);
        if (o->type == OPTION_BOOL) {
            strbuf_append(&out, *bool_field(&c, o) ? "True" : "False");
        } else if (o->type == OPTION_NUMBER) {
            format_number(&out, *number_field(&c, o));
        } else {
            strbuf_append(&out, "(");
            format_number(&out, c.beta1);
            strbuf_append(&out, ", ");
            format_number(&out, c.beta2);
            strbuf_append(&out, ")");
        }
    }
    strbuf_append(&out, ")");
    if (!out.oom) return out.data;
    strbuf_free(&out);
    return NULL;
}

static const OptimRow *row_of(const Builtin *b);

/* ======================================================================
 * Parameter groups
 * ====================================================================== */

/* A dict option's value (opt.param_groups[0]['lr'] = 0.01) into c. */
static bool option_from_value(const Option *o, const Value *v, AgOptimConfig *c) {
    if (o->type == OPTION_BETAS) {
        if (v->kind != VAL_LIST || v->as.list->count != 2 || !value_is_scalar(&v->as.list->items[0]) ||
            !value_is_scalar(&v->as.list->items[1]))
            return false;
        c->beta1 = value_scalar(&v->as.list->items[0]);
        c->beta2 = value_scalar(&v->as.list->items[1]);
        return true;
    }
    if (!value_is_scalar(v)) return false;
    if (o->type == OPTION_BOOL) *bool_field(c, o) = value_scalar(v) != 0;
    else *number_field(c, o) = value_scalar(v);
    return true;
}

/* The value an option has in a group's dict: what the call gave, or the
 * default as PyTorch keeps it (momentum=0 an int, eps=1e-08 a float). */
static Value option_value(const CallArgs *a, int i, const Option *o, const AgOptimConfig *c) {
    Value v;
    if (arg_present(a, i) && value_copy(&a->arg[i], &v)) return v;
    if (o->type == OPTION_BOOL) return value_bool(*bool_field((AgOptimConfig *)c, o));
    if (o->type == OPTION_BETAS) {
        ValueList *l = value_list_new(2, true);
        if (!l) return value_void();
        l->items[0] = value_number(c->beta1), l->items[1] = value_number(c->beta2);
        return (Value){.kind = VAL_LIST, .as.list = l};
    }
    double x = *number_field((AgOptimConfig *)c, o); /* nan: SGD's lr when none is given */
    if (x == 0 && !signbit(x)) return (Value){.kind = VAL_INT, .as.integer = 0};
    return value_number(x);
}

/* Puts name: v (taken) into d. */
static bool dict_put(ValueDict *d, const char *name, Value v) {
    Value key;
    if (v.kind == VAL_VOID || !value_string(name, strlen(name), &key)) return value_release(&v), false;
    return value_dict_set(d, key, v);
}

/* Item v of a group's params: a leaf tensor, in no group before. */
static bool check_parameter(Session *s, CallArgs *a, const Optimizer *o, const OptimGroup *grp,
                            int i, const Value *v) {
    if (v->kind != VAL_TENSOR)
        return arg_error(s, a, 0, "%soptimizer can only optimize Tensors, but parameter %d is "
                         "%s", s->python ? "TypeError: " : "", i + 1, value_kind_name(v));
    if (!tensor_is_leaf(v->as.tensor))
        return arg_error(s, a, 0, "%scan't optimize a non-leaf Tensor (parameter %d is the "
                         "result of %s)", s->python ? "ValueError: " : "", i + 1,
                         v->as.tensor->op_name);
    for (int j = 0; j < grp->count; j++) /* a step would update it twice */
        if (grp->params[j] == v->as.tensor)
            return arg_error(s, a, 0, "parameter %d is parameter %d again: list each tensor once",
                             i + 1, j + 1);
    for (int g = 0; g < o->num_groups; g++) /* the groups before this one */
        for (int j = 0; j < o->groups[g].count; j++)
            if (o->groups[g].params[j] == v->as.tensor)
                return arg_error(s, a, 0, "%ssome parameters appear in more than one parameter "
                                 "group", s->python ? "ValueError: " : "");
    return true;
}

/* The tensors of one group (a list or tuple of tensors, or one tensor),
 * each retained, with the names of those written as names ([w, b]). */
static bool group_tensors(Session *s, CallArgs *a, Optimizer *o, OptimGroup *grp,
                          const Value *list, const Node *written) {
    bool one = list->kind == VAL_TENSOR;
    int n = one ? 1 : list->as.list->count;
    if (n == 0) return arg_error(s, a, 0, "%soptimizer got an empty parameter list",
                                 s->python ? "ValueError: " : "");
    if (written && (written->kind != NODE_LIST_EXPR || written->num_kids != n)) written = NULL;
    grp->params = calloc((size_t)n, sizeof *grp->params);
    grp->names = calloc((size_t)n, sizeof *grp->names);
    if (!grp->params || !grp->names) return session_fail(s, a->line, a->col, "out of memory");
    for (int i = 0; i < n; i++) {
        const Value *v = one ? list : &list->as.list->items[i];
        if (!check_parameter(s, a, o, grp, i, v)) return false;
        grp->params[i] = tensor_retain(v->as.tensor);
        grp->count = i + 1;
        const Node *k = written ? written->kids[i] : NULL;
        if (k && k->kind == NODE_NAME && !k->torch &&
            !(grp->names[i] = strndup(k->as.text.text, k->as.text.length)))
            return session_fail(s, a->line, a->col, "out of memory");
    }
    return true;
}

/* One group: its tensors, its options (the call's, then the group dict's
 * own, as PyTorch's [{'params': ..., 'lr': ...}]), its engine and the dict
 * the script sees. spec: a dict of the group, or NULL (params is the list). */
static bool make_group(Session *s, CallArgs *a, Optimizer *o, const AgOptimConfig *base,
                       const Value *spec) {
    OptimGroup *grp = &o->groups[o->num_groups];
    *grp = (OptimGroup){.config = *base};
    const Value *params = &a->arg[0];
    if (spec) {
        Value key;
        if (!value_string("params", 6, &key)) return session_fail(s, a->line, a->col, "MemoryError");
        params = value_dict_get(spec->as.dict, &key);
        value_release(&key);
        if (!params) return arg_error(s, a, 0, "%sparameter group didn't specify a value of "
                                      "required optimization parameter params",
                                      s->python ? "KeyError: " : "");
    }
    if (params->kind != VAL_LIST && params->kind != VAL_TENSOR)
        return arg_error(s, a, 0, "%sparams argument given to the optimizer should be an "
                         "iterable of Tensors or dicts, but got %s", s->python ? "TypeError: " : "",
                         value_kind_name(params));
    bool ok = group_tensors(s, a, o, grp, params, spec ? NULL : a->node[0]);
    o->num_groups++; /* counted from here on, so that release frees what it holds */
    if (!ok) return false;
    if (!(grp->options = value_dict_new(false))) return session_fail(s, a->line, a->col, "MemoryError");
    Value list;
    if (!value_copy(params, &list) || !dict_put(grp->options, "params", list))
        return session_fail(s, a->line, a->col, "MemoryError");
    for (int i = 1; i < arg_count(a); i++) {
        const char *name = arg_name(a, i);
        const Option *opt = option_named(name, strlen(name));
        Value key, *own = NULL;
        if (spec && value_string(name, strlen(name), &key)) {
            own = value_dict_get(spec->as.dict, &key);
            value_release(&key);
        }
        if (own && !option_from_value(opt, own, &grp->config))
            return arg_error(s, a, 0, "the group's %s is %s, not a number", name, value_kind_name(own));
        Value v = own ? value_void() : option_value(a, i, opt, &grp->config);
        if (own && !value_copy(own, &v)) v = value_void();
        if (!dict_put(grp->options, name, v)) return session_fail(s, a->line, a->col, "MemoryError");
    }
    if (!(grp->engine = ag_optim_new(o->kind, &grp->config, grp->count)))
        return session_fail(s, a->line, a->col, "%s%s: %s", s->python ? "ValueError: " : "",
                            ag_optim_name(o->kind), ag_error());
    return true;
}

/* The params argument: a list of tensors (one group) or of dicts (a group
 * each), written or held in a variable. */
static bool make_groups(Session *s, CallArgs *a, Optimizer *o, const AgOptimConfig *base) {
    const Value *p = &a->arg[0];
    const Node *node = a->node[0];
    bool empty = node && node->kind == NODE_LIST && node->as.list.count == 0; /* [] in .ag */
    if (empty || (p->kind == VAL_LIST && p->as.list->count == 0))
        return arg_error(s, a, 0, "%soptimizer got an empty parameter list",
                         s->python ? "ValueError: " : "");
    if (p->kind != VAL_LIST)
        return arg_error(s, a, 0, "%sparams argument given to the optimizer should be an "
                         "iterable of Tensors or dicts, but got %s", s->python ? "TypeError: " : "",
                         value_kind_name(p));
    bool dicts = p->as.list->items[0].kind == VAL_DICT;
    int n = dicts ? p->as.list->count : 1;
    if (!(o->groups = calloc((size_t)n, sizeof *o->groups)))
        return session_fail(s, a->line, a->col, "out of memory");
    for (int g = 0; g < n; g++) {
        const Value *spec = dicts ? &p->as.list->items[g] : NULL;
        if (spec && spec->kind != VAL_DICT)
            return arg_error(s, a, 0, "parameter group %d is %s, not a dict", g + 1,
                             value_kind_name(spec));
        if (!make_group(s, a, o, base, spec)) return false;
    }
    return true;
}

/* Every optimizer's builtin: its row says which. */
static BUILTIN(bi_optimizer) {
    const OptimRow *row = row_of(a->b);
    Optimizer *o = calloc(1, sizeof *o);
    if (!o) return session_fail(s, a->line, a->col, "out of memory");
    o->refs = 1;
    o->kind = row->kind;
    AgOptimConfig base;
    bool ok = read_config(s, a, o->kind, &base) && make_groups(s, a, o, &base);
    if (ok && !(o->text = describe(o->kind, row->shown, o->groups[0].config)))
        ok = session_fail(s, a->line, a->col, "out of memory");
    if (!ok) {
        optimizer_release(o);
        return false;
    }
    *out = (Value){.kind = VAL_OPTIM, .as.optim = o};
    return true;
}

/* ======================================================================
 * opt.step(), opt.zero_grad(), opt.param_groups
 * ====================================================================== */

/* The options of grp's dict into its engine, when the script changed them. */
static bool sync_group(Session *s, const CallArgs *a, const Optimizer *o, OptimGroup *grp) {
    AgOptimConfig c = grp->config;
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        Value key, *v;
        if (!value_string(options[i].name, strlen(options[i].name), &key)) continue;
        v = value_dict_get(grp->options, &key);
        value_release(&key);
        if (v && !option_from_value(&options[i], v, &c))
            return session_fail(s, a->line, a->col, "%sparam_groups' %s is %s, not a number",
                                s->python ? "TypeError: " : "", options[i].name, value_kind_name(v));
    }
    if (memcmp(&c, &grp->config, sizeof c) == 0) return true;
    if (ag_optim_configure(grp->engine, &c) != 0)
        return session_fail(s, a->line, a->col, "%s%s: %s", s->python ? "ValueError: " : "",
                            ag_optim_name(o->kind), ag_error());
    grp->config = c;
    return true;
}

/* One step of every tensor the optimizer holds, in place, each group with
 * its options as the script last set them. */
static BUILTIN(bi_optim_step) {
    (void)out;
    Optimizer *o = a->arg[0].as.optim;
    for (int g = 0; g < o->num_groups; g++)
        if (!sync_group(s, a, o, &o->groups[g])) return false;
    for (int g = 0; g < o->num_groups; g++)
        if (ag_optim_step_in_place(o->groups[g].engine, o->groups[g].params) != 0)
            return session_fail(s, a->line, a->col, "%s%s", s->python ? "RuntimeError: " : "",
                                ag_error());
    return true;
}

static BUILTIN(bi_optim_zero_grad) {
    (void)out;
    Optimizer *o = a->arg[0].as.optim;
    bool to_none = true;
    if (!arg_bool(s, a, 1, &to_none)) return false;
    for (int g = 0; g < o->num_groups; g++)
        for (int i = 0; i < o->groups[g].count; i++) {
            Tensor *t = o->groups[g].params[i];
            if (to_none || !t->grad) { /* PyTorch leaves a missing gradient missing */
                tensor_zero_grad(t);
                continue;
            }
            Tensor *zeros = tensor_zeros(t->ndim, t->shape, false);
            bool ok = zeros && tensor_set_grad(t, zeros) == 0;
            tensor_release(zeros);
            if (!ok) return session_fail(s, a->line, a->col, "%s", ag_error());
        }
    return true;
}

bool optim_param_groups(const Optimizer *o, Value *out) {
    ValueList *l = value_list_new(o->num_groups, false);
    if (!l) return false;
    for (int g = 0; g < o->num_groups; g++) {
        o->groups[g].options->refs++;
        l->items[g] = (Value){.kind = VAL_DICT, .as.dict = o->groups[g].options};
    }
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    return true;
}

/* ======================================================================
 * The table: one row per optimizer (the engine's kind, its builtin, how its
 * value prints), then the methods of an optimizer's value
 * ====================================================================== */

#define OPTIM(kind, name, signature, help, details, shown) \
    {kind, shown, {name, signature, help, details, bi_optimizer, 0, VAL_VOID, NULL}}
static const OptimRow optimizers[] = {
    OPTIM(AG_OPTIM_SGD, "SGD", "SGD(params, lr=None, momentum=0, dampening=0, weight_decay=0, "
          "nesterov=False, *, maximize=False)", "stochastic gradient descent over a list of "
          "tensors: opt.step() updates them in place", "lr has no default; momentum, nesterov and "
          "dampening as PyTorch's", "lr momentum dampening weight_decay nesterov maximize?"),
    OPTIM(AG_OPTIM_ADAM, "Adam", "Adam(params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, "
          "weight_decay=0, amsgrad=False, *, maximize=False)", "Adam over a list of tensors",
          NULL, "lr betas eps weight_decay amsgrad maximize?"),
    OPTIM(AG_OPTIM_ADAMW, "AdamW", "AdamW(params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, "
          "weight_decay=0.01, amsgrad=False, *, maximize=False)", "Adam with decoupled weight "
          "decay", NULL, "lr betas eps weight_decay amsgrad maximize?"),
    OPTIM(AG_OPTIM_RMSPROP, "RMSprop", "RMSprop(params, lr=0.01, alpha=0.99, eps=1e-08, "
          "weight_decay=0, momentum=0, centered=False, *, maximize=False)", "RMSprop over a "
          "list of tensors", NULL, "lr momentum alpha eps weight_decay centered maximize?"),
    OPTIM(AG_OPTIM_ADAGRAD, "Adagrad", "Adagrad(params, lr=0.01, lr_decay=0, weight_decay=0, "
          "initial_accumulator_value=0, eps=1e-10, *, maximize=False)", "Adagrad over a list of "
          "tensors", NULL, "lr lr_decay eps weight_decay initial_accumulator_value maximize?"),
    OPTIM(AG_OPTIM_ADADELTA, "Adadelta", "Adadelta(params, lr=1.0, rho=0.9, eps=1e-06, "
          "weight_decay=0, *, maximize=False)", "Adadelta over a list of tensors", NULL,
          "lr rho eps weight_decay maximize?"),
};
#undef OPTIM
enum { NUM_OPTIMIZERS = sizeof optimizers / sizeof optimizers[0] };

static const Builtin methods[] = {
    {"step", "step(self)", "one update of every tensor the optimizer holds, in place (each "
     "keeps its .grad)", "a tensor without a gradient is skipped, as in PyTorch", bi_optim_step, BI_VOID, VAL_OPTIM, NULL},
    {"zero_grad", "zero_grad(self, set_to_none=True)", "resets the gradients of the tensors "
     "the optimizer holds (to None, as PyTorch 2; set_to_none=False: to zeros, PyTorch 1.13's "
     "default)", NULL, bi_optim_zero_grad, BI_VOID, VAL_OPTIM, NULL},
};
enum { NUM_METHODS = sizeof methods / sizeof methods[0] };

/* The row of an optimizer's builtin (b is the table's copy of row.row). */
static const OptimRow *row_of(const Builtin *b) {
    for (int i = 0; i < NUM_OPTIMIZERS; i++)
        if (strcmp(optimizers[i].row.name, b->name) == 0) return &optimizers[i];
    abort(); /* bi_optimizer is only in the rows above */
}

const Builtin *optim_builtin(int i) {
    if (i >= 0 && i < NUM_OPTIMIZERS) return &optimizers[i].row;
    if (i >= NUM_OPTIMIZERS && i < NUM_OPTIMIZERS + NUM_METHODS) return &methods[i - NUM_OPTIMIZERS];
    return NULL;
}

int optim_builtin_count(void) { return NUM_OPTIMIZERS + NUM_METHODS; }
