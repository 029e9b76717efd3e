"""Checks a browser's screenshot of a notebook exported to HTML: the SVG
pictures were drawn (tests/notebook/run.sh takes the screenshot with
headless chromium).

usage: screenshot.py PNG
Passes when the picture holds the plots' lines (pixels of their blue,
#1f77b4, and red, #d62728) with other colours round them (not a blank page,
not one colour): what a browser shows only if it drew the SVG. The PNG is
decoded here with zlib (8-bit RGB or RGBA, no interlace: what chromium
writes), so no imaging library is needed. Prints "N passed, N failed" last.
"""
import struct
import sys
import zlib


def decode_png(data):
    """(width, height, rows of bytes, bytes a pixel)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError("a PNG this check does not read (depth %d, colour type %d)" % (depth, colour))
    bpp = 3 if colour == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        start = y * (stride + 1)
        kind, row = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = row[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                row[i] = (row[i] + a) & 255
            elif kind == 2:
                row[i] = (row[i] + b) & 255
            elif kind == 3:
                row[i] = (row[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(row)
        prev = row
    return width, height, rows, bpp


def near(pixel, colour, tolerance=10):  # (code highlighting has blues within 40)
    return all(abs(p - c) <= tolerance for p, c in zip(pixel, colour))


def main(path):
    width, height, rows, bpp = decode_png(open(path, "rb").read())
    blue, red = (0x1f, 0x77, 0xb4), (0xd6, 0x27, 0x28)
    counts = {"blue": 0, "red": 0}
    colours = set()
    for row in rows:
        for x in range(0, width * bpp, bpp):
            pixel = tuple(row[x:x + 3])
            colours.add(pixel)
            if near(pixel, blue):
                counts["blue"] += 1
            elif near(pixel, red):
                counts["red"] += 1
    results = [(len(colours) > 50, "the page is not blank (%d colours)" % len(colours)),
               (counts["blue"] > 300, "the plots' blue lines are drawn (%d pixels)" % counts["blue"]),
               (counts["red"] > 300, "tanh's derivative, in red, is drawn (%d pixels)" % counts["red"])]
    for ok, what in results:
        print(("ok " if ok else "FAIL ") + what)
    failed = sum(not ok for ok, _ in results)
    print("%d passed, %d failed" % (len(results) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
