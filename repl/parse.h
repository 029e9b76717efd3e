/*
 * parse.h — the Pratt parser: statements from source text, one at a time.
 * Running out of input inside a bracket is its own result (PARSE_INCOMPLETE)
 * so that the shell can read a continuation line.
 */
#ifndef AG_PARSE_H
#define AG_PARSE_H

#include <stdbool.h>

#include "ast.h"
#include "scan.h"

/* Limits that keep a hostile script from exhausting the stack. */
enum {
    MAX_NESTING = 200,  /* brackets and unary operators inside each other */
    MAX_HEIGHT = 1000,  /* of an expression tree (a + b + ... is a chain) */
};

typedef enum { PARSE_OK, PARSE_END, PARSE_ERROR, PARSE_INCOMPLETE } ParseStatus;

typedef struct {
    Scanner scanner;
    Token current, previous;
    AstArena *arena;
    int nesting;
    bool failed, incomplete;
    char error[256];
    int error_line, error_col;
    /* a list literal's values while it is parsed */
    double *values;
    int64_t num_values, cap_values;
} Parser;

void parser_init(Parser *p, const char *src, size_t len, int first_line, AstArena *arena);
void parser_free(Parser *p);
/* Parses the next statement into *out (allocated in the arena). PARSE_END
 * when only blanks remain. */
ParseStatus parse_statement(Parser *p, Stmt **out);
/* PARSE_INCOMPLETE if the text ends inside a bracket, else PARSE_OK (even
 * when it has errors: those are reported when it runs). */
ParseStatus parse_check_complete(const char *src, size_t len);

#endif
