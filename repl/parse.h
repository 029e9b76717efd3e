/*
 * parse.h — the parser: statements from source text, one at a time. A
 * statement layer (one function per kind of statement, dispatched on the
 * first token, as clox's statement() and Lua's statement()) over a Pratt
 * parser for expressions driven by a table.
 *
 * Input that ends where more is needed (an open bracket or block, a
 * definition whose body is on the next line) is its own result,
 * PARSE_INCOMPLETE, so the shell reads another line: the parser is the one
 * place that decides (lua.c's incomplete()).
 */
#ifndef AG_PARSE_H
#define AG_PARSE_H

#include <stdbool.h>

#include "ast.h"
#include "scan.h"

/* Limits that keep a hostile script from exhausting the stack. */
enum {
    MAX_NESTING = 200,  /* brackets, unary operators and blocks inside each other */
    MAX_HEIGHT = 1000,  /* of an expression tree (a + b + ... is a chain) */
    MAX_BRANCHES = 2000, /* elif / else if: the parser and the evaluator recurse once per
                            branch (CPython's compiler stops near 2,700; ag's evaluator
                            under ASan near 2,500) */
};

typedef enum { PARSE_OK, PARSE_END, PARSE_ERROR, PARSE_INCOMPLETE } ParseStatus;

typedef struct {
    Scanner scanner;
    Token current, previous;
    AstArena *arena;
    int nesting;
    int branches;          /* elif / else if branches open (MAX_BRANCHES) */
    int loops, functions;  /* enclosing loops and function bodies (break, return) */
    struct Stmt *def;      /* the def whose body is being read (yield marks it), or NULL */
    bool failed, incomplete;
    bool python;           /* the .py dialect: Python's messages, strict indentation */
    char error[256];
    int error_line, error_col;
    /* a list literal's values while it is parsed */
    double *values;
    int64_t num_values, cap_values;
    bool values_fractional;  /* one of them was written with '.' or an exponent */
    bool values_integral;    /* one of them was written without */
} Parser;

void parser_init(Parser *p, const char *src, size_t len, int first_line, AstArena *arena);
/* The same, in the .py dialect or not (python: Python's messages, an
 * unexpected indent is an error), and saying whether the end of the text
 * ends open indented blocks (false: more lines may come, so the text is
 * incomplete). parser_init: the .ag dialect, blocks ended. */
void parser_init_mode(Parser *p, const char *src, size_t len, int first_line, AstArena *arena,
                      bool python, bool eof_closes_blocks);
void parser_free(Parser *p);
/* Parses the next top-level statement (with any block it opens) into *out,
 * allocated in the arena. PARSE_END when only blanks remain. */
ParseStatus parse_statement(Parser *p, Stmt **out);
/* Parses one expression that must be all the text (a lambda's, parsed
 * again to outlive its statement). */
ParseStatus parse_expression_only(Parser *p, Node **out);
/* PARSE_INCOMPLETE if the text ends where more is needed, else PARSE_OK
 * (even when it has errors: those are reported when it runs). */
ParseStatus parse_check_complete(const char *src, size_t len, bool python,
                                 bool eof_closes_blocks);

#endif
