"""Exports an executed notebook to HTML for the browser check
(tests/notebook/run.sh), each SVG picture as an <img> of a data: URI.

usage: export_html.py NOTEBOOK HTML

Why not `jupyter nbconvert --to html` as it is: nbconvert 6.5 (Debian 12's)
passes inline SVG through its HTML cleaner, which keeps the <svg> element
and drops everything inside it, so every SVG output (matplotlib's too) is
blank in the page (jupyter/nbconvert#1849, #1894). nbconvert 7.7 writes SVG
outputs as <img src="data:image/svg+xml;base64,..."> instead (#2018); so
does this export, through the template's own svg_filename hook, on any
version.
"""
import base64
import sys

import nbformat
from nbconvert import HTMLExporter
from nbconvert.preprocessors import Preprocessor


class SvgAsImage(Preprocessor):
    def preprocess_cell(self, cell, resources, index):
        for output in cell.get("outputs", []):
            svg = output.get("data", {}).get("image/svg+xml")
            if svg:
                output["svg_filename"] = ("data:image/svg+xml;base64," +
                                          base64.b64encode(svg.encode()).decode())
        return cell, resources


def main(source, target):
    exporter = HTMLExporter()
    exporter.register_preprocessor(SvgAsImage(), enabled=True)
    html, _ = exporter.from_notebook_node(nbformat.read(source, 4))
    with open(target, "w") as f:
        f.write(html)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
