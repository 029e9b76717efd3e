/*
 * pyformat.c — CPython 3.11's formatting of numbers and strings (see
 * pyformat.h).
 *
 * Each part follows the CPython function it reproduces, named in its
 * banner, so that a difference can be traced to one place:
 *   floats       Python/pystrtod.c format_float_short: dtoa's digits laid
 *                out as repr, 'e', 'f', 'g' and the spec's no-type form;
 *   specs        Python/formatter_unicode.c: the spec parser, the number
 *                layout (calc_number_widths, fill_number) and grouping
 *                (_PyUnicode_InsertThousandsGrouping);
 *   %            Objects/unicodeobject.c PyUnicode_Format and helpers;
 *   templates    Objects/stringlib/unicode_format.h (MarkupIterator).
 * Digits come from repl/print.c's shortest round trip (repr) and from the
 * C library's printf, whose "%.*e" and "%.*f" are correctly rounded (half
 * to even on exact ties) like dtoa's modes 2 and 3.
 * It is NOT: a general Unicode library. Text is UTF-8; an invalid byte
 * counts as one character.
 */
#include "pyformat.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"

/* ---- errors and small helpers -------------------------------------------- */

static bool fail(char *err, size_t errsize, const char *fmt, ...) STRBUF_PRINTF(3, 4);

/* Writes a message into err and returns false, so "return fail(...)". */
static bool fail(char *err, size_t errsize, const char *fmt, ...) {
    if (err && errsize > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errsize, fmt, ap);
        va_end(ap);
    }
    return false;
}

static bool out_of_memory(const StrBuf *out, char *err, size_t errsize) {
    if (!out->oom) return true;
    return fail(err, errsize, "MemoryError");
}

static const char *type_name(const PyfmtArg *a) {
    if (a->type_name) return a->type_name;
    switch (a->kind) {
    case PYFMT_INT: return "int";
    case PYFMT_FLOAT: return "float";
    case PYFMT_BOOL: return "bool";
    case PYFMT_STR: return "str";
    case PYFMT_OTHER: break;
    }
    return "object";
}

static void repeat(StrBuf *out, const char *s, size_t n, int64_t times) {
    if (n == 1) { /* a fill character: a chunk at a time (a field of 10^7 spaces) */
        char chunk[256];
        memset(chunk, s[0], sizeof chunk);
        for (; times > 0 && !out->oom; times -= (int64_t)sizeof chunk)
            strbuf_appendn(out, chunk, times < (int64_t)sizeof chunk ? (size_t)times : sizeof chunk);
        return;
    }
    for (int64_t i = 0; i < times && !out->oom; i++) strbuf_appendn(out, s, n);
}

static void zeros(StrBuf *out, int64_t n) { repeat(out, "0", 1, n); }

/* ---- UTF-8 ---------------------------------------------------------------- */

/* Decodes the code point at s[*pos] (pos < n) and moves past it. An
 * invalid sequence yields its first byte as one character. */
static uint32_t utf8_next(const char *s, size_t n, size_t *pos) {
    const unsigned char *u = (const unsigned char *)s + *pos;
    size_t left = n - *pos;
    int len = u[0] < 0x80 ? 1 : (u[0] & 0xE0) == 0xC0 ? 2 : (u[0] & 0xF0) == 0xE0 ? 3
              : (u[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (len == 0 || (size_t)len > left) {
        (*pos)++;
        return u[0];
    }
    uint32_t cp = len == 1 ? u[0] : (uint32_t)(u[0] & (0x7F >> len));
    for (int i = 1; i < len; i++) {
        if ((u[i] & 0xC0) != 0x80) {
            (*pos)++;
            return u[0];
        }
        cp = cp << 6 | (u[i] & 0x3F);
    }
    *pos += (size_t)len;
    return cp;
}

static size_t utf8_count(const char *s, size_t n) {
    size_t count = 0;
    for (size_t pos = 0; pos < n; count++) utf8_next(s, n, &pos);
    return count;
}

/* The byte length of the first `chars` code points of s. */
static size_t utf8_prefix(const char *s, size_t n, size_t chars) {
    size_t pos = 0;
    for (size_t i = 0; i < chars && pos < n; i++) utf8_next(s, n, &pos);
    return pos;
}

/* Writes cp as UTF-8 into buf (4 bytes of room); returns the length.
 * Surrogates are encoded as any other code point would be. */
static size_t utf8_encode(uint32_t cp, char *buf) {
    if (cp < 0x80) {
        buf[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        buf[0] = (char)(0xC0 | cp >> 6);
        buf[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        buf[0] = (char)(0xE0 | cp >> 12);
        buf[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        buf[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    buf[0] = (char)(0xF0 | cp >> 18);
    buf[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    buf[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    buf[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* ---- floats (pystrtod.c format_float_short) ------------------------------- */

/* PyOS_double_to_string's flags. */
enum { DTSF_ADD_DOT_0 = 1, DTSF_ALT = 2, DTSF_NO_NEG_0 = 4 };

/* |v|'s digits as David Gay's dtoa returns them: no point, no trailing
 * zeros, "0" for zero, and "" for a nonzero value that mode 3 rounds to
 * nothing; decpt is where the point goes (digits "125", decpt -2: 0.00125). */
typedef struct {
    char *digits; /* malloc'd */
    int64_t len, decpt;
} Digits;

static void strip_trailing_zeros(Digits *d) {
    while (d->len > 0 && d->digits[d->len - 1] == '0') d->len--;
}

/* Copies the decimal digits of text (skipping '.', stopping at 'e'). */
static void keep_digits(Digits *d, const char *text) {
    d->len = 0;
    for (const char *c = text; *c && *c != 'e'; c++)
        if (*c >= '0' && *c <= '9') d->digits[d->len++] = *c;
}

/* printf's correctly rounded digits for dtoa's mode 2 ("%.*e") or 3 ("%.*f"). */
static int print_digits(char *buf, size_t size, int mode, int ndigits, double a) {
    if (mode == 2) return snprintf(buf, size, "%.*e", ndigits - 1, a);
    return snprintf(buf, size, "%.*f", ndigits, a);
}

/* dtoa mode 0 (shortest), 2 (ndigits significant) or 3 (ndigits after the
 * point) for finite a >= 0. False when memory runs out. */
static bool dtoa_digits(double a, int mode, int ndigits, Digits *d) {
    d->digits = NULL;
    if (a == 0.0 || mode == 0) {
        d->digits = malloc(24);
        if (!d->digits) return false;
        int exp;
        format_shortest_digits(a, d->digits, &exp);
        d->len = (int64_t)strlen(d->digits);
        d->decpt = exp + 1;
        if (a == 0.0) d->decpt = 1;
        return true;
    }
    int n = print_digits(NULL, 0, mode, ndigits, a);
    char *text = malloc((size_t)n + 1);
    d->digits = malloc((size_t)n + 1);
    if (!text || !d->digits) {
        free(text);
        free(d->digits);
        d->digits = NULL;
        return false;
    }
    print_digits(text, (size_t)n + 1, mode, ndigits, a);
    keep_digits(d, text);
    if (mode == 2) {
        d->decpt = atoi(strchr(text, 'e') + 1) + 1;
    } else {
        const char *point = strchr(text, '.');
        d->decpt = point ? point - text : n;
        int64_t lead = 0; /* "0.0012": the point moves left past the zeros */
        while (lead < d->len && d->digits[lead] == '0') lead++;
        memmove(d->digits, d->digits + lead, (size_t)(d->len - lead));
        d->len -= lead;
        d->decpt -= lead;
        if (d->len == 0) d->decpt = -ndigits; /* dtoa's "no digits" */
    }
    free(text);
    strip_trailing_zeros(d);
    return true;
}

/* The most digits ag writes for a float (a departure: Python writes any
 * number, glibc's printf then needing four bytes a digit): past it the
 * format is a MemoryError, not a gigabyte's allocation. A field's width
 * has the same bound (f"{x:97777777777f}" is Python's MemoryError at once,
 * but a width of 10^9 a gigabyte it writes). */
enum { FLOAT_DIGITS_MAX = 10000000, FIELD_WIDTH_MAX = 10000000 };
#define DIGITS_WHY ": ag writes a float with at most 10000000 digits"
#define WIDTH_WHY ": ag pads a field to at most 10000000 characters"

/* PyOS_double_to_string(v, type, precision, flags): type is one of e E f F
 * g G r. Appends e.g. "-1.5e+07"; false when memory runs out, or when
 * precision passes FLOAT_DIGITS_MAX. */
static bool double_to_string(StrBuf *out, double v, char type, int precision, int flags) {
    if (precision > FLOAT_DIGITS_MAX) return false;
    bool upper = type >= 'A' && type <= 'Z';
    char lower = upper ? (char)(type - 'A' + 'a') : type;
    if (isnan(v) || isinf(v)) { /* a nan's sign is never shown */
        if (isinf(v) && v < 0) strbuf_append(out, "-");
        if (isnan(v)) strbuf_append(out, upper ? "NAN" : "nan");
        else strbuf_append(out, upper ? "INF" : "inf");
        return !out->oom;
    }
    int mode = 0, ndigits = precision;
    if (lower == 'e') {
        mode = 2;
        ndigits = ++precision;
    } else if (lower == 'f') {
        mode = 3;
    } else if (lower == 'g') {
        mode = 2;
        if (precision == 0) precision = ndigits = 1;
    }
    Digits d;
    if (!dtoa_digits(fabs(v), mode, ndigits, &d)) return false;
    bool neg = signbit(v) != 0;
    if ((flags & DTSF_NO_NEG_0) && neg && (d.len == 0 || (d.len == 1 && d.digits[0] == '0')))
        neg = false;

    bool alt = flags & DTSF_ALT, add_dot_0 = flags & DTSF_ADD_DOT_0, use_exp = false;
    int64_t decpt = d.decpt, vend = d.len, exp = 0;
    switch (lower) {
    case 'e':
        use_exp = true;
        vend = precision;
        break;
    case 'f':
        vend = decpt + precision;
        break;
    case 'g':
        if (decpt <= -4 || decpt > (add_dot_0 ? precision - 1 : precision)) use_exp = true;
        if (alt) vend = precision;
        break;
    default: /* 'r': exponent from 1e16 on, as repr */
        if (decpt <= -4 || decpt > 16) use_exp = true;
        break;
    }
    if (use_exp) {
        exp = decpt - 1;
        decpt = 1;
    }
    int64_t vstart = decpt <= 0 ? decpt - 1 : 0;
    int64_t least = !use_exp && add_dot_0 ? decpt + 1 : decpt;
    if (vend < least) vend = least;

    size_t start = out->len;
    if (neg) strbuf_append(out, "-");
    if (decpt <= 0) {
        zeros(out, decpt - vstart);
        strbuf_append(out, ".");
        zeros(out, -decpt);
    } else {
        zeros(out, -vstart);
    }
    if (0 < decpt && decpt <= d.len) {
        strbuf_appendn(out, d.digits, (size_t)decpt);
        strbuf_append(out, ".");
        strbuf_appendn(out, d.digits + decpt, (size_t)(d.len - decpt));
    } else {
        strbuf_appendn(out, d.digits, (size_t)d.len);
    }
    if (d.len < decpt) {
        zeros(out, decpt - d.len);
        strbuf_append(out, ".");
        zeros(out, vend - decpt);
    } else {
        zeros(out, vend - d.len);
    }
    free(d.digits);
    /* a trailing point goes, unless the alternate form keeps it */
    if (out->len > start && out->data[out->len - 1] == '.' && !alt) out->data[--out->len] = '\0';
    if (use_exp) strbuf_appendf(out, "%c%+.02d", upper ? 'E' : 'e', (int)exp);
    return !out->oom;
}

bool pyfmt_float_repr(StrBuf *out, double v) {
    return double_to_string(out, v, 'r', 0, DTSF_ADD_DOT_0);
}

/* ---- str, repr and ascii -------------------------------------------------- */

/* Code points Python's str.isprintable() rejects above ASCII, as far as a
 * short table goes: C1 controls, no-break and other spaces (Zs), line and
 * paragraph separators, common format characters (Cf), private use,
 * surrogates and the noncharacters U+FFFE/U+FFFF. Other unassigned code
 * points (Cn) print as they are here, where Python escapes them. */
static bool non_printable(uint32_t c) {
    static const uint32_t ranges[][2] = {
        {0x80, 0xA0},       {0xAD, 0xAD},       {0x600, 0x605},     {0x61C, 0x61C},
        {0x6DD, 0x6DD},     {0x70F, 0x70F},     {0x890, 0x891},     {0x8E2, 0x8E2},
        {0x1680, 0x1680},   {0x180E, 0x180E},   {0x2000, 0x200F},   {0x2028, 0x202F},
        {0x205F, 0x2064},   {0x2066, 0x206F},   {0x3000, 0x3000},   {0xD800, 0xF8FF},
        {0xFEFF, 0xFEFF},   {0xFFF9, 0xFFFB},   {0xFFFE, 0xFFFF},   {0x110BD, 0x110BD},
        {0x110CD, 0x110CD}, {0x1D173, 0x1D17A}, {0xE0001, 0xE0001}, {0xE0020, 0xE007F},
        {0xF0000, 0x10FFFF},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        if (c >= ranges[i][0] && c <= ranges[i][1]) return true;
    return false;
}

/* Python's escape of a code point: \xhh, \uhhhh or \Uhhhhhhhh. */
static void escape_code_point(StrBuf *out, uint32_t c) {
    if (c <= 0xFF) strbuf_appendf(out, "\\x%02x", (unsigned)c);
    else if (c <= 0xFFFF) strbuf_appendf(out, "\\u%04x", (unsigned)c);
    else strbuf_appendf(out, "\\U%08x", (unsigned)c);
}

void pyfmt_str_repr(StrBuf *out, const char *s, size_t n) {
    /* unicode_repr: single quotes unless the text has one and no double */
    bool single = memchr(s, '\'', n) != NULL, dbl = memchr(s, '"', n) != NULL;
    char quote = single && !dbl ? '"' : '\'';
    strbuf_appendn(out, &quote, 1);
    for (size_t pos = 0; pos < n;) {
        size_t at = pos;
        uint32_t c = utf8_next(s, n, &pos);
        if (c == (uint32_t)quote || c == '\\') strbuf_appendf(out, "\\%c", (char)c);
        else if (c == '\t') strbuf_append(out, "\\t");
        else if (c == '\n') strbuf_append(out, "\\n");
        else if (c == '\r') strbuf_append(out, "\\r");
        else if (c < ' ' || c == 0x7F || non_printable(c)) escape_code_point(out, c);
        else strbuf_appendn(out, s + at, pos - at);
    }
    strbuf_appendn(out, &quote, 1);
}

/* ascii(x): repr(x) with every non-ASCII code point escaped. */
static void ascii_of(StrBuf *out, const char *repr, size_t n) {
    for (size_t pos = 0; pos < n;) {
        size_t at = pos;
        uint32_t c = utf8_next(repr, n, &pos);
        if (c < 0x80) strbuf_appendn(out, repr + at, pos - at);
        else escape_code_point(out, c);
    }
}

static void int_text(StrBuf *out, int64_t i) { strbuf_appendf(out, "%lld", (long long)i); }

/* str(a) */
static void str_of(StrBuf *out, const PyfmtArg *a) {
    switch (a->kind) {
    case PYFMT_INT: int_text(out, a->i); break;
    case PYFMT_FLOAT: pyfmt_float_repr(out, a->f); break;
    case PYFMT_BOOL: strbuf_append(out, a->i ? "True" : "False"); break;
    case PYFMT_STR:
    case PYFMT_OTHER: strbuf_appendn(out, a->str, a->str_len); break;
    }
}

/* repr(a) */
static void repr_of(StrBuf *out, const PyfmtArg *a) {
    if (a->kind == PYFMT_STR && !a->repr) pyfmt_str_repr(out, a->str, a->str_len);
    else if (a->repr) /* a 0-d tensor formats as its number, but its repr is its own */
        strbuf_appendn(out, a->repr, a->repr_len);
    else str_of(out, a);
}

bool pyfmt_conversion(StrBuf *out, const PyfmtArg *a, uint32_t conv, char *err, size_t errsize) {
    if (conv == 's') {
        str_of(out, a);
    } else if (conv == 'r') {
        repr_of(out, a);
    } else if (conv == 'a') {
        StrBuf r;
        strbuf_init(&r);
        repr_of(&r, a);
        ascii_of(out, r.data, r.len);
        strbuf_free(&r);
    } else if (conv > 32 && conv < 127) {
        return fail(err, errsize, "ValueError: Unknown conversion specifier %c", (char)conv);
    } else {
        return fail(err, errsize, "ValueError: Unknown conversion specifier \\x%x", (unsigned)conv);
    }
    return out_of_memory(out, err, errsize);
}

/* ---- the spec (formatter_unicode.c parse_internal_render_format_spec) ---- */

typedef struct {
    char fill[4]; /* one code point, UTF-8 */
    size_t fill_len;
    char align;    /* < > ^ = */
    char sign;     /* 0, '+', '-' or ' ' */
    bool no_neg_0; /* 'z' */
    bool alternate;
    int64_t width;     /* -1: none */
    char thousands;    /* 0, ',' or '_' */
    int64_t precision; /* -1: none */
    uint32_t type;     /* a code point; the kind's default when absent */
} Spec;

static bool is_align(uint32_t c) { return c == '<' || c == '>' || c == '=' || c == '^'; }

/* get_integer: ASCII digits at *pos. Returns the digits consumed, or -1
 * (with the message) when the number passes Py_ssize_t. */
static int get_integer(const char *s, size_t n, size_t *pos, int64_t *value, char *err,
                       size_t errsize) {
    int consumed = 0;
    *value = 0;
    for (; *pos < n && s[*pos] >= '0' && s[*pos] <= '9'; (*pos)++, consumed++) {
        int digit = s[*pos] - '0';
        if (*value > (INT64_MAX - digit) / 10) {
            fail(err, errsize, "ValueError: Too many decimal digits in format string");
            return -1;
        }
        *value = *value * 10 + digit;
    }
    return consumed;
}

/* The type code for messages: 'd', or '\x1' where it cannot be printed. */
static void type_code(char *buf, size_t size, uint32_t type) {
    if (type > 32 && type < 128) snprintf(buf, size, "%c", (char)type);
    else snprintf(buf, size, "\\x%x", (unsigned)type);
}

/* The separator may only go with some types (PEP 378 and PEP 515). */
static bool check_thousands(const Spec *sp, char *err, size_t errsize) {
    if (!sp->thousands) return true;
    switch (sp->type) {
    case 'd': case 'e': case 'f': case 'g': case 'E': case 'G': case '%': case 'F': case 0:
        return true;
    case 'b': case 'o': case 'x': case 'X':
        if (sp->thousands == '_') return true;
        break;
    default:
        break;
    }
    char code[16];
    type_code(code, sizeof code, sp->type);
    return fail(err, errsize, "ValueError: Cannot specify '%c' with '%s'.", sp->thousands, code);
}

static void set_fill(Spec *sp, const char *s, size_t n, size_t at) {
    size_t end = at;
    utf8_next(s, n, &end);
    sp->fill_len = end - at;
    memcpy(sp->fill, s + at, sp->fill_len);
}

static bool parse_spec(const PyfmtArg *a, const char *s, size_t n, uint32_t default_type,
                       char default_align, Spec *sp, char *err, size_t errsize) {
    *sp = (Spec){.fill = " ", .fill_len = 1, .align = default_align, .width = -1,
                 .precision = -1, .type = default_type};
    size_t pos = 0;
    bool fill_given = false, align_given = false;
    if (n > 0) { /* [[fill]align]: the fill is any one code point */
        size_t second = 0;
        utf8_next(s, n, &second);
        size_t third = second;
        if (second < n && is_align(utf8_next(s, n, &third))) {
            set_fill(sp, s, n, 0);
            sp->align = s[second];
            fill_given = align_given = true;
            pos = third;
        } else if (is_align((unsigned char)s[0])) {
            sp->align = s[0];
            align_given = true;
            pos = 1;
        }
    }
    if (pos < n && (s[pos] == '+' || s[pos] == '-' || s[pos] == ' ')) sp->sign = s[pos++];
    if (pos < n && s[pos] == 'z') {
        sp->no_neg_0 = true;
        pos++;
    }
    if (pos < n && s[pos] == '#') {
        sp->alternate = true;
        pos++;
    }
    if (!fill_given && pos < n && s[pos] == '0') { /* "0": zero padding after the sign */
        sp->fill[0] = '0';
        if (!align_given && default_align == '>') sp->align = '=';
        pos++;
    }
    int consumed = get_integer(s, n, &pos, &sp->width, err, errsize);
    if (consumed < 0) return false;
    if (consumed == 0) sp->width = -1;
    if (sp->width > FIELD_WIDTH_MAX) return fail(err, errsize, "MemoryError" WIDTH_WHY);
    if (pos < n && s[pos] == ',') {
        sp->thousands = ',';
        pos++;
    }
    if (pos < n && s[pos] == '_') {
        if (sp->thousands)
            return fail(err, errsize, "ValueError: Cannot specify both ',' and '_'.");
        sp->thousands = '_';
        pos++;
    }
    if (pos < n && s[pos] == ',' && sp->thousands == '_')
        return fail(err, errsize, "ValueError: Cannot specify both ',' and '_'.");
    if (pos < n && s[pos] == '.') {
        pos++;
        consumed = get_integer(s, n, &pos, &sp->precision, err, errsize);
        if (consumed < 0) return false;
        if (consumed == 0)
            return fail(err, errsize, "ValueError: Format specifier missing precision");
    }
    if (utf8_count(s + pos, n - pos) > 1)
        return fail(err, errsize,
                    "ValueError: Invalid format specifier '%.*s' for object of type '%.200s'",
                    (int)n, s, type_name(a));
    if (pos < n) sp->type = utf8_next(s, n, &pos);
    return check_thousands(sp, err, errsize);
}

static bool zero_fill(const Spec *sp) { return sp->fill_len == 1 && sp->fill[0] == '0'; }

static bool unknown_type(const Spec *sp, const PyfmtArg *a, char *err, size_t errsize) {
    char code[16];
    type_code(code, sizeof code, sp->type);
    return fail(err, errsize, "ValueError: Unknown format code '%s' for object of type '%.200s'",
                code, type_name(a));
}

/* ---- number layout (calc_number_widths, fill_number) ---------------------- */

/* A number cut as formatter_unicode.c cuts it: sign, prefix ("0x"), the
 * digits before the point (the ones that get grouped), and the rest (the
 * point, decimals, exponent, '%'; or the character of 'c'). */
typedef struct {
    char sign; /* '-' or 0 */
    const char *prefix;
    size_t n_prefix;
    const char *digits;
    size_t n_digits;
    const char *rest;
    size_t n_rest, rest_chars;
    int group; /* digits per group, 0 for none */
    char sep;
} Number;

/* _PyUnicode_InsertThousandsGrouping: the digits in groups from the right
 * (group 0: no groups), with leading zeros until min_width characters;
 * appended to out. Built backwards, as CPython builds it. */
static void group_digits(StrBuf *out, const Number *num, int64_t min_width) {
    if (min_width < 0) min_width = 0;
    int64_t remaining = (int64_t)num->n_digits;
    int64_t room = 2 * (remaining > min_width ? remaining : min_width) + 2;
    char *buf = malloc((size_t)room);
    if (!buf) {
        strbuf_appendn(out, num->digits, num->n_digits); /* as good as it gets */
        out->oom = true;
        return;
    }
    int64_t at = room, from = remaining;
    bool use_sep = false;
    for (;;) {
        int64_t len;
        if (num->group > 0) {
            int64_t want = remaining > min_width ? remaining : min_width;
            len = num->group < (want > 1 ? want : 1) ? num->group : (want > 1 ? want : 1);
        } else {
            len = remaining > min_width ? remaining : min_width;
            if (len < 1) len = 1;
        }
        int64_t n_zeros = len > remaining ? len - remaining : 0;
        int64_t n_chars = remaining < len ? (remaining > 0 ? remaining : 0) : len;
        if (use_sep) buf[--at] = num->sep;
        at -= n_chars;
        from -= n_chars;
        memcpy(buf + at, num->digits + from, (size_t)n_chars);
        for (int64_t z = 0; z < n_zeros; z++) buf[--at] = '0';
        if (num->group == 0) break; /* one chunk when not grouping */
        use_sep = true;
        remaining -= n_chars;
        min_width -= len;
        if (remaining <= 0 && min_width <= 0) break;
        min_width -= 1;
    }
    strbuf_appendn(out, buf + at, (size_t)(room - at));
    free(buf);
}

/* Lays out num under the spec: padding (left, after the sign for '=', or
 * right), sign per the spec's sign option, prefix, grouped digits, rest. */
static void layout_number(StrBuf *out, const Spec *sp, const Number *num) {
    char sign = 0;
    if (sp->sign == '+') sign = num->sign == '-' ? '-' : '+';
    else if (sp->sign == ' ') sign = num->sign == '-' ? '-' : ' ';
    else if (num->sign == '-') sign = '-';
    int64_t non_digit = (sign ? 1 : 0) + (int64_t)num->n_prefix + (int64_t)num->rest_chars;
    int64_t min_width = zero_fill(sp) && sp->align == '=' ? sp->width - non_digit : 0;
    StrBuf grouped;
    strbuf_init(&grouped);
    /* No digits happens for 'c', inf and nan: nothing to group or pad. */
    if (num->n_digits > 0) group_digits(&grouped, num, min_width);
    int64_t pad = sp->width - (non_digit + (int64_t)grouped.len);
    int64_t left = 0, inner = 0, right = 0;
    if (pad > 0) {
        switch (sp->align) {
        case '<': right = pad; break;
        case '^': left = pad / 2; right = pad - left; break;
        case '=': inner = pad; break;
        default: left = pad; break;
        }
    }
    repeat(out, sp->fill, sp->fill_len, left);
    if (sign) strbuf_appendn(out, &sign, 1);
    strbuf_appendn(out, num->prefix, num->n_prefix);
    repeat(out, sp->fill, sp->fill_len, inner);
    strbuf_appendn(out, grouped.data, grouped.len);
    strbuf_appendn(out, num->rest, num->n_rest);
    repeat(out, sp->fill, sp->fill_len, right);
    if (grouped.oom) out->oom = true;
    strbuf_free(&grouped);
}

/* ---- format() of each kind ------------------------------------------------ */

/* Digits per group: 3, but '_' in binary, octal and hex groups by 4. */
static int group_size(const Spec *sp, bool bases) {
    if (!sp->thousands) return 0;
    return bases && sp->thousands == '_' ? 4 : 3;
}

/* format_float_internal */
static bool format_float(StrBuf *out, double val, const Spec *sp, char *err, size_t errsize) {
    if (sp->precision > INT_MAX) return fail(err, errsize, "ValueError: precision too big");
    int flags = (sp->alternate ? DTSF_ALT : 0) | (sp->no_neg_0 ? DTSF_NO_NEG_0 : 0);
    char type = (char)sp->type;
    int default_precision = 6;
    bool add_pct = false;
    if (type == 0) { /* like repr, or 'g' keeping a ".0" when given a precision */
        flags |= DTSF_ADD_DOT_0;
        type = 'r';
        default_precision = 0;
    }
    if (type == 'n') type = 'g';
    if (type == '%') {
        type = 'f';
        val *= 100;
        add_pct = true;
    }
    int precision = sp->precision < 0 ? default_precision : (int)sp->precision;
    if (sp->precision >= 0 && type == 'r') type = 'g';
    StrBuf text;
    strbuf_init(&text);
    if (!double_to_string(&text, val, type, precision, flags)) {
        strbuf_free(&text);
        return fail(err, errsize, "MemoryError%s", precision > FLOAT_DIGITS_MAX ? DIGITS_WHY : "");
    }
    if (add_pct) strbuf_append(&text, "%");
    Number num = {.group = group_size(sp, false), .sep = sp->thousands};
    size_t at = 0;
    if (text.data[0] == '-') {
        num.sign = '-';
        at = 1;
    }
    num.digits = text.data + at;
    while (at < text.len && text.data[at] >= '0' && text.data[at] <= '9') at++;
    num.n_digits = (size_t)(text.data + at - num.digits);
    num.rest = text.data + at;
    num.n_rest = num.rest_chars = text.len - at;
    layout_number(out, sp, &num);
    strbuf_free(&text);
    return out_of_memory(out, err, errsize);
}

static unsigned int_base(uint32_t type) {
    switch (type) {
    case 'b': return 2;
    case 'o': return 8;
    case 'x': case 'X': return 16;
    default: return 10;
    }
}

/* format_long_internal */
static bool format_int(StrBuf *out, int64_t v, const Spec *sp, char *err, size_t errsize) {
    if (sp->precision != -1)
        return fail(err, errsize, "ValueError: Precision not allowed in integer format specifier");
    if (sp->no_neg_0)
        return fail(err, errsize,
                    "ValueError: Negative zero coercion (z) not allowed in integer format specifier");
    unsigned base = int_base(sp->type);
    Number num = {.group = group_size(sp, base != 10), .sep = sp->thousands};
    char chr[4], digits[72];
    if (sp->type == 'c') {
        if (sp->sign)
            return fail(err, errsize,
                        "ValueError: Sign not allowed with integer format specifier 'c'");
        if (sp->alternate)
            return fail(err, errsize,
                        "ValueError: Alternate form (#) not allowed with integer format specifier 'c'");
        if (v < 0 || v > 0x10FFFF)
            return fail(err, errsize, "OverflowError: %%c arg not in range(0x110000)");
        num.rest = chr;
        num.n_rest = utf8_encode((uint32_t)v, chr);
        num.rest_chars = 1;
        layout_number(out, sp, &num);
        return out_of_memory(out, err, errsize);
    }
    const char *set = sp->type == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
    uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    size_t at = sizeof digits;
    do {
        digits[--at] = set[mag % base];
        mag /= base;
    } while (mag > 0);
    if (v < 0) num.sign = '-';
    if (sp->alternate && base != 10) {
        num.prefix = base == 2 ? "0b" : base == 8 ? "0o" : sp->type == 'X' ? "0X" : "0x";
        num.n_prefix = 2;
    }
    num.digits = digits + at;
    num.n_digits = sizeof digits - at;
    num.rest = "";
    layout_number(out, sp, &num);
    return out_of_memory(out, err, errsize);
}

/* format_string_internal */
static bool format_str(StrBuf *out, const char *s, size_t n, const Spec *sp, char *err,
                       size_t errsize) {
    if (sp->sign == ' ')
        return fail(err, errsize, "ValueError: Space not allowed in string format specifier");
    if (sp->sign)
        return fail(err, errsize, "ValueError: Sign not allowed in string format specifier");
    if (sp->no_neg_0)
        return fail(err, errsize,
                    "ValueError: Negative zero coercion (z) not allowed in string format specifier");
    if (sp->alternate)
        return fail(err, errsize,
                    "ValueError: Alternate form (#) not allowed in string format specifier");
    if (sp->align == '=')
        return fail(err, errsize,
                    "ValueError: '=' alignment not allowed in string format specifier");
    int64_t chars = (int64_t)utf8_count(s, n);
    if (sp->precision >= 0 && chars >= sp->precision) {
        n = utf8_prefix(s, n, (size_t)sp->precision);
        chars = sp->precision;
    }
    int64_t pad = sp->width > chars ? sp->width - chars : 0;
    int64_t left = sp->align == '>' ? pad : sp->align == '^' ? pad / 2 : 0;
    repeat(out, sp->fill, sp->fill_len, left);
    strbuf_appendn(out, s, n);
    repeat(out, sp->fill, sp->fill_len, pad - left);
    return out_of_memory(out, err, errsize);
}

static bool is_float_type(uint32_t t) {
    return t == 'e' || t == 'E' || t == 'f' || t == 'F' || t == 'g' || t == 'G' || t == '%';
}

/* int.__format__ (bool's too: bool inherits it). */
static bool spec_int(StrBuf *out, const PyfmtArg *a, const char *spec, size_t len, char *err,
                     size_t errsize) {
    Spec sp;
    if (!parse_spec(a, spec, len, 'd', '>', &sp, err, errsize)) return false;
    switch (sp.type) {
    case 'b': case 'c': case 'd': case 'o': case 'x': case 'X': case 'n':
        return format_int(out, a->i, &sp, err, errsize);
    default:
        if (is_float_type(sp.type)) return format_float(out, (double)a->i, &sp, err, errsize);
        return unknown_type(&sp, a, err, errsize);
    }
}

bool pyfmt_spec(StrBuf *out, const PyfmtArg *a, const char *spec, size_t len, char *err,
                size_t errsize) {
    Spec sp;
    if (len == 0) { /* format(x, "") is str(x) */
        str_of(out, a);
        return out_of_memory(out, err, errsize);
    }
    switch (a->kind) {
    case PYFMT_INT:
    case PYFMT_BOOL:
        return spec_int(out, a, spec, len, err, errsize);
    case PYFMT_FLOAT:
        if (!parse_spec(a, spec, len, 0, '>', &sp, err, errsize)) return false;
        if (sp.type == 0 || sp.type == 'n' || is_float_type(sp.type))
            return format_float(out, a->f, &sp, err, errsize);
        return unknown_type(&sp, a, err, errsize);
    case PYFMT_STR:
        if (!parse_spec(a, spec, len, 's', '<', &sp, err, errsize)) return false;
        if (sp.type != 's') return unknown_type(&sp, a, err, errsize);
        return format_str(out, a->str, a->str_len, &sp, err, errsize);
    case PYFMT_OTHER:
        break;
    }
    return fail(err, errsize, "TypeError: unsupported format string passed to %.200s.__format__",
                type_name(a));
}

bool pyfmt_field(StrBuf *out, const PyfmtArg *a, uint32_t conv, const char *spec, size_t len,
                 char *err, size_t errsize) {
    if (conv == 0) return pyfmt_spec(out, a, spec, len, err, errsize);
    StrBuf text;
    strbuf_init(&text);
    bool ok = pyfmt_conversion(&text, a, conv, err, errsize);
    if (ok) {
        PyfmtArg s = {.kind = PYFMT_STR, .str = text.data, .str_len = text.len};
        ok = pyfmt_spec(out, &s, spec, len, err, errsize);
    }
    strbuf_free(&text);
    return ok;
}

/* ---- the % operator (unicodeobject.c PyUnicode_Format) -------------------- */

/* The flags of one conversion (F_LJUST and friends). */
enum { F_LJUST = 1, F_SIGN = 2, F_BLANK = 4, F_ALT = 8, F_ZERO = 16 };

typedef struct {
    const char *fmt;
    size_t len, pos;          /* bytes */
    const PyfmtArg *args;
    int nargs, argidx;        /* argidx: -2 before a non-tuple's one use, -1 after */
    bool is_tuple;
    char *err;
    size_t errsize;
} Percent;

/* One conversion's parsed form (unicode_format_arg_t). */
typedef struct {
    uint32_t ch;
    size_t ch_at; /* byte offset of ch, for the error's index */
    int flags;
    int64_t width, prec;
    bool sign; /* a number: the sign and '0' padding apply */
} PercentArg;

static const PyfmtArg *next_arg(Percent *p) {
    if (p->is_tuple && p->argidx < p->nargs) return &p->args[p->argidx++];
    if (!p->is_tuple && p->argidx == -2) {
        p->argidx = -1;
        return &p->args[0];
    }
    fail(p->err, p->errsize, "TypeError: not enough arguments for format string");
    return NULL;
}

/* Reads the next code point into a->ch; false at the end (CPython's
 * fmtcnt < 0, after which "incomplete format" is certain). */
static bool read_ch(Percent *p, PercentArg *a, bool *ended) {
    if (p->pos >= p->len) {
        *ended = true;
        return false;
    }
    a->ch_at = p->pos;
    a->ch = utf8_next(p->fmt, p->len, &p->pos);
    return true;
}

static bool is_digit(uint32_t c) { return c >= '0' && c <= '9'; }

/* A '*' width or precision: the next argument, which must be an int. */
static bool star_arg(Percent *p, int64_t *value) {
    const PyfmtArg *v = next_arg(p);
    if (!v) return false;
    if (v->kind != PYFMT_INT && v->kind != PYFMT_BOOL)
        return fail(p->err, p->errsize, "TypeError: * wants int");
    *value = v->i;
    return true;
}

/* unicode_format_arg_parse: flags, width, precision, length modifier. */
static bool parse_percent(Percent *p, PercentArg *a) {
    if (p->pos < p->len && p->fmt[p->pos] == '(')
        return fail(p->err, p->errsize, "TypeError: format requires a mapping");
    bool ended = false;
    while (read_ch(p, a, &ended)) {
        switch (a->ch) {
        case '-': a->flags |= F_LJUST; continue;
        case '+': a->flags |= F_SIGN; continue;
        case ' ': a->flags |= F_BLANK; continue;
        case '#': a->flags |= F_ALT; continue;
        case '0': a->flags |= F_ZERO; continue;
        default: break;
        }
        break;
    }
    if (a->ch == '*') {
        if (!star_arg(p, &a->width)) return false;
        if (a->width == INT64_MIN) /* no positive twin */
            return fail(p->err, p->errsize, "ValueError: width too big");
        if (a->width < 0) {
            a->flags |= F_LJUST;
            a->width = -a->width;
        }
        read_ch(p, a, &ended);
    } else if (is_digit(a->ch)) {
        a->width = a->ch - '0';
        while (read_ch(p, a, &ended) && is_digit(a->ch)) {
            int digit = (int)(a->ch - '0');
            if (a->width > (INT64_MAX - digit) / 10)
                return fail(p->err, p->errsize, "ValueError: width too big");
            a->width = a->width * 10 + digit;
        }
    }
    if (a->width > FIELD_WIDTH_MAX) return fail(p->err, p->errsize, "MemoryError" WIDTH_WHY);
    if (a->ch == '.') {
        a->prec = 0;
        read_ch(p, a, &ended);
        if (a->ch == '*') {
            if (!star_arg(p, &a->prec)) return false;
            if (a->prec > INT_MAX || a->prec < INT_MIN)
                return fail(p->err, p->errsize,
                            "OverflowError: Python int too large to convert to C int");
            if (a->prec < 0) a->prec = 0;
            read_ch(p, a, &ended);
        } else if (is_digit(a->ch)) {
            a->prec = a->ch - '0';
            while (read_ch(p, a, &ended) && is_digit(a->ch)) {
                int digit = (int)(a->ch - '0');
                if (a->prec > (INT_MAX - digit) / 10)
                    return fail(p->err, p->errsize, "ValueError: precision too big");
                a->prec = a->prec * 10 + digit;
            }
        }
    }
    if (!ended && (a->ch == 'h' || a->ch == 'l' || a->ch == 'L')) read_ch(p, a, &ended);
    if (ended) return fail(p->err, p->errsize, "ValueError: incomplete format");
    return true;
}

/* _PyUnicode_FormatLong: sign, "0x"/"0o" under '#', digits zero-padded to
 * the precision; 'X' in capitals, its prefix too. */
static void format_long_text(StrBuf *out, const char *magnitude, bool neg, const PercentArg *a) {
    if (neg) strbuf_append(out, "-");
    if ((a->flags & F_ALT) && a->ch != 'd' && a->ch != 'i' && a->ch != 'u')
        strbuf_append(out, a->ch == 'o' ? "0o" : a->ch == 'X' ? "0X" : "0x");
    int64_t n = (int64_t)strlen(magnitude);
    if (a->prec > n) zeros(out, a->prec - n);
    strbuf_append(out, magnitude);
}

/* mainformatlong: an int for d i u o x X, with CPython's type errors. */
static bool percent_int(StrBuf *text, const PyfmtArg *v, PercentArg *a, char *err, size_t errsize) {
    char code = (char)a->ch;
    bool bases = code == 'o' || code == 'x' || code == 'X';
    if (v->kind == PYFMT_STR || v->kind == PYFMT_OTHER || (bases && v->kind == PYFMT_FLOAT)) {
        return fail(err, errsize, "TypeError: %%%c format: %s, not %.200s", code,
                    bases ? "an integer is required" : "a real number is required", type_name(v));
    }
    char mag[400];
    bool neg;
    if (v->kind == PYFMT_FLOAT) { /* int(x): every digit of a large float */
        if (isnan(v->f))
            return fail(err, errsize, "ValueError: cannot convert float NaN to integer");
        if (isinf(v->f))
            return fail(err, errsize, "OverflowError: cannot convert float infinity to integer");
        double t = trunc(v->f);
        neg = t < 0;
        snprintf(mag, sizeof mag, "%.0f", fabs(t));
    } else {
        neg = v->i < 0;
        uint64_t m = neg ? 0 - (uint64_t)v->i : (uint64_t)v->i;
        unsigned long long u = m;
        if (code == 'o') snprintf(mag, sizeof mag, "%llo", u);
        else if (code == 'x') snprintf(mag, sizeof mag, "%llx", u);
        else if (code == 'X') snprintf(mag, sizeof mag, "%llX", u);
        else snprintf(mag, sizeof mag, "%llu", u);
    }
    format_long_text(text, mag, neg, a);
    a->sign = true;
    return true;
}

/* formatchar: an int in range or a one-character str. */
static bool percent_char(StrBuf *text, const PyfmtArg *v, char *err, size_t errsize) {
    char buf[4];
    if (v->kind == PYFMT_STR && v->str_len > 0 && utf8_count(v->str, v->str_len) == 1) {
        strbuf_appendn(text, v->str, v->str_len);
        return true;
    }
    if (v->kind != PYFMT_INT && v->kind != PYFMT_BOOL)
        return fail(err, errsize, "TypeError: %%c requires int or char");
    if (v->i < 0 || v->i > 0x10FFFF)
        return fail(err, errsize, "OverflowError: %%c arg not in range(0x110000)");
    strbuf_appendn(text, buf, utf8_encode((uint32_t)v->i, buf));
    return true;
}

/* formatfloat */
static bool percent_float(StrBuf *text, const PyfmtArg *v, PercentArg *a, char *err,
                          size_t errsize) {
    double x;
    if (v->kind == PYFMT_FLOAT) x = v->f;
    else if (v->kind == PYFMT_INT || v->kind == PYFMT_BOOL) x = (double)v->i;
    else return fail(err, errsize, "TypeError: must be real number, not %.200s", type_name(v));
    int prec = a->prec < 0 ? 6 : (int)a->prec;
    if (!double_to_string(text, x, (char)a->ch, prec, (a->flags & F_ALT) ? DTSF_ALT : 0))
        return fail(err, errsize, "MemoryError%s", prec > FLOAT_DIGITS_MAX ? DIGITS_WHY : "");
    a->sign = true;
    return true;
}

/* unicode_format_arg_format: the conversion's text, before padding. */
static bool percent_text(Percent *p, StrBuf *text, PercentArg *a) {
    const PyfmtArg *v = next_arg(p);
    if (!v) return false;
    switch (a->ch) {
    case 's': str_of(text, v); return true;
    case 'r': repr_of(text, v); return true;
    case 'a': return pyfmt_conversion(text, v, 'a', p->err, p->errsize);
    case 'i': case 'd': case 'u': case 'o': case 'x': case 'X':
        return percent_int(text, v, a, p->err, p->errsize);
    case 'e': case 'E': case 'f': case 'F': case 'g': case 'G':
        return percent_float(text, v, a, p->err, p->errsize);
    case 'c':
        return percent_char(text, v, p->err, p->errsize);
    default: {
        int64_t index = (int64_t)utf8_count(p->fmt, a->ch_at);
        char shown = a->ch >= 31 && a->ch <= 126 ? (char)a->ch : '?';
        return fail(p->err, p->errsize,
                    "ValueError: unsupported format character '%c' (0x%x) at index %lld", shown,
                    (unsigned)a->ch, (long long)index);
    }
    }
}

/* unicode_format_arg_output: the sign, the '#' prefix, padding with
 * spaces or (numbers under '0') zeros, and the precision's cut of s r a. */
static void percent_output(StrBuf *out, const StrBuf *text, PercentArg *a) {
    char fill = a->sign && (a->flags & F_ZERO) ? '0' : ' ';
    const char *s = text->data;
    size_t n = text->len;
    int64_t len = (int64_t)utf8_count(s, n);
    if ((a->width == -1 || a->width <= len) && (a->prec == -1 || a->prec >= len) &&
        !(a->flags & (F_SIGN | F_BLANK))) {
        strbuf_appendn(out, s, n);
        return;
    }
    if ((a->ch == 's' || a->ch == 'r' || a->ch == 'a') && a->prec >= 0 && len > a->prec) {
        n = utf8_prefix(s, n, (size_t)a->prec);
        len = a->prec;
    }
    char signchar = 0;
    if (a->sign) {
        if (s[0] == '-' || s[0] == '+') {
            signchar = s[0];
            s++, n--, len--;
        } else if (a->flags & F_SIGN) {
            signchar = '+';
        } else if (a->flags & F_BLANK) {
            signchar = ' ';
        } else {
            a->sign = false;
        }
    }
    int64_t width = a->width < len ? len : a->width;
    if (a->sign) {
        if (fill != ' ') strbuf_appendn(out, &signchar, 1);
        if (width > len) width--;
    }
    bool prefix = (a->flags & F_ALT) && (a->ch == 'x' || a->ch == 'X' || a->ch == 'o');
    if (prefix) {
        if (fill != ' ') {
            strbuf_appendn(out, s, 2);
            s += 2, n -= 2;
        }
        width -= 2;
        if (width < 0) width = 0;
        len -= 2;
    }
    if (width > len && !(a->flags & F_LJUST)) {
        repeat(out, &fill, 1, width - len);
        width = len;
    }
    if (fill == ' ') {
        if (a->sign) strbuf_appendn(out, &signchar, 1);
        if (prefix) {
            strbuf_appendn(out, s, 2);
            s += 2, n -= 2;
        }
    }
    strbuf_appendn(out, s, n);
    if (width > len) repeat(out, " ", 1, width - len);
}

/* One conversion after its '%' (unicode_format_arg). */
static bool percent_one(Percent *p, StrBuf *out) {
    if (p->pos < p->len && p->fmt[p->pos] == '%') {
        p->pos++;
        strbuf_append(out, "%");
        return true;
    }
    PercentArg a = {.width = -1, .prec = -1};
    if (!parse_percent(p, &a)) return false;
    StrBuf text;
    strbuf_init(&text);
    bool ok = percent_text(p, &text, &a);
    if (ok) percent_output(out, &text, &a);
    strbuf_free(&text);
    return ok;
}

bool pyfmt_percent(StrBuf *out, const char *fmt, size_t len, const PyfmtArg *args, int nargs,
                   bool args_is_tuple, char *err, size_t errsize) {
    Percent p = {.fmt = fmt, .len = len, .args = args, .nargs = nargs,
                 .argidx = args_is_tuple ? 0 : -2, .is_tuple = args_is_tuple,
                 .err = err, .errsize = errsize};
    while (p.pos < len) {
        const char *pct = memchr(fmt + p.pos, '%', len - p.pos);
        size_t lit_end = pct ? (size_t)(pct - fmt) : len;
        strbuf_appendn(out, fmt + p.pos, lit_end - p.pos);
        p.pos = lit_end;
        if (!pct) break;
        p.pos++;
        if (!percent_one(&p, out)) return false;
    }
    bool left_over = args_is_tuple ? p.argidx < nargs : p.argidx == -2;
    if (left_over)
        return fail(err, errsize, "TypeError: not all arguments converted during string formatting");
    return out_of_memory(out, err, errsize);
}

/* ---- str.format (stringlib/unicode_format.h) ----------------------------- */

typedef enum { ANS_INIT, ANS_AUTO, ANS_MANUAL } AutoState;

typedef struct {
    PyfmtLookup lookup;
    void *ctx;
    AutoState state;
    int64_t next_auto;
    char *err;
    size_t errsize;
} Template;

/* One parsed field: slices of the template. */
typedef struct {
    const char *name, *spec;
    size_t name_len, spec_len;
    uint32_t conv;
    bool expand; /* the spec holds '{': render it as a template first */
} Field;

/* parse_field: from just after the '{', up to and past the matching '}'. */
static bool parse_field(Template *t, const char *s, size_t n, size_t *pos, Field *f) {
    *f = (Field){.name = s + *pos};
    char c = 0;
    while (*pos < n) {
        c = s[(*pos)++];
        if (c == '{') return fail(t->err, t->errsize, "ValueError: unexpected '{' in field name");
        if (c == '[') {
            while (*pos < n && s[*pos] != ']') (*pos)++;
            continue;
        }
        if (c == '}' || c == ':' || c == '!') break;
    }
    f->name_len = (size_t)(s + *pos - f->name) - 1;
    if (c != '!' && c != ':') {
        if (c != '}')
            return fail(t->err, t->errsize, "ValueError: expected '}' before end of string");
        return true;
    }
    if (c == '!') {
        if (*pos >= n)
            return fail(t->err, t->errsize,
                        "ValueError: end of string while looking for conversion specifier");
        f->conv = utf8_next(s, n, pos);
        if (*pos < n) {
            c = s[(*pos)++];
            if (c == '}') return true;
            if (c != ':')
                return fail(t->err, t->errsize, "ValueError: expected ':' after conversion specifier");
        }
    }
    f->spec = s + *pos;
    int depth = 1;
    while (*pos < n) {
        c = s[(*pos)++];
        if (c == '{') {
            f->expand = true;
            depth++;
        } else if (c == '}' && --depth == 0) {
            f->spec_len = (size_t)(s + *pos - f->spec) - 1;
            return true;
        }
    }
    return fail(t->err, t->errsize, "ValueError: unmatched '{' in format spec");
}

/* field_name_split and get_field_object: the value a field names. */
static bool field_value(Template *t, const Field *f, PyfmtArg *value) {
    size_t first = 0;
    while (first < f->name_len && f->name[first] != '.' && f->name[first] != '[') first++;
    int64_t index = -1;
    size_t at = 0;
    if (first > 0) {
        int consumed = get_integer(f->name, first, &at, &index, t->err, t->errsize);
        if (consumed < 0) return false;
        if (at < first) index = -1; /* not all digits: a name */
    }
    bool empty = first == 0, numeric = empty || index != -1;
    if (t->state == ANS_INIT && numeric) t->state = empty ? ANS_AUTO : ANS_MANUAL;
    if (numeric && t->state == ANS_MANUAL && empty)
        return fail(t->err, t->errsize,
                    "ValueError: cannot switch from manual field specification to automatic field numbering");
    if (numeric && t->state == ANS_AUTO && !empty)
        return fail(t->err, t->errsize,
                    "ValueError: cannot switch from automatic field numbering to manual field specification");
    if (empty) index = t->next_auto++;
    if (!t->lookup(t->ctx, f->name, first, index, value, t->err, t->errsize)) return false;
    if (first < f->name_len)
        return fail(t->err, t->errsize,
                    "NotImplementedError: format field '%.*s': attribute and index access "
                    "are not supported",
                    (int)f->name_len, f->name);
    return true;
}

static bool render(Template *t, StrBuf *out, const char *s, size_t n, int depth);

/* output_markup: the value, its conversion, the spec (expanded), format(). */
static bool render_field(Template *t, StrBuf *out, const Field *f, int depth) {
    PyfmtArg value;
    if (!field_value(t, f, &value)) return false;
    StrBuf converted, spec;
    strbuf_init(&converted);
    strbuf_init(&spec);
    bool ok = true;
    if (f->conv) { /* the conversion happens before the spec's fields are looked up */
        ok = pyfmt_conversion(&converted, &value, f->conv, t->err, t->errsize);
        value = (PyfmtArg){.kind = PYFMT_STR, .str = converted.data, .str_len = converted.len};
    }
    const char *sp = f->spec ? f->spec : "";
    size_t sp_len = f->spec_len;
    if (ok && f->expand) {
        ok = render(t, &spec, f->spec, f->spec_len, depth - 1);
        sp = spec.data;
        sp_len = spec.len;
    }
    if (ok) ok = pyfmt_spec(out, &value, sp, sp_len, t->err, t->errsize);
    strbuf_free(&converted);
    strbuf_free(&spec);
    return ok;
}

/* build_string and do_markup: literal text, "{{" "}}", fields. */
static bool render(Template *t, StrBuf *out, const char *s, size_t n, int depth) {
    if (depth <= 0) return fail(t->err, t->errsize, "ValueError: Max string recursion exceeded");
    size_t pos = 0;
    while (pos < n) { /* MarkupIterator_next */
        size_t start = pos;
        char c = 0;
        bool markup = false;
        while (pos < n) {
            c = s[pos++];
            if (c == '{' || c == '}') {
                markup = true;
                break;
            }
        }
        bool at_end = pos >= n;
        size_t lit = pos - start;
        if (c == '}' && markup && (at_end || s[pos] != '}'))
            return fail(t->err, t->errsize, "ValueError: Single '}' encountered in format string");
        if (at_end && markup && c == '{')
            return fail(t->err, t->errsize, "ValueError: Single '{' encountered in format string");
        if (markup) {
            if (s[pos] == c) { /* "{{" or "}}": one brace of literal text */
                pos++;
                markup = false;
            } else {
                lit--;
            }
        }
        strbuf_appendn(out, s + start, lit);
        if (!markup) continue;
        Field f;
        if (!parse_field(t, s, n, &pos, &f)) return false;
        if (!render_field(t, out, &f, depth)) return false;
    }
    return true;
}

bool pyfmt_template(StrBuf *out, const char *tmpl, size_t len, PyfmtLookup lookup, void *ctx,
                    char *err, size_t errsize) {
    /* PEP 3101's two levels: "{0:{1}}" works, "{0:{1:{2}}}" does not */
    Template t = {.lookup = lookup, .ctx = ctx, .state = ANS_INIT, .err = err, .errsize = errsize};
    if (!render(&t, out, tmpl, len, 2)) return false;
    return out_of_memory(out, err, errsize);
}

bool pyfmt_lookup_args(void *ctx, const char *name, size_t len, int64_t index, PyfmtArg *out,
                       char *err, size_t errsize) {
    const PyfmtArgs *args = ctx;
    if (index >= 0) {
        if (index >= args->npos)
            return fail(err, errsize,
                        "IndexError: Replacement index %lld out of range for positional args tuple",
                        (long long)index);
        *out = args->pos[index];
        return true;
    }
    for (int i = 0; i < args->nnamed; i++) {
        const char *key = args->named[i].name;
        if (strlen(key) == len && memcmp(key, name, len) == 0) {
            *out = args->named[i].value;
            return true;
        }
    }
    StrBuf key;
    strbuf_init(&key);
    pyfmt_str_repr(&key, name, len);
    fail(err, errsize, "KeyError: %s", key.data);
    strbuf_free(&key);
    return false;
}
