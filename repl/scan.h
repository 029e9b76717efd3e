/*
 * scan.h — the scanner: turns source text into tokens, allocating nothing.
 * A token is a slice of the source plus its line and column; a lexical
 * error is a token too (TOK_ERROR, its message in the token). Keywords are
 * reserved here, once, in the scanner's table (clox's identifierType).
 */
#ifndef AG_SCAN_H
#define AG_SCAN_H

#include <stdbool.h>
#include <stddef.h>

enum {
    SCAN_TRACKED_BRACKETS = 256,
    SCAN_MAX_INDENT = 100,   /* Python's limit: "too many levels of indentation" */
};

typedef enum {
    TOK_NUMBER, TOK_NAME, TOK_STRING,
    /* operators */
    TOK_PLUS, TOK_MINUS, TOK_STAR, TOK_SLASH, TOK_SLASHSLASH, TOK_PERCENT, TOK_AT,
    TOK_STARSTAR, TOK_AMP, TOK_PIPE, TOK_CARET, TOK_TILDE, TOK_LSHIFT, TOK_RSHIFT,
    TOK_EQUAL, TOK_PLUS_EQUAL, TOK_MINUS_EQUAL, TOK_STAR_EQUAL, TOK_SLASH_EQUAL,
    TOK_AMP_EQUAL, TOK_PIPE_EQUAL, TOK_CARET_EQUAL, TOK_SLASHSLASH_EQUAL, TOK_PERCENT_EQUAL,
    TOK_STARSTAR_EQUAL, TOK_AT_EQUAL, TOK_LSHIFT_EQUAL,
    TOK_RSHIFT_EQUAL, /* the last compound assignment */
    TOK_EQ, TOK_NE, TOK_LT, TOK_LE, TOK_GT, TOK_GE,
    /* punctuation */
    TOK_LPAREN, TOK_RPAREN, TOK_LBRACKET, TOK_RBRACKET, TOK_LBRACE, TOK_RBRACE,
    TOK_COMMA, TOK_DOT, TOK_COLON,
    TOK_ELLIPSIS, /* ... (Python's Ellipsis: an index item, or a statement doing nothing) */
    TOK_ARROW,    /* -> before a def's return annotation */
    /* keywords (scan.c's table) */
    TOK_FOR, TOK_IN, TOK_WHILE, TOK_IF, TOK_ELSE, TOK_BREAK, TOK_CONTINUE, TOK_RETURN,
    TOK_NO_GRAD, TOK_AND, TOK_OR, TOK_NOT, TOK_TRUE, TOK_FALSE, TOK_NONE,
    /* Python's keywords: the statements of the subset, and those outside it
     * (class, try, ...), which the parser names in one line */
    TOK_DEF, TOK_ELIF, TOK_PASS, TOK_WITH, TOK_LAMBDA, TOK_IS, TOK_GLOBAL, TOK_NONLOCAL,
    TOK_ASSERT, TOK_DEL, TOK_YIELD, TOK_CLASS, TOK_TRY, TOK_EXCEPT, TOK_FINALLY, TOK_RAISE,
    TOK_ASYNC, TOK_AWAIT,
    TOK_END_STMT, /* newline or ';' outside ( ) and [ ] */
    TOK_INDENT, TOK_DEDENT, /* a Python block's lines begin and end (outside { }) */
    TOK_IS_NOT, TOK_NOT_IN, /* not scanned: the parser's operators `is not`, `not in` */
    TOK_EOF, TOK_ERROR,
    TOK_COUNT
} TokenType;

typedef struct {
    TokenType type;
    const char *start; /* into the source; for TOK_ERROR, the message */
    size_t length;
    int line, col;     /* 1-based; col counts bytes */
} Token;

typedef struct {
    const char *start, *current, *end;
    const char *line_start;
    int line;
    int depth;        /* open ( and [: newlines inside them do not end a statement */
    int braces;       /* open { (newlines inside end statements of the block) */
    /* where the innermost open brackets are, for "'(' at 1:5 is never closed" */
    int open_line[SCAN_TRACKED_BRACKETS], open_col[SCAN_TRACKED_BRACKETS];
    char open_char[SCAN_TRACKED_BRACKETS];
    char message[112]; /* the text of the last error token */
    /* Python's indentation (outside { } and brackets): the columns of the
     * open indented blocks (tabs to multiples of 8) and the same with a
     * tab as one column (a block whose lines agree in one and not the
     * other mixes tabs and spaces: Python's TabError). */
    int indent_col[SCAN_MAX_INDENT], indent_alt[SCAN_MAX_INDENT];
    int num_indents;
    int pending_dedents;    /* DEDENT tokens still to give */
    bool at_line_start;     /* the next token is the first of a line */
    bool header_colon;      /* the last line ended with ':' (a block header) */
    TokenType last;         /* the last token given */
    bool eof_closes_blocks; /* the end of input ends open indented blocks (else it is
                               incomplete input: more lines may belong to them) */
    bool strict_indent;     /* Python's rule: an indented line not after a ':' line is
                               an error (the .ag dialect ignores such indentation) */
    bool python;            /* Python's blanks: tabs and form feeds between tokens, a
                               backslash joining a line to the next */
    bool braces_are_brackets; /* Python's { }: a dict or a set, never a block, so
                                 newlines inside are skipped as inside ( and [ */
} Scanner;

void scanner_init(Scanner *s, const char *src, size_t len, int first_line);
Token scan_token(Scanner *s);
/* Open brackets of every kind ( [ { after scanning text, starting from
 * depth: the cheap incompleteness test for long statements, a line at a
 * time. */
int scan_depth(const char *text, size_t len, int depth);
/* Whether type is one of the comparisons == != < <= > >=. */
static inline bool token_compares(TokenType type) { return type >= TOK_EQ && type <= TOK_GE; }
/* The keyword spelled by text, or TOK_NAME. */
TokenType keyword_type(const char *text, size_t length);
/* The keywords' spellings, for completion and :help; NULL-terminated. */
extern const char *const scan_keywords[];
/* "'+'", "end of input", "name 'x'", "keyword 'for'": how a token is named
 * in messages. Writes into buf and returns it. */
const char *token_describe(const Token *t, char *buf, size_t size);
/* The spelling of an operator or punctuation token ("+=", "//"). */
const char *token_text(TokenType type);

#endif
