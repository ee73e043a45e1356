# cmake -DCLASS=<file> -DOUT=<c file> -DSYMBOL=<name> -P embed.cmake
# Writes the file's bytes as `const unsigned char SYMBOL[]` and its length.
file(READ ${CLASS} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR len "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT} "/* Generated from ${CLASS} by embed.cmake. */\n"
  "#include <stddef.h>\n"
  "const unsigned char ${SYMBOL}[] = {\n${bytes}\n};\n"
  "const size_t ${SYMBOL}_len = ${len};\n")
