/*
 * pyformat.c — format() as CPython does it (pyformat.h): the spec is read
 * into a FormatSpec, the digits come from snprintf (whose %e %f %g agree
 * with Python's for doubles), then sign, grouping and padding are applied
 * as CPython's formatter does.
 */
#include "pyformat.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "print.h"

typedef struct {
    char fill, align, sign, type, grouping;
    bool alternate, zero;
    int width, precision; /* -1: not given */
} FormatSpec;

/* Writes CPython's message into err; false, for `return fail(...)`. */
#define fail(err, size, ...) (snprintf(err, size, __VA_ARGS__), false)

static bool parse_spec(const char *spec, size_t len, FormatSpec *f, char *err, size_t size) {
    *f = (FormatSpec){.fill = ' ', .width = -1, .precision = -1};
    size_t i = 0;
    if (len >= 2 && strchr("<>=^", spec[1])) f->fill = spec[0], f->align = spec[1], i = 2;
    else if (len >= 1 && strchr("<>=^", spec[0])) f->align = spec[0], i = 1;
    if (i < len && strchr("+- ", spec[i])) f->sign = spec[i++];
    if (i < len && spec[i] == '#') f->alternate = true, i++;
    if (i < len && spec[i] == '0') {
        f->zero = true, i++;
        if (!f->align) f->fill = '0', f->align = '=';
    }
    for (; i < len && spec[i] >= '0' && spec[i] <= '9' && f->width < 100000; i++)
        f->width = (f->width < 0 ? 0 : f->width * 10) + (spec[i] - '0');
    if (i < len && (spec[i] == ',' || spec[i] == '_')) f->grouping = spec[i++];
    if (i < len && spec[i] == '.') {
        if (++i >= len || spec[i] < '0' || spec[i] > '9')
            return fail(err, size, "ValueError: Format specifier missing precision");
        for (f->precision = 0; i < len && spec[i] >= '0' && spec[i] <= '9' && f->precision < 10000; i++)
            f->precision = f->precision * 10 + (spec[i] - '0');
    }
    if (i < len) f->type = spec[i++];
    if (i < len) return fail(err, size, "ValueError: Invalid format specifier");
    return true;
}

/* Inserts the grouping character every three digits of the integer part
 * of digits (which has no sign). */
static void group(StrBuf *out, const char *digits, char sep) {
    size_t n = strcspn(digits, ".eE%");
    for (size_t i = 0; i < n; i++) {
        strbuf_appendn(out, digits + i, 1);
        if ((n - i - 1) % 3 == 0 && i + 1 < n) strbuf_appendn(out, &sep, 1);
    }
    strbuf_append(out, digits + n);
}

/* Sign, body and padding, as the spec says (numbers right-aligned unless
 * told otherwise; '=' pads between the sign and the digits). */
static void pad(StrBuf *out, const FormatSpec *f, bool negative, const char *body, char dflt) {
    char sign[2] = {0, 0};
    if (negative) sign[0] = '-';
    else if (f->sign == '+' || f->sign == ' ') sign[0] = f->sign;
    StrBuf grouped;
    strbuf_init(&grouped);
    if (f->grouping) group(&grouped, body, f->grouping);
    else strbuf_append(&grouped, body);
    int len = (int)(strlen(sign) + grouped.len), fill = f->width > len ? f->width - len : 0;
    char align = f->align ? f->align : dflt;
    int left = align == '>' || align == '=' ? fill : align == '^' ? fill / 2 : 0;
    int right = fill - left;
    if (align == '=') strbuf_append(out, sign);
    for (int i = 0; i < left; i++) strbuf_appendn(out, &f->fill, 1);
    if (align != '=') strbuf_append(out, sign);
    strbuf_appendn(out, grouped.data, grouped.len);
    for (int i = 0; i < right; i++) strbuf_appendn(out, &f->fill, 1);
    strbuf_free(&grouped);
}

static bool format_float(StrBuf *out, double v, const FormatSpec *f, char *err, size_t size) {
    char type = f->type, body[512];
    int precision = f->precision < 0 ? 6 : f->precision > 400 ? 400 : f->precision;
    double shown = fabs(v);
    if (!strchr("eEfFgGn%", type ? type : 'g'))
        return fail(err, size, "ValueError: Unknown format code '%c' for object of type '%s'",
                    type, "float");
    if (isnan(v) || isinf(v)) {
        snprintf(body, sizeof body, "%s", isnan(v) ? "nan" : "inf");
        if (type && strchr("EFG", type)) snprintf(body, sizeof body, "%s", isnan(v) ? "NAN" : "INF");
        if (type == '%') strcat(body, "%");
    } else if (!type && f->precision < 0) {
        StrBuf r;
        strbuf_init(&r);
        pyfmt_float_repr(&r, shown);
        snprintf(body, sizeof body, "%s", r.data);
        strbuf_free(&r);
    } else if (type == '%') {
        snprintf(body, sizeof body, "%.*f%%", precision, shown * 100);
    } else if (!type || type == 'n') { /* like g, but at least one digit after the point */
        snprintf(body, sizeof body, "%.*g", precision ? precision : 1, shown);
        if (!type && !strpbrk(body, ".e")) strcat(body, ".0");
    } else {
        switch (type) {
        case 'e': snprintf(body, sizeof body, f->alternate ? "%#.*e" : "%.*e", precision, shown); break;
        case 'E': snprintf(body, sizeof body, f->alternate ? "%#.*E" : "%.*E", precision, shown); break;
        case 'g': snprintf(body, sizeof body, f->alternate ? "%#.*g" : "%.*g", precision, shown); break;
        case 'G': snprintf(body, sizeof body, f->alternate ? "%#.*G" : "%.*G", precision, shown); break;
        default: snprintf(body, sizeof body, f->alternate ? "%#.*f" : "%.*f", precision, shown); break;
        }
        if (type == 'F') for (char *c = body; *c; c++) *c = (char)(*c == 'i' ? 'I' : *c == 'n' ? 'N' : *c == 'f' ? 'F' : *c == 'a' ? 'A' : *c);
    }
    pad(out, f, signbit(v) && !isnan(v), body, '>');
    return true;
}

static bool format_int(StrBuf *out, int64_t v, const FormatSpec *f, char *err, size_t size) {
    char type = f->type ? f->type : 'd', body[80];
    if (strchr("eEfFgG%", type)) return format_float(out, (double)v, f, err, size);
    if (f->precision >= 0)
        return fail(err, size, "ValueError: Precision not allowed in integer format specifier");
    uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    switch (type) {
    case 'd': case 'n': snprintf(body, sizeof body, "%llu", (unsigned long long)m); break;
    case 'x': snprintf(body, sizeof body, "%s%llx", f->alternate ? "0x" : "", (unsigned long long)m); break;
    case 'X': snprintf(body, sizeof body, "%s%llX", f->alternate ? "0X" : "", (unsigned long long)m); break;
    case 'o': snprintf(body, sizeof body, "%s%llo", f->alternate ? "0o" : "", (unsigned long long)m); break;
    case 'c': body[0] = (char)m, body[1] = '\0'; break;
    case 'b': {
        char bits[70];
        int n = 0;
        do bits[n++] = (char)('0' + (m & 1)); while (m >>= 1);
        int k = f->alternate ? snprintf(body, sizeof body, "0b") : 0;
        while (n) body[k++] = bits[--n];
        body[k] = '\0';
        break;
    }
    default:
        return fail(err, size, "ValueError: Unknown format code '%c' for object of type '%s'",
                    type, "int");
    }
    pad(out, f, v < 0, body, '>');
    return true;
}

static bool format_str(StrBuf *out, const char *s, size_t n, const FormatSpec *f, char *err,
                       size_t size) {
    if (f->type && f->type != 's')
        return fail(err, size, "ValueError: Unknown format code '%c' for object of type '%s'",
                    f->type, "str");
    if (f->sign) return fail(err, size, "ValueError: Sign not allowed in string format specifier");
    if (f->align == '=')
        return fail(err, size, "ValueError: '=' alignment not allowed in string format specifier");
    if (f->precision >= 0 && (size_t)f->precision < n) n = (size_t)f->precision;
    FormatSpec plain = *f;
    plain.grouping = 0;
    StrBuf text;
    strbuf_init(&text);
    strbuf_appendn(&text, s, n);
    pad(out, &plain, false, text.data, '<');
    strbuf_free(&text);
    return true;
}

bool pyfmt_float_repr(StrBuf *out, double v) {
    format_float_repr(out, v);
    return !out->oom;
}

void pyfmt_str_repr(StrBuf *out, const char *s, size_t n) {
    char quote = memchr(s, '\'', n) && !memchr(s, '"', n) ? '"' : '\'';
    strbuf_appendn(out, &quote, 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\\' || c == (unsigned char)quote) strbuf_appendf(out, "\\%c", c);
        else if (c == '\n') strbuf_append(out, "\\n");
        else if (c == '\t') strbuf_append(out, "\\t");
        else if (c == '\r') strbuf_append(out, "\\r");
        else if (c < 32 || c == 127) strbuf_appendf(out, "\\x%02x", c);
        else strbuf_appendn(out, (const char *)&c, 1);
    }
    strbuf_appendn(out, &quote, 1);
}

bool pyfmt_spec(StrBuf *out, const PyfmtArg *a, const char *spec, size_t len, char *err,
                size_t errsize) {
    FormatSpec f;
    if (len == 0 && a->kind != PYFMT_FLOAT) {
        strbuf_appendn(out, a->str, a->str_len);
        return true;
    }
    if (!parse_spec(spec, len, &f, err, errsize)) return false;
    switch (a->kind) {
    case PYFMT_INT: return format_int(out, a->i, &f, err, errsize);
    case PYFMT_BOOL:
        if (!f.type) return format_str(out, a->str, a->str_len, &f, err, errsize);
        return format_int(out, a->i, &f, err, errsize);
    case PYFMT_FLOAT: return format_float(out, a->f, &f, err, errsize);
    case PYFMT_STR: return format_str(out, a->str, a->str_len, &f, err, errsize);
    default:
        snprintf(err, errsize, "TypeError: unsupported format string passed to %s.__format__",
                 a->type_name);
        return false;
    }
}

bool pyfmt_conversion(StrBuf *out, const PyfmtArg *a, uint32_t conv, char *err, size_t errsize) {
    if (conv == 's') strbuf_appendn(out, a->str, a->str_len);
    else if (conv == 'r' || conv == 'a') strbuf_appendn(out, a->repr, a->repr_len);
    else return fail(err, errsize, "ValueError: Unknown conversion specifier %c", (char)conv);
    return true;
}

bool pyfmt_field(StrBuf *out, const PyfmtArg *a, uint32_t conv, const char *spec, size_t len,
                 char *err, size_t errsize) {
    if (!conv) return pyfmt_spec(out, a, spec, len, err, errsize);
    StrBuf text;
    strbuf_init(&text);
    bool ok = pyfmt_conversion(&text, a, conv, err, errsize);
    PyfmtArg converted = {.kind = PYFMT_STR, .str = text.data, .str_len = text.len,
                          .repr = text.data, .repr_len = text.len, .type_name = "str"};
    ok = ok && pyfmt_spec(out, &converted, spec, len, err, errsize);
    strbuf_free(&text);
    return ok;
}
