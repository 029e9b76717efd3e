/*
 * test_pyformat.c — tests repl/pyformat.c against CPython 3.11: repr of a
 * float, format(x, spec), the % operator and str.format templates.
 *
 * It is: a standalone program whose last line is "N passed, N failed",
 * printing one line per failed case and exiting non-zero on any failure.
 * Every expected string is in pyformat_cases.h, printed by CPython itself
 * (tests/repl/pyformat_cases.py says how), so running it needs no Python.
 *
 * It is NOT: a test of where the shell calls the module; the evaluator's
 * own tests cover that.
 */
#include "pyformat.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    double value;
    const char *expected;
} ReprCase;

/* The rows carry lengths (sizeof - 1) because a few hold a NUL byte. */
typedef struct {
    PyfmtArg arg;
    const char *spec;
    size_t spec_len;
    bool ok;
    const char *expected;
    size_t expected_len;
} SpecCase;

typedef struct {
    const char *fmt;
    size_t fmt_len;
    bool is_tuple;
    int nargs;
    const PyfmtArg *args;
    bool ok;
    const char *expected;
    size_t expected_len;
} PercentCase;

typedef struct {
    const char *tmpl;
    size_t tmpl_len;
    bool ok;
    const char *expected;
    size_t expected_len;
} TemplateCase;

/* The arguments: an int, a float, a bool, a str with its repr, any other
 * object by its str, repr and type name. */
#define I(v) {.kind = PYFMT_INT, .i = (v)}
#define F(v) {.kind = PYFMT_FLOAT, .f = (v)}
#define B(v) {.kind = PYFMT_BOOL, .i = (v)}
#define S(s, r) {.kind = PYFMT_STR, .str = s, .str_len = sizeof(s) - 1, .repr = r, \
                 .repr_len = sizeof(r) - 1}
#define O(s, r, t) {.kind = PYFMT_OTHER, .str = s, .str_len = sizeof(s) - 1, .repr = r, \
                    .repr_len = sizeof(r) - 1, .type_name = t}
#define ARGS(...) ((const PyfmtArg[])__VA_ARGS__)

#define REPR(v, e) {v, e}
#define SPEC(a, s, ok, e) {a, s, sizeof(s) - 1, ok, e, sizeof(e) - 1}
#define PCT(f, tuple, n, args, ok, e) {f, sizeof(f) - 1, tuple, n, args, ok, e, sizeof(e) - 1}
#define TPL(t, ok, e) {t, sizeof(t) - 1, ok, e, sizeof(e) - 1}

#include "pyformat_cases.h"
#include "check.h"


/* Prints s with control bytes escaped, so that a failure line stays one line. */
static void show(const char *s, size_t n) {
    putchar('\'');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 32 || c == 127) printf("\\x%02x", c);
        else putchar(c);
    }
    putchar('\'');
}

/* Compares one outcome with its expectation; on a mismatch prints the
 * case's label and input, then what came and what should have. */
static void check(const char *label, const char *input, size_t input_len, bool ok,
                  const StrBuf *out, const char *err, bool want_ok, const char *want,
                  size_t want_len) {
    const char *got = ok ? out->data : err;
    size_t got_len = ok ? out->len : strlen(err);
    if (ok == want_ok && got_len == want_len && memcmp(got, want, want_len) == 0) {
        check_passed++;
        return;
    }
    check_failed++;
    printf("FAIL %s ", label);
    show(input, input_len);
    printf(": got %s ", ok ? "text" : "error");
    show(got, got_len);
    printf(", want %s ", want_ok ? "text" : "error");
    show(want, want_len);
    putchar('\n');
}

static void test_repr(void) {
    for (size_t i = 0; i < sizeof repr_cases / sizeof repr_cases[0]; i++) {
        const ReprCase *c = &repr_cases[i];
        StrBuf out;
        strbuf_init(&out);
        bool ok = pyfmt_float_repr(&out, c->value);
        char label[64];
        snprintf(label, sizeof label, "repr #%zu (%a)", i, c->value);
        check(label, "", 0, ok, &out, "", true, c->expected, strlen(c->expected));
        strbuf_free(&out);
    }
}

static void test_spec(void) {
    for (size_t i = 0; i < sizeof spec_cases / sizeof spec_cases[0]; i++) {
        const SpecCase *c = &spec_cases[i];
        StrBuf out;
        strbuf_init(&out);
        char err[PYFMT_ERR_MAX] = "";
        bool ok = pyfmt_spec(&out, &c->arg, c->spec, c->spec_len, err, sizeof err);
        char label[64];
        snprintf(label, sizeof label, "spec #%zu", i);
        check(label, c->spec, c->spec_len, ok, &out, err, c->ok, c->expected, c->expected_len);
        strbuf_free(&out);
    }
}

static void test_percent(void) {
    for (size_t i = 0; i < sizeof percent_cases / sizeof percent_cases[0]; i++) {
        const PercentCase *c = &percent_cases[i];
        StrBuf out;
        strbuf_init(&out);
        char err[PYFMT_ERR_MAX] = "";
        bool ok = pyfmt_percent(&out, c->fmt, c->fmt_len, c->args, c->nargs, c->is_tuple, err,
                                sizeof err);
        char label[64];
        snprintf(label, sizeof label, "percent #%zu", i);
        check(label, c->fmt, c->fmt_len, ok, &out, err, c->ok, c->expected, c->expected_len);
        strbuf_free(&out);
    }
}

static void test_template(void) {
    PyfmtArgs args = {
        .pos = template_pos, .npos = (int)(sizeof template_pos / sizeof template_pos[0]),
        .named = template_named, .nnamed = (int)(sizeof template_named / sizeof template_named[0])};
    for (size_t i = 0; i < sizeof template_cases / sizeof template_cases[0]; i++) {
        const TemplateCase *c = &template_cases[i];
        StrBuf out;
        strbuf_init(&out);
        char err[PYFMT_ERR_MAX] = "";
        bool ok = pyfmt_template(&out, c->tmpl, c->tmpl_len, pyfmt_lookup_args, &args, err,
                                 sizeof err);
        char label[64];
        snprintf(label, sizeof label, "template #%zu", i);
        check(label, c->tmpl, c->tmpl_len, ok, &out, err, c->ok, c->expected, c->expected_len);
        strbuf_free(&out);
    }
}

/* The f-string path: a conversion, then the spec; and a tiny err buffer,
 * which must be cut, never overrun. */
static void test_field(void) {
    PyfmtArg s = S("ab\xc3\xa9", "'ab\xc3\xa9'");
    StrBuf out;
    strbuf_init(&out);
    char err[PYFMT_ERR_MAX] = "";
    bool ok = pyfmt_field(&out, &s, 'a', ">10", 3, err, sizeof err);
    check("field !a:>10", "", 0, ok, &out, err, true, "  'ab\\xe9'", 10);
    strbuf_free(&out);
    strbuf_init(&out);
    ok = pyfmt_field(&out, &s, 'q', "", 0, err, sizeof err);
    check("field !q", "", 0, ok, &out, err, false, "ValueError: Unknown conversion specifier q", 42);
    strbuf_free(&out);
    char small[8];
    PyfmtArg f = F(1.5);
    ok = pyfmt_spec(&out, &f, "d", 1, small, sizeof small);
    check("small err buffer", "", 0, ok, &out, small, false, "ValueEr", 7);
    strbuf_free(&out);
}

int main(void) {
    test_repr();
    test_spec();
    test_percent();
    test_template();
    test_field();
    return check_summary();
}
