/*
 * pyformat.h — CPython's formatting of numbers and strings for f-strings
 * and format(): repr(float), repr(str), and the format-spec mini-language
 * [[fill]align][sign][#][0][width][,|_][.precision][type] for ints, floats,
 * bools and strings. The caller describes each value as a PyfmtArg (any
 * other object by its str(), repr() and type name) and gets the text
 * appended to a StrBuf, or false and CPython's message, prefixed with the
 * exception's name, in err.
 *
 * Not yet here: the % operator on str and str.format's templates; 'n' is
 * 'd' or 'g' (the C locale's, as Python's unless a script sets one).
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

#endif /* AG_PYFORMAT_H */
