"""Writes the generated inputs of the compatibility programs into a directory (fixed seed):
shapes.svg, 3,000 circles, rotated gradient rectangles and texts for Batik. Usage: gen_inputs.py DIR"""
import os
import random
import sys


def svg(path, shapes=3000):
    rnd = random.Random(17)
    with open(path, "w", encoding="utf-8") as f:
        f.write('<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600">\n')
        f.write('<defs><linearGradient id="g"><stop offset="0" stop-color="#08f"/>'
                '<stop offset="1" stop-color="#f80"/></linearGradient></defs>\n')
        for i in range(shapes):
            x, y, r = rnd.randrange(800), rnd.randrange(600), rnd.randrange(2, 40)
            color = f"#{rnd.randrange(1 << 24):06x}"
            if i % 3 == 0:
                f.write(f'<circle cx="{x}" cy="{y}" r="{r}" fill="{color}" fill-opacity="0.5"/>\n')
            elif i % 3 == 1:
                f.write(f'<rect x="{x}" y="{y}" width="{r * 2}" height="{r}" fill="url(#g)" '
                        f'transform="rotate({rnd.randrange(360)} {x} {y})"/>\n')
            else:
                f.write(f'<text x="{x}" y="{y}" font-size="{r}" fill="{color}">t{i}</text>\n')
        f.write("</svg>\n")


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    svg(os.path.join(out, "shapes.svg"))


if __name__ == "__main__":
    main()
