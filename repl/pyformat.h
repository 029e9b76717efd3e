/*
 * pyformat.h — CPython 3.11's text formatting of numbers and strings, byte
 * for byte: repr(float), format(x, spec) with the whole format-spec
 * mini-language, the % operator on str, and str.format's templates.
 *
 * It is: a standalone module with no knowledge of the shell's values. The
 * caller describes each value as a PyfmtArg (an int, a float, a bool, a str,
 * or any other object given by its str(), repr() and type name), and gets
 * the text appended to a StrBuf, or false and CPython's error message,
 * prefixed with the exception's name ("ValueError: Format specifier missing
 * precision"), in err. On error the StrBuf may hold a partial result.
 *
 * It is NOT: Python's int (ints are int64_t), complex, bytes, or the
 * current locale ('n' formats as in the C locale, which is what Python
 * uses unless a script calls locale.setlocale). Text is UTF-8; widths and
 * precisions count code points, as Python counts characters.
 *
 * f-strings: the parser splits f"a{x!r:>{w}}b" itself and calls pyfmt_field
 * for each field, with the spec already expanded.
 */
#ifndef AG_PYFORMAT_H
#define AG_PYFORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

/* A size for the err buffers below: every message fits, names included
 * up to 200 bytes (CPython cuts type names at 200 too). */
enum { PYFMT_ERR_MAX = 320 };

typedef enum { PYFMT_INT, PYFMT_FLOAT, PYFMT_BOOL, PYFMT_STR, PYFMT_OTHER } PyfmtKind;

/* One value to format. Pointers are borrowed for the length of the call.
 *   PYFMT_INT    i
 *   PYFMT_FLOAT  f
 *   PYFMT_BOOL   i (0 or 1): an int with a spec, True/False without
 *   PYFMT_STR    str/str_len, the text; repr may be NULL (then computed)
 *   PYFMT_OTHER  str/str_len = str(x), repr/repr_len = repr(x), type_name
 * type_name names the type in messages ("list", "Tensor", "NoneType");
 * NULL means the kind's own ("int", "float", "bool", "str"). */
typedef struct {
    PyfmtKind kind;
    int64_t i;
    double f;
    const char *str;
    size_t str_len;
    const char *repr;
    size_t repr_len;
    const char *type_name;
} PyfmtArg;

/* repr(v) for a float: the shortest digits that read back, "2.0", "0.1",
 * "1e+16", "1e-05", "123456789012345.0", "inf", "-inf", "nan", "-0.0".
 * Returns false only when out ran out of memory. */
bool pyfmt_float_repr(StrBuf *out, double v);

/* repr(s) for a str of n UTF-8 bytes: quotes, escapes of \\, the quote,
 * \t \n \r, control characters and the non-printable code points Python
 * escapes (C1 controls, format and separator characters, private use). */
void pyfmt_str_repr(StrBuf *out, const char *s, size_t n);

/* format(a, spec): spec is len bytes, [[fill]align][sign][z][#][0][width]
 * [grouping][.precision][type]. False with CPython's message in err on a
 * bad spec ("ValueError: Unknown format code 'd' for object of type
 * 'float'"); a PYFMT_OTHER takes only the empty spec, as object.__format__. */
bool pyfmt_spec(StrBuf *out, const PyfmtArg *a, const char *spec, size_t len, char *err,
                size_t errsize);

/* Appends str(a) (conv 's'), repr(a) ('r') or ascii(a) ('a'); any other
 * conv is "ValueError: Unknown conversion specifier x". */
bool pyfmt_conversion(StrBuf *out, const PyfmtArg *a, uint32_t conv, char *err, size_t errsize);

/* One replacement field, as str.format and f-strings do it: the
 * conversion (0 for none, else as pyfmt_conversion), then format() of the
 * result with spec. */
bool pyfmt_field(StrBuf *out, const PyfmtArg *a, uint32_t conv, const char *spec, size_t len,
                 char *err, size_t errsize);

/* fmt % args, for a str fmt of len bytes. args_is_tuple: args are the
 * items of a tuple right operand (nargs may be 0); else args[0] is the
 * single right operand (nargs 1). Flags -+ #0, width and precision
 * (numbers or *), conversions d i u o x X e E f F g G c r s a and %%.
 * "%(name)s" is refused as CPython refuses it without a mapping:
 * "TypeError: format requires a mapping". */
bool pyfmt_percent(StrBuf *out, const char *fmt, size_t len, const PyfmtArg *args, int nargs,
                   bool args_is_tuple, char *err, size_t errsize);

/* Finds a str.format field's value: index >= 0 for "{}" and "{0}", or
 * name/len for "{name}" (index -1). Fills *out (its pointers must stay
 * valid until the template call returns) or writes CPython's error to err
 * ("IndexError: Replacement index 1 out of range for positional args
 * tuple", "KeyError: 'x'") and returns false. */
typedef bool (*PyfmtLookup)(void *ctx, const char *name, size_t len, int64_t index,
                            PyfmtArg *out, char *err, size_t errsize);

/* tmpl.format(...): literal text, "{{" and "}}", fields {} {0} {name} with
 * !r !s !a and :spec, where a spec may hold nested fields one level deep.
 * "{0.attr}" and "{0[key]}" are refused: "NotImplementedError: ...". */
bool pyfmt_template(StrBuf *out, const char *tmpl, size_t len, PyfmtLookup lookup, void *ctx,
                    char *err, size_t errsize);

/* A ready lookup over a call's arguments (ctx: a PyfmtArgs), with
 * CPython's IndexError and KeyError. */
typedef struct {
    const char *name;
    PyfmtArg value;
} PyfmtNamed;
typedef struct {
    const PyfmtArg *pos;
    int npos;
    const PyfmtNamed *named;
    int nnamed;
} PyfmtArgs;
bool pyfmt_lookup_args(void *ctx, const char *name, size_t len, int64_t index, PyfmtArg *out,
                       char *err, size_t errsize);

#endif /* AG_PYFORMAT_H */
