/*
 * print.c — PyTorch's tensor repr for ag tensors (see print.h).
 *
 * This follows torch/_tensor_str.py step by step, so each function here
 * names the Python function it mirrors:
 *   Formatter        _Formatter: picks int / fixed / scientific mode and one
 *                    column width from the values that will be shown;
 *   print_vector     _vector_str: one innermost row, wrapped at linewidth;
 *   print_block      _tensor_str_with_formatter: nested rows and blocks;
 *   add_suffix       _add_suffixes: ", requires_grad=True" and friends.
 * It is not a general number formatter: the only modes are PyTorch's, with
 * its default options fixed below. Integer tensors print their integers,
 * bool ones True/False, and the dtype suffix names a dtype other than the
 * default, int64 and bool, as PyTorch's does.
 */
#include "print.h"

#include <ctype.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PyTorch's default print options (torch/_tensor_str.py, PRINT_OPTS). */
const PrintOptions print_defaults = {
    .precision = 4, .threshold = 1000, .edgeitems = 3, .linewidth = 80, .sci_mode = -1};
/* The indent of continuation lines: strlen("tensor("), whatever the caller
 * printed before it on the line, exactly as PyTorch does. */
enum { PREFIX_INDENT = 7 };
/* Longest formatted element: "-1.0000e+308" is 12 characters at precision
 * 4, and fixed or int mode only run when every finite value is at most 1e8
 * (or when sci_mode is off: up to 309 digits and the decimals). */
enum { NUMBER_MAX = 400, PRECISION_MAX = 60 };

typedef struct {
    bool boolean;  /* True / False, not numbers */
    bool integer;  /* an integer tensor's elements: "12", no point */
    bool int_mode; /* every finite nonzero value is an integer: print "2." */
    bool sci_mode; /* "%.4e": magnitudes too far apart, too large or too small */
    int precision; /* decimals in fixed and scientific mode */
    int width;     /* column width: every element is right-aligned to it */
} Formatter;

/* What one call of format_tensor needs while it walks the tensor. */
typedef struct {
    const Tensor *t;
    const PrintOptions *opts;
    StrBuf *out;
    int64_t stride[AG_MAX_DIMS]; /* row-major strides, in elements */
    bool summarize;              /* numel > threshold: show edge items only */
    Formatter fmt;
} Printer;

/* ---- walking the shown elements ------------------------------------------ */

/* True if dimension size n is cut to its edge items with a "..." between. */
static bool elided(const Printer *p, int64_t n) {
    return p->summarize && n > 2 * (int64_t)p->opts->edgeitems;
}

/* The index after i along a dimension of size n, skipping the elided middle. */
static int64_t next_shown(const Printer *p, int64_t i, int64_t n) {
    return (elided(p, n) && i + 1 == p->opts->edgeitems) ? n - p->opts->edgeitems : i + 1;
}

typedef void (*Visit)(double value, void *ctx);

/* Calls visit on every element that will be printed (PyTorch builds its
 * formatter from get_summarized_data, i.e. from these elements only). */
static void visit_shown(const Printer *p, int dim, int64_t offset, Visit visit, void *ctx) {
    const Tensor *t = p->t;
    if (t->ndim == 0) {
        visit(tensor_values(t)[0], ctx);
        return;
    }
    int64_t n = t->shape[dim];
    for (int64_t i = 0; i < n; i = next_shown(p, i, n)) {
        int64_t at = offset + i * p->stride[dim];
        if (dim == t->ndim - 1)
            visit(tensor_values(t)[at], ctx);
        else
            visit_shown(p, dim + 1, at, visit, ctx);
    }
}

/* ---- the formatter (_Formatter) ------------------------------------------ */

/* Statistics of the nonzero finite values, the only ones PyTorch looks at. */
typedef struct {
    int64_t count;
    double min_abs, max_abs;
    bool all_integers;
} ValueStats;

static void gather_stats(double v, void *ctx) {
    ValueStats *s = ctx;
    if (!isfinite(v) || v == 0.0) return;
    double a = fabs(v);
    if (s->count == 0 || a < s->min_abs) s->min_abs = a;
    if (s->count == 0 || a > s->max_abs) s->max_abs = a;
    if (v != ceil(v)) s->all_integers = false;
    s->count++;
}

/* Writes v without padding in the formatter's mode; returns its length.
 * Non-finite values print as Python prints them ("nan" never has a sign,
 * where C's printf may write "-nan"), and int mode adds no "." to them. */
static int number_text(const Formatter *f, double v, char *buf) {
    if (f->boolean) return snprintf(buf, NUMBER_MAX, v != 0 ? "True" : "False");
    if (f->integer) return snprintf(buf, NUMBER_MAX, "%.0f", v);
    if (isnan(v)) return snprintf(buf, NUMBER_MAX, "nan");
    if (isinf(v)) return snprintf(buf, NUMBER_MAX, v < 0 ? "-inf" : "inf");
    if (f->sci_mode) return snprintf(buf, NUMBER_MAX, "%.*e", f->precision, v);
    if (f->int_mode) return snprintf(buf, NUMBER_MAX, "%.0f.", v);
    return snprintf(buf, NUMBER_MAX, "%.*f", f->precision, v);
}

static void widen(double v, void *ctx) {
    Formatter *f = ctx;
    char buf[NUMBER_MAX];
    /* PyTorch sizes float columns by nonzero finite values only */
    if (!f->boolean && !f->integer && (!isfinite(v) || v == 0.0)) return;
    int len = number_text(f, v, buf);
    if (len > f->width) f->width = len;
}

/* The mode rules of _Formatter.__init__: for a boolean tensor the width of
 * its longest word; for floating ones int, fixed or scientific mode. As in
 * PyTorch, a sci_mode option overrides the mode after the widths are set. */
static Formatter make_formatter(const Printer *p, bool boolean) {
    bool integer = p->t->dtype == AG_INT64 || p->t->dtype == AG_INT32;
    Formatter f = {.boolean = boolean, .integer = integer && !boolean, .int_mode = true,
                   .sci_mode = false, .precision = p->opts->precision, .width = 1};
    if (boolean || integer) {
        visit_shown(p, 0, 0, widen, &f);
        return f;
    }
    ValueStats s = {.count = 0, .all_integers = true};
    visit_shown(p, 0, 0, gather_stats, &s);
    if (s.count > 0) { /* else only zeros and non-finite values */
        double ratio = s.max_abs / s.min_abs;
        f.int_mode = s.all_integers;
        /* PyTorch tests min < 1e-4 only outside int mode; inside it every
         * value is an integer, so min >= 1 and one condition serves both. */
        f.sci_mode = ratio > 1000.0 || s.max_abs > 1.0e8 || s.min_abs < 1.0e-4;
        visit_shown(p, 0, 0, widen, &f);
    }
    if (p->opts->sci_mode >= 0) f.sci_mode = p->opts->sci_mode;
    return f;
}

/* ---- layout -------------------------------------------------------------- */

static void spaces(StrBuf *out, int n) {
    if (n > 0) strbuf_appendf(out, "%*s", n, "");
}

/* One element, right-aligned to the column width. */
static void print_number(const Printer *p, double v) {
    char buf[NUMBER_MAX];
    int len = number_text(&p->fmt, v, buf);
    spaces(p->out, p->fmt.width - len);
    strbuf_append(p->out, buf);
}

/* The separator before the item-th element of a row: a new line every
 * per_line elements, continuation lines indented one past the bracket. */
static void vector_separator(const Printer *p, int64_t item, int per_line, int indent) {
    if (item == 0) return;
    if (item % per_line == 0) {
        strbuf_append(p->out, ",\n");
        spaces(p->out, indent + 1);
    } else {
        strbuf_append(p->out, ", ");
    }
}

/* _vector_str: "[a, b, c]", wrapped so that a line holds as many elements
 * (each counted as width + 2 for ", ") as fit in linewidth - indent. The
 * " ..." of a summarised row counts as one element, as in PyTorch. */
static void print_vector(const Printer *p, int64_t offset, int indent) {
    int64_t n = p->t->shape[p->t->ndim - 1];
    int per_line = (p->opts->linewidth - indent) / (p->fmt.width + 2);
    if (per_line < 1) per_line = 1;
    int64_t item = 0;
    strbuf_append(p->out, "[");
    for (int64_t i = 0; i < n; i = next_shown(p, i, n)) {
        if (elided(p, n) && i == n - p->opts->edgeitems) {
            vector_separator(p, item++, per_line, indent);
            strbuf_append(p->out, " ...");
        }
        vector_separator(p, item++, per_line, indent);
        print_number(p, tensor_values(p->t)[offset + i]);
    }
    strbuf_append(p->out, "]");
}

/* The separator between sub-blocks of dimension dim: a comma, one newline
 * per dimension below it (so 3-D blocks have a blank line between them),
 * then the indent of the next opening bracket. */
static void block_separator(const Printer *p, int dim, int indent) {
    strbuf_append(p->out, ",");
    for (int d = dim + 1; d < p->t->ndim; d++) strbuf_append(p->out, "\n");
    spaces(p->out, indent + 1);
}

/* _tensor_str_with_formatter for dimension dim of the block at offset. */
static void print_block(const Printer *p, int dim, int64_t offset, int indent) {
    if (dim == p->t->ndim - 1) {
        print_vector(p, offset, indent);
        return;
    }
    int64_t n = p->t->shape[dim];
    strbuf_append(p->out, "[");
    for (int64_t i = 0; i < n; i = next_shown(p, i, n)) {
        if (i > 0) block_separator(p, dim, indent);
        if (elided(p, n) && i == n - p->opts->edgeitems) {
            strbuf_append(p->out, "...");
            block_separator(p, dim, indent);
        }
        print_block(p, dim + 1, offset + i * p->stride[dim], indent + 1);
    }
    strbuf_append(p->out, "]");
}

/* ---- suffixes (_add_suffixes) -------------------------------------------- */

/* PyTorch's len(s) - s.rfind("\n") + 1, measured on the text this call
 * wrote (from start). It counts two more than the last line's characters;
 * reproduced as is, because it decides where suffixes go. */
static int last_line_len(const StrBuf *out, size_t start) {
    size_t i = out->len;
    while (i > start && out->data[i - 1] != '\n') i--;
    return (int)(out->len - i) + 2;
}

/* Appends ", suffix", or ",\n" and the indent then suffix when the line
 * would pass linewidth; *line tracks the line length as PyTorch does. */
static void add_suffix(StrBuf *out, int *line, const char *suffix, int linewidth) {
    int len = (int)strlen(suffix);
    if (*line + len + 2 > linewidth) {
        strbuf_append(out, ",\n");
        spaces(out, PREFIX_INDENT);
        *line = PREFIX_INDENT + len;
    } else {
        strbuf_append(out, ", ");
        *line += len + 2;
    }
    strbuf_append(out, suffix);
}

/* ---- entry points -------------------------------------------------------- */

/* The bracketed values of a non-empty tensor (_tensor_str). */
static void print_values(StrBuf *out, const Tensor *t, const PrintOptions *opts) {
    Printer p = {.t = t, .opts = opts, .out = out, .summarize = t->numel > opts->threshold};
    int64_t stride = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        p.stride[d] = stride;
        stride *= t->shape[d];
    }
    p.fmt = make_formatter(&p, t->dtype == AG_BOOL);
    if (t->ndim == 0)
        print_number(&p, tensor_values(t)[0]);
    else
        print_block(&p, 0, 0, PREFIX_INDENT);
}

/* Custom Functions' names: each distinct one once, never freed (a
 * class's name, a few of them). */
static struct CustomName {
    struct CustomName *next;
    char text[];
} *custom_names;

const char *print_custom_function_name(const char *text, size_t length) {
    for (struct CustomName *n = custom_names; n; n = n->next)
        if (strlen(n->text) == length && memcmp(n->text, text, length) == 0) return n->text;
    struct CustomName *n = malloc(sizeof *n + length + 1);
    if (!n) return "CustomFunctionBackward";
    memcpy(n->text, text, length);
    n->text[length] = '\0';
    n->next = custom_names;
    custom_names = n;
    return n->text;
}

bool print_grad_fn_custom(const char *name) {
    for (struct CustomName *n = custom_names; n; n = n->next)
        if (n->text == name) return true;
    return false;
}

int print_grad_fn_shown(const char *name) {
    size_t len = strlen(name);
    bool variant = len > 9 && name[len - 1] >= '0' && name[len - 1] <= '9' &&
                   strncmp(name + len - 9, "Backward", 8) == 0;
    return (int)len - variant;
}

const char *print_grad_fn_number(const char *name) {
    size_t len = strlen(name);
    bool generated = len >= 8 && strcmp(name + len - 8, "Backward") == 0 && !print_grad_fn_custom(name);
    return generated ? "0" : "";
}

void format_tensor(StrBuf *out, const Tensor *t, const PrintOptions *opts) {
    if (!t) {
        strbuf_append(out, "None");
        return;
    }
    if (t->parameter && opts->python) /* nn.Parameter's repr, as PyTorch's */
        strbuf_append(out, "Parameter containing:\n");
    size_t start = out->len;
    strbuf_append(out, "tensor(");
    /* An empty tensor shows its shape unless it is 1-D, to match NumPy. */
    StrBuf size;
    strbuf_init(&size);
    if (t->numel == 0) {
        strbuf_append(out, "[]");
        if (t->ndim != 1) {
            char shape[AG_SHAPE_STR_MAX];
            strbuf_append(&size, "size=");
            strbuf_append(&size, tensor_shape_str(t, shape, sizeof shape));
        }
    } else {
        print_values(out, t, opts);
    }
    int line = last_line_len(out, start);
    if (size.len > 0) add_suffix(out, &line, size.data, opts->linewidth);
    strbuf_free(&size);
    /* PyTorch names a dtype its values do not show: any but the default,
     * int64 and bool, and in an empty tensor any but the default. */
    AgDtype dtype = (AgDtype)t->dtype;
    bool shown = dtype == ag_default_dtype() ||
                 (t->numel > 0 && (dtype == AG_INT64 || dtype == AG_BOOL));
    if (!shown) {
        char text[40];
        snprintf(text, sizeof text, "dtype=torch.%s", ag_dtype_name(dtype));
        add_suffix(out, &line, text, opts->linewidth);
    }
    if (t->grad_fn) {
        char grad_fn[128];
        const char *name = t->op_name ? t->op_name : "?";
        snprintf(grad_fn, sizeof grad_fn, "grad_fn=<%.*s%s>",
                 opts->python ? (int)strlen(name) : print_grad_fn_shown(name), name,
                 opts->python ? print_grad_fn_number(name) : "");
        add_suffix(out, &line, grad_fn, opts->linewidth);
    } else if (t->requires_grad) {
        add_suffix(out, &line, "requires_grad=True", opts->linewidth);
    }
    strbuf_append(out, ")");
}

/* ---- numbers: Python's repr of a float ------------------------------------ */

/* True if the p significant digits in buf ("d.ddde+XX", from "%.*e") read
 * back as v; else tries the p-digit number one unit above it, which can be
 * the only one that does when v is a power of two: its rounding interval
 * reaches twice as far above v as below, so the nearest p-digit number may
 * fall short below while the next one up still reads back (46 powers,
 * 2**976 among them: 17 digits where Python's repr prints 16). Leaves the
 * digits that read back in buf. */
static bool reads_back(char *buf, double v) {
    if (strtod(buf, NULL) == v) return true;
    char up[40];
    memcpy(up, buf, sizeof up);
    char *e = strchr(up, 'e');
    char *c = e - 1;
    for (; c >= up; c--) { /* add one unit in the last digit */
        if (*c == '.') continue;
        if (*c != '9') {
            (*c)++;
            break;
        }
        *c = '0';
    }
    if (c < up) { /* 9.99e+05 -> 1.00e+06: the carry moved the exponent */
        up[0] = '1';
        snprintf(e, sizeof up - (size_t)(e - up), "e%+03d", atoi(strchr(buf, 'e') + 1) + 1);
    }
    if (strtod(up, NULL) != v) return false;
    memcpy(buf, up, sizeof up);
    return true;
}

void format_shortest_digits(double v, char *digits, int *exp) {
    char buf[40];
    /* Reading back is monotonic in the digits (a p-digit number that reads
     * back as v is also a (p+1)-digit one) and 17 always do, so a binary
     * search finds the fewest: 5 tries, not up to 17 (save_csv of 500,000
     * numbers: 1.8 s before). */
    int lo = 1, hi = 17;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        snprintf(buf, sizeof buf, "%.*e", mid - 1, v);
        if (reads_back(buf, v)) hi = mid;
        else lo = mid + 1;
    }
    snprintf(buf, sizeof buf, "%.*e", lo - 1, v);
    reads_back(buf, v);
    const char *e = strchr(buf, 'e');
    *exp = atoi(e + 1);
    size_t n = 0;
    for (const char *c = buf; c < e; c++)
        if (*c >= '0' && *c <= '9') digits[n++] = *c;
    digits[n] = '\0';
}

static void zeros(StrBuf *out, int n) {
    for (int i = 0; i < n; i++) strbuf_append(out, "0");
}

void format_number(StrBuf *out, double v) {
    if (isnan(v) || isinf(v)) {
        strbuf_append(out, isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
        return;
    }
    if (v == floor(v) && fabs(v) < 1e16) {
        strbuf_appendf(out, "%.0f", v);
        return;
    }
    char digits[24];
    int exp;
    format_shortest_digits(fabs(v), digits, &exp);
    int n = (int)strlen(digits);
    if (v < 0) strbuf_append(out, "-");
    if (exp < -4 || exp >= 16) { /* 1e-05, 1.5e+17: as Python */
        strbuf_appendf(out, "%c%s%.*s", digits[0], n > 1 ? "." : "", n - 1, digits + 1);
        strbuf_appendf(out, "e%c%02d", exp < 0 ? '-' : '+', abs(exp));
    } else if (exp < 0) { /* 0.00012 */
        strbuf_append(out, "0.");
        zeros(out, -exp - 1);
        strbuf_append(out, digits);
    } else if (n <= exp + 1) { /* integral (only past 1e16, handled above) */
        strbuf_append(out, digits);
        zeros(out, exp + 1 - n);
    } else { /* 24.70408163265306 */
        strbuf_appendf(out, "%.*s.%s", exp + 1, digits, digits + exp + 1);
    }
}
