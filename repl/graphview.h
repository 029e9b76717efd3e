/*
 * graphview.h — the graph with its numbers (graphview.c): the engine's
 * snapshot of the last backward (ag_last_graph), or of a live graph
 * (ag_graph_take), drawn as micrograd's draw_dot draws (record nodes with
 * data and grad, op nodes between them) for :dot and draw(), rendered to
 * SVG or PNG by Graphviz's dot program, and :why, the chain rule made
 * visible: every path from the loss to a tensor and what it contributes.
 */
#ifndef AG_GRAPHVIEW_H
#define AG_GRAPHVIEW_H

#include "session.h"
#include "strbuf.h"

/* Why there is no graph to show after a backward in a block. */
extern const char graphview_not_kept[];

/* The node of the last backward's snapshot named name, or -1. */
int graphview_find(const char *name);

/* Appends the DOT text of snap, from node root (what it reaches). */
void graphview_dot(const AgGraphSnapshot *snap, int root, StrBuf *out);

/* What a file name asks for: a picture Graphviz renders ("svg", "png"),
 * or DOT text (""). */
const char *graphview_format(const char *file);
/* Whether word names a graph's file by its extension (.svg .png .dot .gv):
 * :dot FILE, without a variable's name. */
bool graphview_is_file(const char *word);

/* Writes dot (DOT text) to file as its extension asks: text, or rendered
 * by Graphviz's dot into a temporary file renamed to file when whole.
 * false with the error set (what to install when dot is missing). */
bool graphview_write(Session *s, const StrBuf *dot, const char *file);

/* The SVG text of dot, rendered by Graphviz, into svg; false with the
 * error set. */
bool graphview_svg(Session *s, const StrBuf *dot, StrBuf *svg);

/* :why NAME (or NAME.grad): the paths from the last backward's loss to
 * NAME, each with the product of the local derivatives along it, summed
 * and compared with the gradient; false with the error set. */
bool graphview_why(Session *s, const char *arg);

#endif
