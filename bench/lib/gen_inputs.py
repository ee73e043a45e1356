"""Generates the benchmark inputs deterministically (fixed seeds).

Usage: gen_inputs.py <inputs-dir> <scale>
Writes fop-<scale>.fo, xalan-<scale>.xml and lucene-<scale>.txt, skipping
files that already exist.
"""
import os
import random
import sys


def vocabulary(rnd, n=20000):
    letters = "etaoinshrdlcumwfgypbvkjxqz"
    weights = [26 - i for i in range(26)]
    words = set()
    while len(words) < n:
        words.add("".join(rnd.choices(letters, weights, k=rnd.randint(2, 11))))
    return sorted(words)


def sentence(rnd, words, n):
    # Zipf-like: low indices are far more frequent.
    return " ".join(words[int(len(words) * rnd.random() ** 3)] for _ in range(n))


def fop(path, scale, rnd, words):
    sections = max(1, int(1500 * scale))
    with open(path, "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                '<fo:root xmlns:fo="http://www.w3.org/1999/XSL/Format">\n'
                '<fo:layout-master-set><fo:simple-page-master master-name="A4"'
                ' page-height="29.7cm" page-width="21cm" margin="2cm">'
                '<fo:region-body/></fo:simple-page-master></fo:layout-master-set>\n'
                '<fo:page-sequence master-reference="A4"><fo:flow flow-name="xsl-region-body">\n')
        for s in range(sections):
            f.write(f'<fo:block font-size="16pt" font-weight="bold" space-before="12pt">'
                    f'Section {s + 1}: {sentence(rnd, words, 4)}</fo:block>\n')
            for _ in range(4):
                f.write(f'<fo:block text-align="justify" space-before="6pt">'
                        f'{sentence(rnd, words, rnd.randint(40, 120))}</fo:block>\n')
            f.write('<fo:table table-layout="fixed" width="100%" border="0.5pt solid black">'
                    '<fo:table-column column-width="20%"/><fo:table-column column-width="50%"/>'
                    '<fo:table-column column-width="30%"/><fo:table-body>\n')
            for r in range(12):
                f.write(f'<fo:table-row><fo:table-cell><fo:block>{r}</fo:block></fo:table-cell>'
                        f'<fo:table-cell><fo:block>{sentence(rnd, words, 5)}</fo:block></fo:table-cell>'
                        f'<fo:table-cell><fo:block text-align="end">{rnd.randint(0, 10**6)}'
                        f'</fo:block></fo:table-cell></fo:table-row>\n')
            f.write('</fo:table-body></fo:table>\n')
        f.write('</fo:flow></fo:page-sequence></fo:root>\n')


def xalan(path, scale, rnd, words):
    orders = max(1, int(60000 * scale))
    with open(path, "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<orders>\n')
        for i in range(orders):
            f.write(f'<order id="{i}" customer="c{rnd.randint(0, 2000)}" '
                    f'region="{rnd.choice(["north", "south", "east", "west"])}">'
                    f'<note>{sentence(rnd, words, 8)}</note>')
            for _ in range(rnd.randint(1, 6)):
                f.write(f'<item sku="s{rnd.randint(0, 5000)}" qty="{rnd.randint(1, 20)}" '
                        f'price="{rnd.randint(1, 100000) / 100:.2f}"/>')
            f.write('</order>\n')
        f.write('</orders>\n')


def lucene(path, scale, rnd, words):
    docs = max(1, int(60000 * scale))
    with open(path, "w", encoding="utf-8") as f:
        for i in range(docs):
            f.write(f"{i}\t{sentence(rnd, words, 6)}\t{sentence(rnd, words, rnd.randint(20, 200))}\n")


def main():
    out, scale = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for name, ext, gen in (("fop", "fo", fop), ("xalan", "xml", xalan), ("lucene", "txt", lucene)):
        path = os.path.join(out, f"{name}-{scale}.{ext}")
        if os.path.exists(path):
            continue
        rnd = random.Random(f"{name}-{scale}")
        gen(path + ".tmp", float(scale), rnd, vocabulary(rnd))
        os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()
